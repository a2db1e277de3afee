"""AST chunking: granularity, splitting, merging and line windows (no model needed)."""

from __future__ import annotations

from tools.index.chunker import Chunker, estimate_tokens

PYTHON = '''"""Module docs."""
import os


def load_settings(path):
    """Read settings from a file."""
    with open(path) as handle:
        data = handle.read()
    values = {}
    for line in data.splitlines():
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip()
    return values


class Cache:
    """Keeps values in memory for a while."""

    def __init__(self, ttl):
        self.ttl = ttl
        self.items = {}

    @property
    def size(self):
        return len(self.items)
'''


def test_python_functions_and_small_class_are_one_chunk_each() -> None:
    chunks = Chunker(512).chunk("pkg/settings.py", PYTHON, "python")
    by_symbol = {c.symbol: c for c in chunks}
    assert by_symbol["load_settings"].kind == "function"
    assert (by_symbol["load_settings"].start_line, by_symbol["load_settings"].end_line) == (5, 13)
    assert by_symbol["Cache"].kind == "class"
    assert by_symbol["Cache"].start_line == 16 and by_symbol["Cache"].end_line == 25
    assert all(c.language == "python" and c.file == "pkg/settings.py" for c in chunks)
    assert chunks[0].start_line == 1  # module docstring and imports are kept, not dropped


def test_large_class_splits_into_methods_with_qualified_names() -> None:
    methods = "\n".join(
        f"    def method_{i}(self, value):\n" + "".join(f"        value = value * {j} + {i}\n" for j in range(12))
        + "        return value\n" for i in range(8)
    )
    source = f"class Calculator:\n    base = 1\n\n{methods}"
    chunks = Chunker(128).chunk("calc.py", source, "python")
    symbols = [c.symbol for c in chunks]
    assert "Calculator.method_0" in symbols and "Calculator.method_7" in symbols
    header = chunks[0]
    assert header.start_line == 1 and "class Calculator" in header.content


def test_every_chunk_respects_max_tokens_and_oversized_functions_are_split() -> None:
    body = "".join(f"    total += compute_value_{i}(argument_{i})\n" for i in range(200))
    source = f"def huge(total):\n{body}    return total\n"
    chunks = Chunker(128).chunk("big.py", source, "python")
    assert len(chunks) > 3
    assert all(sum(estimate_tokens(line) + 1 for line in c.content.splitlines()) <= 128 for c in chunks)
    assert chunks[0].kind == "function" and {c.kind for c in chunks[1:]} == {"part"}
    assert all(c.symbol == "huge" for c in chunks)
    lines = [n for c in chunks for n in range(c.start_line, c.end_line + 1)]
    assert lines == list(range(1, 203))  # parts cover the function exactly once, in order


def test_tiny_functions_keep_their_own_chunk_and_merge_only_on_request() -> None:
    source = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
    chunks = Chunker(512).chunk("tiny.py", source, "python")
    assert [(c.symbol, c.start_line, c.end_line) for c in chunks] == [("a", 1, 2), ("b", 5, 6), ("c", 9, 10)]
    assert all(c.kind == "function" and c.symbols == [c.symbol] for c in chunks)
    merged = Chunker(512, merge_tiny=True).chunk("tiny.py", source, "python")
    assert len(merged) == 1
    assert merged[0].symbols == ["a", "b", "c"]
    assert (merged[0].start_line, merged[0].end_line) == (1, 10)


def test_a_short_lead_in_right_above_a_tiny_function_still_joins_it() -> None:
    source = "import os\n# the home folder\ndef home():\n    return os.environ['HOME']\n\n\ndef pid():\n    return 1\n"
    chunks = Chunker(512).chunk("lead.py", source, "python")
    assert [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks] == [
        ("home", "function", 1, 4), ("pid", "function", 7, 8)]


def test_javascript_classes_methods_and_arrow_functions() -> None:
    method_body = "".join(f"    this.total += {i};\n" for i in range(40))
    source = (
        "export class Cart {\n  add(item) {\n" + method_body + "  }\n  clear() {\n" + method_body + "  }\n}\n\n"
        "const priceOf = (item) => {\n" + method_body.replace("this.total", "item.price") + "};\n"
    )
    chunks = Chunker(256).chunk("cart.js", source, "javascript")
    symbols = {c.symbol for c in chunks}
    assert {"Cart.add", "Cart.clear", "priceOf"} <= symbols


def test_line_windows_for_text_and_markdown_sections() -> None:
    text = "# Install\n" + "step\n" * 100 + "# Usage\n" + "run it\n" * 100
    chunks = Chunker(128).chunk("README.md", text, "markdown")
    assert len(chunks) > 2 and all(c.kind == "lines" for c in chunks)
    assert chunks[0].symbol == "Install" and chunks[-1].symbol == "Usage"
    plain = Chunker(512).chunk("notes.txt", "hello\nworld\n", None)
    assert len(plain) == 1 and plain[0].language == "text" and plain[0].end_line == 2


def test_lines_strategy_ignores_the_ast_and_hash_follows_content() -> None:
    chunks = Chunker(512, strategy="lines").chunk("pkg/settings.py", PYTHON, "python")
    assert all(c.kind == "lines" for c in chunks)
    again = Chunker(512, strategy="lines").chunk("pkg/settings.py", PYTHON, "python")
    assert [c.content_hash for c in chunks] == [c.content_hash for c in again]
    changed = Chunker(512, strategy="lines").chunk("pkg/settings.py", PYTHON + "# more\n", "python")
    assert changed[-1].content_hash != chunks[-1].content_hash
