"""`code-intel index` and `code-intel search` through the real CLI entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.cli.main import main
from code_intel.index.embedder import Embedder

pytestmark = pytest.mark.slow


def test_index_then_search_from_the_command_line(
    sample_project: Path, capsys: pytest.CaptureFixture[str], embedding_model: Embedder
) -> None:
    assert main(["index", "--project", str(sample_project)]) == 0
    out, err = capsys.readouterr()
    assert "index complete" in out and "4 added" in out
    assert "[" in err and "4/4" in err  # progress on stderr

    assert main(["search", "--project", str(sample_project), "compute the price including tax", "-n", "2"]) == 0
    out, _ = capsys.readouterr()
    assert "source: forest" in out and "src/invoices.py:" in out

    assert main(["index", "--project", str(sample_project), "--force"]) == 0
    assert "4 added" in capsys.readouterr().out
