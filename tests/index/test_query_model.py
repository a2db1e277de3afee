"""The question of a search embedded by the code-tuned transformer and mapped into the static table's space (the real
model and table on a small fixture): the projection that ships is the one the table was fitted with, it loads only
when a search wants it, the static vector answers until then or when it cannot load, and the answer says which."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from code_intel.index.embedder import CODE_TUNED_WEIGHTS, Embedder, weights_fingerprint
from code_intel.index.query_model import QUERY_PROJECTION, TEACHER, QueryModel
from code_intel.index.service import SemanticIndex
from code_intel.index.static import STATIC_WEIGHTS, StaticEmbedder
from code_intel.index.sync import SyncState
from tests.conftest import FULL_MODEL, write_files

TEXTS = ["def send_welcome_email(address, name):\n    smtplib.SMTP('localhost').sendmail('x', [address], name)",
         "send a welcome email to a new user",
         "class InvoiceCalculator:\n    def total_with_tax(self, amounts, rate):\n        return sum(amounts) * rate",
         "compute the total of an invoice with tax"]


@pytest.fixture
def fresh_models(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Question models of this test only (they are shared per table within a process)."""
    monkeypatch.setattr(QueryModel, "_shared", {})
    yield


def test_the_projection_is_the_one_the_shipped_table_was_fitted_with() -> None:
    from safetensors import safe_open

    card = json.loads(STATIC_WEIGHTS.with_suffix(".json").read_text())["query_projection"]
    with safe_open(str(QUERY_PROJECTION), framework="numpy") as f:
        meta = f.metadata() or {}
        mean, project = f.get_tensor("mean"), f.get_tensor("projection")
    assert card["file"] == QUERY_PROJECTION.name and card["sha256_12"] == weights_fingerprint(QUERY_PROJECTION)
    assert meta["table_sha256_12"] == card["table_sha256_12"] == weights_fingerprint(STATIC_WEIGHTS)
    assert meta["tuned_layers_sha256_12"] == weights_fingerprint(CODE_TUNED_WEIGHTS)
    assert mean.shape == (384,) and project.shape == (384, StaticEmbedder().dimension)
    # a PCA: orthonormal axes
    assert np.allclose(project.T @ project, np.eye(project.shape[1]), atol=1e-4)


@pytest.mark.model  # loads the transformer
def test_the_transformers_question_lands_where_the_table_puts_the_same_text(fresh_models: None) -> None:
    static = StaticEmbedder()
    model = QueryModel(static)
    assert model.current()[1] == "code-static" and model.state == "idle"
    model.load()
    embed, name = model.current()
    assert model.state == "ready" and name == TEACHER
    mapped, own = np.asarray(embed(TEXTS)), static.embed(TEXTS)
    assert np.allclose(np.linalg.norm(mapped, axis=1), 1.0, atol=1e-5)
    same = (mapped * own).sum(axis=1)
    # the table was fitted to these targets (held-out cosine 0.89): each text's two vectors agree, and better
    # than with any other text's
    assert same.min() > 0.6, same
    assert all(same[i] > max(mapped[i] @ own[j] for j in range(len(TEXTS)) if j != i) for i in range(len(TEXTS)))
    # the transformer's own vector, centred and projected: the mapping is what the fit's targets were
    teacher = np.asarray(Embedder(TEACHER).embed_queries(TEXTS[:1]))[0]
    with_projection = (teacher - model._parts[1]) @ model._parts[2]  # type: ignore[index]
    assert np.allclose(mapped[0], with_projection / np.linalg.norm(with_projection), atol=1e-4)


def test_a_projection_made_for_another_table_keeps_the_static_vector(tmp_path: Path, fresh_models: None) -> None:
    from safetensors.numpy import save_file

    other = tmp_path / "query.safetensors"
    save_file({"mean": np.zeros(384, dtype=np.float32), "projection": np.zeros((384, 256), dtype=np.float32)},
              str(other), metadata={"table_sha256_12": "000000000000"})
    model = QueryModel(StaticEmbedder(), other)
    model.load()
    embed, name = model.current()
    assert model.state == "failed" and name == "code-static (the question model failed to load)"
    assert np.allclose(embed(TEXTS[:1]), StaticEmbedder().embed(TEXTS[:1]))


@pytest.fixture
def project(project_dir: Path, make_index: Callable[..., SemanticIndex]) -> SemanticIndex:
    write_files(project_dir, {
        "src/mailer.py": "import smtplib\n\n\ndef send_welcome_email(address, name):\n"
                         "    message = f'Hello {name}'\n    smtplib.SMTP('localhost').sendmail('x', [address], message)\n",
        "src/invoices.py": "class InvoiceCalculator:\n    def total_with_tax(self, amounts, rate):\n"
                           "        return round(sum(amounts) * (1 + rate), 2)\n",
    })
    return make_index(project_dir, embedding_model="code-static", sync_on_start=False)


def test_a_sync_starts_it_once_its_file_pass_is_over(project: SemanticIndex, fresh_models: None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    phases: list[str] = []
    monkeypatch.setattr(QueryModel, "start", lambda self: phases.append(project._state.phase))
    project.sync()
    # every file searchable, the stores not yet written: the searches after the sync find it loaded (asked again when
    # the sync is over, which a load under way ignores)
    assert phases == ["persist", "done"]


def test_for_a_large_index_it_waits_for_the_end_of_the_sync(project: SemanticIndex, fresh_models: None,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from code_intel.index import service

    phases: list[str] = []
    monkeypatch.setattr(QueryModel, "start", lambda self: phases.append(project._state.phase))
    monkeypatch.setattr(service, "EARLY_QUESTION_MODEL_CHUNKS", 1)  # the fixture's two files make more chunks
    project.sync()
    # not while the index is stored, whose memory peak it would add to, but as soon as the sync is over
    assert phases == ["done"]


def test_a_search_during_a_sync_neither_starts_nor_waits_for_it(project: SemanticIndex, fresh_models: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[QueryModel] = []
    monkeypatch.setattr(QueryModel, "start", lambda self: started.append(self))
    project.sync()
    started.clear()
    monkeypatch.setattr(QueryModel, "wait", lambda self, timeout: pytest.fail("a search during a sync waited"))
    # a second sync in its file pass (the first one's chunks answer meanwhile): the sync's memory peak is not added to
    project._syncing, project._state = True, SyncState(phase="files", files_total=2, files_done=1)
    answer = project.semantic_search("send a welcome email", 3)
    assert answer["index"]["state"] == "syncing" and answer["results"]
    assert not started and answer["query_model"] == "code-static"


@pytest.mark.model  # loads the transformer
def test_the_first_search_of_a_process_waits_for_the_question_model(
        project: SemanticIndex, fresh_models: None, monkeypatch: pytest.MonkeyPatch) -> None:
    start = QueryModel.start
    monkeypatch.setattr(QueryModel, "start", lambda self: None)
    project.sync()  # built before this process's searches (as by an earlier server): nothing loaded yet
    monkeypatch.setattr(QueryModel, "start", start)
    model = QueryModel.for_table(project._get_parts().embedder)  # type: ignore[arg-type]
    assert model.state == "idle"
    first = project.semantic_search("send a welcome email", 3)
    assert model.state == "ready" and first["query_model"] == TEACHER
    assert first["results"][0]["file"] == "src/mailer.py"
    assert project.semantic_search("total of an invoice with tax", 3)["results"][0]["file"] == "src/invoices.py"


def test_the_wait_is_bounded_and_the_static_vector_answers_meanwhile(
        project: SemanticIndex, fresh_models: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from code_intel.index import service

    release = threading.Event()

    def slow_load(self: QueryModel) -> None:
        release.wait(10)
        self.state = "failed"
        self._settled.set()

    start = QueryModel.start
    monkeypatch.setattr(QueryModel, "start", lambda self: None)
    project.sync()
    monkeypatch.setattr(QueryModel, "start", start)
    monkeypatch.setattr(QueryModel, "load", slow_load)
    monkeypatch.setattr(service, "QUESTION_MODEL_WAIT_S", 0.05)
    try:
        answer = project.semantic_search("send a welcome email", 3)
        model = QueryModel.for_table(project._get_parts().embedder)  # type: ignore[arg-type]
        assert model.state == "loading" and answer["query_model"] == "code-static (the question model is loading)"
        assert answer["results"][0]["file"] == "src/mailer.py"
    finally:
        release.set()


def test_an_opt_in_model_embeds_its_own_questions(project_dir: Path, make_index: Callable[..., SemanticIndex],
                                                  fresh_models: None, monkeypatch: pytest.MonkeyPatch) -> None:
    write_files(project_dir, {"src/mailer.py": "def send_welcome_email(address):\n    return smtp.send(address)\n"})
    index = make_index(project_dir, sync_on_start=False)  # all-MiniLM-L6-v2-code: two passes
    index.sync()
    started: list[QueryModel] = []
    monkeypatch.setattr(QueryModel, "start", lambda self: started.append(self))
    full = index.semantic_search("send a welcome email", 3)
    assert full["index"]["quality"] == "full" and full["query_model"] == FULL_MODEL
    monkeypatch.setattr(index, "_quality", lambda _parts: "fast")  # the fast pass answers: its static vector
    fast = index.semantic_search("send a welcome email", 3)
    assert fast["index"]["quality"] == "fast" and fast["query_model"] == "code-static" and fast["results"]
    assert not started
