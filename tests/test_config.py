from __future__ import annotations

import datetime
import json
import os
from pathlib import Path
from typing import Any

import pytest

from code_intel.core.config import (
    DOCUMENT_PATTERNS,
    Config,
    ContextSettings,
    load_config,
    load_context,
    read_yaml,
)
from code_intel.core.errors import ConfigError
from code_intel.core.project import TEMPLATES_DIR
from code_intel.server.app import CodeIntelApp


def _write_config(state: Path, data: Any) -> Path:
    state.mkdir(parents=True, exist_ok=True)
    file = state / "config.json"
    file.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return file


def _write_context(state: Path, text: str) -> Path:
    state.mkdir(parents=True, exist_ok=True)
    file = state / "context.yml"
    file.write_text(text, encoding="utf-8")
    return file


def test_missing_files_mean_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path / ".code-intel") == Config()
    assert load_context(tmp_path / ".code-intel") == ContextSettings()
    assert Config().chunk_strategy == "ast" and Config().sync_on_start is True
    assert "**/node_modules/**" in Config().exclude_patterns


@pytest.mark.parametrize("text", ["", "  \n", "{}"])
def test_empty_config_means_defaults(tmp_path: Path, text: str) -> None:
    _write_config(tmp_path, text)
    assert load_config(tmp_path) == Config()


def test_values_override_defaults_and_missing_keys_keep_them(tmp_path: Path) -> None:
    _write_config(tmp_path, {"source_dirs": ["src"], "chunk_max_tokens": 256, "chroma": {"mode": "http", "port": 9000}})
    config = load_config(tmp_path)
    assert config.source_dirs == ["src"] and config.chunk_max_tokens == 256
    assert config.chroma.mode == "http" and config.chroma.port == 9000 and config.chroma.host == "127.0.0.1"
    assert config.sync_ttl_hours == 1.0


@pytest.mark.parametrize(
    ("data", "key", "reason"),
    [
        ({"chunk_max_tokens": "big"}, "chunk_max_tokens", "valid integer"),
        ({"chunk_max_tokens": 1}, "chunk_max_tokens", "greater than or equal to 32"),
        ({"chunk_max_tokens": None}, "chunk_max_tokens", "valid integer"),
        ({"chunk_strategy": "words"}, "chunk_strategy", "'ast' or 'lines'"),
        ({"chroma": {"port": 70000}}, "chroma.port", "less than or equal to 65535"),
        ({"chroma": {"mode": "cloud"}}, "chroma.mode", "'persistent' or 'http'"),
        ({"source_dirs": "src"}, "source_dirs", "valid list"),
        ({"exclude_patterns": ["ok", 3]}, "exclude_patterns.1", "valid string"),
        ({"search_timeout_seconds": 0}, "search_timeout_seconds", "greater than 0"),
        ({"embedding_modle": "x"}, "embedding_modle", "unknown key"),
        ({"chroma": {"pth": "x"}}, "chroma.pth", "unknown key"),
    ],
)
def test_bad_config_value_names_file_key_and_reason(tmp_path: Path, data: dict[str, Any], key: str, reason: str) -> None:
    file = _write_config(tmp_path, data)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    message = caught.value.message
    assert str(file) in message
    assert f"key '{key}'" in message
    assert reason in message
    assert caught.value.hint and "config.json" in caught.value.hint
    assert caught.value.to_dict()["error"] == "tool_unavailable"


def test_several_bad_keys_are_all_reported(tmp_path: Path) -> None:
    _write_config(tmp_path, {"chunk_max_tokens": "big", "sync_on_start": "perhaps"})
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert "chunk_max_tokens" in caught.value.message and "sync_on_start" in caught.value.message


def test_invalid_json_gives_line_and_column(tmp_path: Path) -> None:
    _write_config(tmp_path, '{\n  "source_dirs": ["src",]\n}')
    with pytest.raises(ConfigError, match=r"not valid JSON \(line 2, column \d+"):
        load_config(tmp_path)


@pytest.mark.parametrize("text", ["[1, 2]", '"text"', "3"])
def test_config_top_level_must_be_an_object(tmp_path: Path, text: str) -> None:
    _write_config(tmp_path, text)
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_config(tmp_path)


def test_context_yml_loads_and_keeps_extra_keys(tmp_path: Path) -> None:
    _write_context(tmp_path, (
        "project_rules:\n  source: docs/RULES.md\n  summary: |\n    DO:\n    - services hold logic\n"
        "doc_research:\n  enabled: false\n  docs_path: [design/]\n"
        "team_notes: keep me\n"
    ))
    context = load_context(tmp_path)
    assert context.project_rules.source == "docs/RULES.md"
    assert context.project_rules.summary.startswith("DO:")
    assert context.doc_research.enabled is False and context.doc_research.docs_path == ["design/"]
    assert context.document_search.include_patterns == list(DOCUMENT_PATTERNS)
    assert context.model_dump()["team_notes"] == "keep me"


def test_empty_context_yml_means_defaults(tmp_path: Path) -> None:
    _write_context(tmp_path, "# nothing but a comment\n")
    assert load_context(tmp_path) == ContextSettings()


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("doc_research:\n  enabled: perhaps\n", "doc_research.enabled"),
        ("doc_research:\n  docs_path: 5\n", "doc_research.docs_path"),
        ("project_rules:\n  source: [a, b]\n", "project_rules.source"),
        ("document_search:\n  include_patterns: {a: 1}\n", "document_search.include_patterns"),
    ],
)
def test_bad_context_value_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    file = _write_context(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_context(tmp_path)
    assert str(file) in caught.value.message and f"key '{key}'" in caught.value.message


def test_invalid_yaml_and_non_mapping_are_refused(tmp_path: Path) -> None:
    _write_context(tmp_path, "project_rules: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_context(tmp_path)
    _write_context(tmp_path, "- a\n- b\n")
    with pytest.raises(ConfigError, match="top level must be a mapping"):
        load_context(tmp_path)


@pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml", "pure-python"])
def test_yaml_reads_the_same_with_or_without_libyaml(monkeypatch: pytest.MonkeyPatch, libyaml: bool) -> None:
    import yaml

    if not libyaml:
        monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    for template in ("phase_contract.yml", "context.yml"):
        text = (TEMPLATES_DIR / "code-intel" / template).read_text(encoding="utf-8")
        assert read_yaml(text) == yaml.load(text, Loader=yaml.SafeLoader), template
    assert read_yaml("when: 2026-11-24\nflag: yes\n") == {"when": datetime.date(2026, 11, 24), "flag": True}
    with pytest.raises(yaml.YAMLError, match=r"line 2, column \d+"):
        read_yaml("a: 1\nb: [unclosed\nc: 2\n")
    with pytest.raises(yaml.constructor.ConstructorError):  # no Python objects from a settings file
        read_yaml("x: !!python/object/apply:os.getcwd []\n")


def test_the_context_template_writes_the_defaults() -> None:
    """The context.yml init writes says what a missing key means: the same settings as the model's defaults."""
    text = (TEMPLATES_DIR / "code-intel" / "context.yml").read_text(encoding="utf-8")
    written = ContextSettings.model_validate(read_yaml(text))
    assert written.document_search == ContextSettings().document_search
    assert written.doc_research == ContextSettings().doc_research


def test_app_reloads_settings_when_the_file_changes(project_dir: Path) -> None:
    app = CodeIntelApp.for_path(project_dir)
    assert app.config.chunk_max_tokens == 512
    file = _write_config(project_dir / ".code-intel", {"chunk_max_tokens": 256})
    assert app.config.chunk_max_tokens == 256
    file.write_text(json.dumps({"chunk_max_tokens": "big"}), encoding="utf-8")
    os.utime(file, ns=(1, 1))  # a different mtime even on coarse clocks
    with pytest.raises(ConfigError, match="chunk_max_tokens"):
        _ = app.config
    file.write_text(json.dumps({"chunk_max_tokens": 128}), encoding="utf-8")
    os.utime(file, ns=(2, 2))
    assert app.config.chunk_max_tokens == 128


def test_unreadable_settings_files_are_refused_clearly(tmp_path: Path) -> None:
    (tmp_path / "config.json").mkdir()
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config(tmp_path)
    (tmp_path / "context.yml").write_bytes(b"project_rules:\n  source: \xff\xfe\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_context(tmp_path)
