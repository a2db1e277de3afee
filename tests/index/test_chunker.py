"""AST chunking: granularity, splitting, merging and line windows (no model needed)."""

from __future__ import annotations

from code_intel.index.chunker import Chunker, estimate_tokens

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


GO_DOCUMENTED = '''package cache

import "time"

// Store keeps entries until they expire.
// It is safe for concurrent use by multiple goroutines,
// and every method locks the mutex before it reads the map.
// Entries older than the TTL are dropped lazily on access,
// so a long-lived store never grows without bound as long
// as keys are read now and then; Sweep drops the rest.
type Store struct {
	ttl time.Duration
}

// Get returns the value stored under key, or false when the key is
// missing or its entry expired. An expired entry is removed on the way
// out, so the next Get for the same key does not look at it again.
// This comment is longer than the function it documents, and the old
// chunker made it a chunk of its own, apart from its function.
func (s *Store) Get(key string) (string, bool) {
	return "", false
}

func Len() int { return 0 } // a trailing comment documents nothing below it
func Sweep() {}

// A comment with a blank line after it is not a doc comment.

func Reset() {}
'''

TS_DOCUMENTED = '''import { x } from "y";

/**
 * Resolves the charset of a response from its content-type header,
 * falling back to sniffing the first bytes of the body when the header
 * is missing, then to utf-8. Long enough to have been a chunk of its own,
 * apart from the function it documents, under the old lead-in rule.
 */
export function guessCharset(headers: Headers, body: Uint8Array): string {
  return "utf-8";
}

class Parser {
  /**
   * The method doc, long enough to explain what the method does in detail,
   * so that it crosses the size limit of the lead-in merge of the old chunker
   * and shows that it now joins the method below it in one chunk.
   */
  run(): void {}
}
'''


def test_long_go_doc_comments_join_the_definition_they_document() -> None:
    chunks = Chunker(512).chunk("cache.go", GO_DOCUMENTED, "go")
    spans = {c.symbol: (c.kind, c.start_line, c.end_line) for c in chunks if c.symbol}
    assert spans["Store"] == ("class", 5, 13)  # the six comment lines open the type's chunk
    assert spans["Store.Get"] == ("function", 15, 22)  # a Go method is named after its receiver's type
    get = next(c for c in chunks if c.symbol == "Store.Get")
    assert get.content.startswith("// Get returns the value") and "func (s *Store) Get" in get.content
    assert spans["Len"][1:] == (24, 24) and spans["Sweep"][1:] == (25, 25)  # a trailing comment is no doc
    assert spans["Reset"][1:] == (29, 29)  # a blank line separates a comment from the definition
    assert not any(c.kind == "module" and "Get returns" in c.content for c in chunks)


def test_jsdoc_blocks_join_functions_and_methods_in_typescript() -> None:
    chunks = Chunker(512).chunk("charset.ts", TS_DOCUMENTED, "typescript")
    by_symbol = {c.symbol: c for c in chunks if c.symbol}
    assert (by_symbol["guessCharset"].start_line, by_symbol["guessCharset"].end_line) == (3, 11)
    assert by_symbol["guessCharset"].content.startswith("/**")
    assert by_symbol["Parser"].start_line == 13 and "The method doc" in by_symbol["Parser"].content
    small = Chunker(64).chunk("charset.ts", TS_DOCUMENTED, "typescript")  # Parser splits into methods
    run = next(c for c in small if c.symbol == "Parser.run")
    assert run.start_line == 14 and run.content.lstrip().startswith("/**")


def test_go_methods_are_qualified_by_their_receiver_type() -> None:
    source = ("package x\n\nfunc (s *Store) Get(k string) string { return \"\" }\nfunc (s Store) Put() {}\n"
              "func (l *List[T]) Push(v T) {}\nfunc Free() {}\n")
    symbols = [c.symbol for c in Chunker(512).chunk("x.go", source, "go") if c.kind == "function"]
    assert symbols == ["Store.Get", "Store.Put", "List.Push", "Free"]


RUBY_NESTED = '''require "monitor"

module Shop
  module Storage
    # A store that keeps every entry in memory,
    # evicting the least recently used ones.
    class MemoryStore < Store
      LIMIT = 10

      # Removes the oldest entries until the store fits.
      def prune(size)
        @data.shift while @data.size > size
      end

''' + "".join(f'''      def method_{n}(key)
        value = @data.fetch(key) {{ compute_{n}(key) }}
        @data[key] = value
        log("method_{n}", key, value)
        value
      end

''' for n in range(12)) + '''    end
  end
end
'''


def test_a_ruby_doc_comment_above_the_first_definition_of_a_module_joins_that_definition() -> None:
    # tree-sitter puts the comments before a module's first statement outside its body
    chunks = Chunker(max_tokens=160).chunk("lib/shop/memory_store.rb", RUBY_NESTED, "ruby")
    header = next(c for c in chunks if c.symbol == "Shop.Storage.MemoryStore" and c.kind == "class")
    assert "A store that keeps every entry in memory" in header.content and "class MemoryStore" in header.content
    prune = next(c for c in chunks if c.symbol == "Shop.Storage.MemoryStore.prune")
    assert prune.content.lstrip().startswith("# Removes the oldest entries")


def test_a_ruby_module_that_only_holds_classes_is_a_namespace_without_a_chunk() -> None:
    chunks = Chunker(max_tokens=160).chunk("lib/shop/memory_store.rb", RUBY_NESTED, "ruby")
    assert not [c for c in chunks if c.symbol in ("Shop", "Shop.Storage")], [(c.symbol, c.content) for c in chunks[:3]]
    assert all(c.content.strip() not in ("module Shop", "module Storage") for c in chunks)


RUBY_SINGLETON = '''class Builder
  def self.parse_file(path)
    new(path).to_app
  end

  class << self
    # Builds the app from a block.
    def app(default_app = nil, &block)
      new(default_app, &block).to_app
    end

    def load_file(path)
      File.read(path)
    end
  end
end
'''


def test_methods_inside_a_ruby_class_self_block_are_the_class_methods_they_define() -> None:
    whole = Chunker().chunk("lib/builder.rb", RUBY_SINGLETON, "ruby")
    assert whole[0].symbol == "Builder" and {"Builder.app", "Builder.load_file"} <= set(whole[0].symbols)
    split = Chunker(max_tokens=40).chunk("lib/builder.rb", RUBY_SINGLETON, "ruby")
    app = next(c for c in split if c.symbol == "Builder.app")
    assert app.kind == "function" and "# Builds the app from a block." in app.content
    assert any(c.symbol == "Builder.load_file" and c.kind == "function" for c in split)
