"""A tiny sample project and a SemanticIndex over it (real model, real Chroma)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from code_intel.core.config import load_config
from code_intel.core.project import ProjectRoot
from code_intel.index.embedder import Embedder
from code_intel.index.service import SemanticIndex
from tests.conftest import FULL_MODEL, write_files

SAMPLE_FILES = {
    "src/mailer.py": '''import smtplib


def send_welcome_email(address, name):
    message = f"Hello {name}, welcome aboard"
    with smtplib.SMTP("localhost") as server:
        server.sendmail("noreply@example.com", [address], message)
    return True
''',
    "src/invoices.py": '''class InvoiceCalculator:
    def __init__(self, tax_rate):
        self.tax_rate = tax_rate

    def total_with_tax(self, amounts):
        subtotal = sum(amounts)
        return round(subtotal * (1 + self.tax_rate), 2)
''',
    "src/images.js": '''export function resizeThumbnail(image, width) {
  const ratio = width / image.width;
  return { width, height: Math.round(image.height * ratio), pixels: image.pixels };
}
''',
    "docs/guide.md": "# Deploying\n\nBuild the container image and push it to the registry.\n",
}


@pytest.fixture
def sample_project(project_dir: Path) -> Path:
    write_files(project_dir, SAMPLE_FILES)
    return project_dir


@pytest.fixture
def make_index(embedding_model: Embedder) -> Iterator[Callable[..., SemanticIndex]]:
    """`make_index(folder, **config)`: a SemanticIndex with config.json written from the keyword arguments; the
    full transformer model unless `embedding_model` says otherwise (two passes: static first, then that model)."""
    made: list[SemanticIndex] = []

    def build(folder: Path, **config: object) -> SemanticIndex:
        state = folder / ".code-intel"
        state.mkdir(exist_ok=True)
        file = state / "config.json"
        if config or not file.exists():  # no arguments: the folder's config as it is (a reopened index)
            config.setdefault("embedding_model", FULL_MODEL)
            file.write_text(json.dumps(config), encoding="utf-8")
        root = ProjectRoot.from_args(folder)
        index = SemanticIndex(root, lambda: load_config(root.state_dir))
        made.append(index)
        return index

    yield build
    for index in made:
        index.close()
