"""The query router with the real semantic index (embedding model + Chroma) through CodeIntelApp."""

from pathlib import Path
from typing import Any

import pytest

from code_intel.index.embedder import Embedder
from code_intel.server.app import CodeIntelApp
from tests.conftest import write_files

pytestmark = pytest.mark.slow

FILES = {
    "src/mailer.py": (
        "import smtplib\n"  # 1
        "\n"  # 2
        "\n"  # 3
        "def send_welcome_email(address, name):\n"  # 4
        "    message = f'Hello {name}, welcome aboard'\n"  # 5
        "    with smtplib.SMTP('localhost') as server:\n"  # 6
        "        server.sendmail('noreply@example.com', [address], message)\n"  # 7
        "    return True\n"  # 8
    ),
    "src/invoices.py": (
        "class InvoiceCalculator:\n"
        "    def __init__(self, tax_rate):\n"
        "        self.tax_rate = tax_rate\n"
        "\n"
        "    def total_with_tax(self, amounts):\n"
        "        return round(sum(amounts) * (1 + self.tax_rate), 2)\n"
    ),
    "src/signup.py": "from src.mailer import send_welcome_email\n\n\ndef register(user):\n    send_welcome_email(user.email, user.name)\n",
}


def ask(app: CodeIntelApp, question: str) -> dict[str, Any]:
    """The answer as the wire shows it (null fields left out)."""
    return app.query(question).model_dump(exclude_none=True)


@pytest.fixture
def app(project_dir: Path, embedding_model: Embedder) -> CodeIntelApp:
    write_files(project_dir, FILES)
    application = CodeIntelApp.for_path(project_dir)
    yield application
    application.close()


def test_prose_question_is_answered_by_the_semantic_route(app: CodeIntelApp) -> None:
    before = ask(app, "mail a greeting to a new user")
    assert "semantic" not in before["routes_used"]
    assert any("semantic search unavailable" in n for n in before["notes"])

    app.index.sync()
    result = ask(app, "mail a greeting to a new user")
    assert "semantic" in result["routes_used"]
    semantic = [r for r in result["results"] if r["kind"] == "semantic"]
    mailer = next(r for r in semantic if r["file"] == "src/mailer.py")
    assert mailer["line"] <= 4 and mailer["end_line"] >= 8 and mailer["chunk_id"]
    assert result["results"][0]["file"] in ("src/mailer.py", "src/signup.py")  # both are about welcome mail


def test_routes_agree_on_a_named_function(app: CodeIntelApp) -> None:
    app.index.sync()
    result = ask(app, "where does send_welcome_email mail new users?")
    assert result["routes_used"] == ["definitions", "text", "semantic"]
    top = result["results"][0]
    assert (top["file"], top["line"], top["kind"]) == ("src/mailer.py", 4, "definition")
    assert {"definition:exact", "text"} <= set(top["sources"])
    assert any(s.startswith("semantic:") for s in top["sources"])
    caller = next(r for r in result["results"] if r["file"] == "src/signup.py" and r["kind"] != "text")
    assert 5 in caller["lines"]  # the call site, folded into the chunk or definition around it
