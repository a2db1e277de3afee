"""`code-intel index [--force]` and `code-intel search "text"`: the semantic index from a terminal.

Progress goes to stderr (a bar on a terminal, plain lines otherwise); results go to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from code_intel.core.config import load_config
from code_intel.core.project import ProjectRoot


class ProgressBar:
    """A one-line bar redrawn in place on a terminal; one line per update when piped."""

    def __init__(self, stream: TextIO = sys.stderr, width: int = 30) -> None:
        self.stream, self.width = stream, width
        self.interactive = stream.isatty()

    def __call__(self, done: float, total: float | None, message: str) -> None:
        if total:
            filled = int(self.width * min(done / total, 1.0))
            bar = "#" * filled + "-" * (self.width - filled)
            line = f"[{bar}] {int(done)}/{int(total)} {message}"
        else:
            line = message
        if self.interactive:
            self.stream.write("\r" + line[:120].ljust(120))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.interactive:
            self.stream.write("\n")
            self.stream.flush()


def _index(project: str | None) -> Any:
    from code_intel.index.service import SemanticIndex

    root = ProjectRoot.from_args(project)
    return SemanticIndex(root, lambda: load_config(root.state_dir))


def run_index(args: argparse.Namespace) -> int:
    index = _index(getattr(args, "project", None))
    bar = ProgressBar()
    try:
        report = index.sync(force=bool(getattr(args, "force", False)), progress=bar)
    finally:
        bar.finish()
        index.close()
    state = "complete" if report["complete"] else f"PARTIAL ({report.get('partial_reason')})"
    print(f"indexed {report['files_scanned']} files: {report['files_added']} added, {report['files_changed']} changed, "
          f"{report['files_removed']} removed; {report['chunks_added']} new chunks, "
          f"{report['chunks_full_embedded']} embedded by the full model, {report['chunks_total']} in total; "
          f"{report['duration_s']:.1f} s; index {state}")
    print(f"model {report['model']}, store {report['store']}")
    return 0 if report["complete"] else 1


def run_search(args: argparse.Namespace) -> int:
    index = _index(getattr(args, "project", None))
    try:
        response = index.semantic_search(args.text, n_results=int(getattr(args, "n_results", 10) or 10),
                                         collection=getattr(args, "collection", None))
    finally:
        index.close()
    if getattr(args, "json", False):
        print(json.dumps(response, indent=2))
        return 0
    print(f"source: {response['source']}" + (" (Map shortcut)" if response.get("map_shortcut") else ""))
    if response.get("note"):
        print(f"note: {response['note']}")
    for rank, item in enumerate(response["results"], 1):
        span = f"{item['file']}:{item['line']}" + (f"-{item['end_line']}" if item.get("end_line") else "")
        print(f"{rank:>2}. {span}  {item.get('symbol') or ''}  score={item['score']}  [{item['chunk_id']}]")
    if not response["results"]:
        print("no results")
    return 0
