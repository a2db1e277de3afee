"""Logging: `.code-intel/logs/server.log` gets everything at the chosen level, stderr only warnings and
errors (clients show every stderr line of a server as an error). stdout belongs to the MCP protocol."""

from __future__ import annotations

import logging
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup_logging(log_dir: Path | None, level: str = "INFO") -> None:
    root = logging.getLogger()
    root.setLevel(level.upper())
    for handler in list(root.handlers):
        root.removeHandler(handler)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setFormatter(logging.Formatter(FORMAT))
    stderr.setLevel(logging.WARNING)
    root.addHandler(stderr)
    if log_dir is not None:
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            file = RotatingFileHandler(log_dir / "server.log", maxBytes=2_000_000, backupCount=2, encoding="utf-8")
            file.setFormatter(logging.Formatter(FORMAT))
            root.addHandler(file)
        except OSError as err:  # a read-only project still gets a server
            root.warning("cannot write %s: %s", log_dir / "server.log", err)
    # Third-party libraries are chatty at INFO; keep our log readable.
    for noisy in ("chromadb", "httpx", "sentence_transformers", "urllib3", "git"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
