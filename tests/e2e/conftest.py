"""The sample calculator repository the stdio session tests drive (the demo's, with code-intel installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_intel.cli.demo import create_sample


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    repo = tmp_path / "calc"
    create_sample(repo)
    return repo
