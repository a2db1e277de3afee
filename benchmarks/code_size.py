"""The size of the product code: lines, modules and the longest functions of code_intel_server.py and tools/.

Lines are physical lines of the .py files (blank and comment lines included, as `wc -l` counts them); a
function's length runs from its `def` (decorators left out) to its last line.

    .venv/bin/python benchmarks/code_size.py [--root DIR] [--top 5]
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def product_files(root: Path) -> list[Path]:
    return [root / "code_intel_server.py", *sorted(p for p in (root / "tools").rglob("*.py") if "__pycache__" not in p.parts)]


def functions(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.end_lineno - node.lineno + 1, node.name) for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO)
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args()
    files = product_files(args.root.resolve())
    lines = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in files}
    longest = sorted(((length, f"{path.relative_to(args.root.resolve())}:{name}")
                      for path in files for length, name in functions(path)), reverse=True)
    server = args.root.resolve() / "code_intel_server.py"
    print(f"product lines {sum(lines.values()):,} in {len(files)} modules; code_intel_server.py {lines[server]} lines")
    for length, where in longest[:args.top]:
        print(f"  {length:4d} lines  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
