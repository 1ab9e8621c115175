"""A run named as the source of `run` is resumed with what its config recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from replay.backends import GenParams
from replay.errors import UsageError
from replay.reading import CAPTURES_OWN, RunConfig
from replay.store import Store
from replay.usecases.replay import RunRequest, resumed


def test_a_stored_run_resumes_with_its_own_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-test")
    monkeypatch.delenv("GONE_KEY", raising=False)
    with Store(tmp_path / "s.db") as store:
        store.create_run("caps", RunConfig(source="captures", editor=CAPTURES_OWN, backend="openai", model_spec="default",
                                           family="qwen2.5-coder", params={"max_new_tokens": 7}, endpoints=["http://e"],
                                           api_key_env="MY_KEY", early_stop=False, editor_timing=True,
                                           allow_foreign_sentinels=True))
        store.create_run("items", RunConfig(source="items.jsonl", editor="tabby@1.5.0", api_key_env="GONE_KEY"))
        store.create_run("lost", RunConfig(backend="openai"))
        caps = resumed(store, RunRequest(source="caps", backend="llamacpp", model="other", editor="continue"))
        items = resumed(store, RunRequest(source="items"))
        with pytest.raises(UsageError, match="its input is not recorded"):
            resumed(store, RunRequest(source="lost"))
    assert (caps.source, caps.editor, caps.backend, caps.model, caps.family, caps.run_id) == \
        ("captures", None, "openai", "default", "qwen2.5-coder", "caps")
    assert caps.params == GenParams(max_new_tokens=7) and caps.endpoints == ("http://e",)
    assert caps.backend_options["api_key_env"] == "MY_KEY" and (caps.early_stop, caps.editor_timing) == (False, True)
    assert caps.allow_foreign_sentinels and not items.allow_foreign_sentinels
    assert (items.source, items.editor, items.backend, items.model) == ("items.jsonl", "tabby@1.5.0", "llamacpp", "default")
    assert items.backend_options["api_key_env"] is None and (items.early_stop, items.editor_timing) == (True, False)


def test_the_runner_adds_the_backend_its_parameters_and_versions_to_the_config() -> None:
    """What the use case recorded stays; the backend's own description is laid over it."""
    from replay.run.runner import run_settings

    class Described:
        def describe(self) -> dict[str, object]:
            return {"backend": "http", "model": "m", "model_id": "m@1", "endpoints": ["http://e"], "api_key_env": None}

    asked = RunConfig(source="items.jsonl", editor="standard", model_spec="default", backend="asked", rejects=2)
    got = run_settings(asked, Described(), GenParams(max_new_tokens=9), streams=True, editor_timing=False)  # type: ignore[arg-type]
    assert (got.source, got.editor, got.model_spec, got.rejects) == ("items.jsonl", "standard", "default", 2)
    assert (got.backend, got.model, got.model_id, got.endpoints, got.api_key_env) == ("http", "m", "m@1", ["http://e"], None)
    assert got.params is not None and got.params["max_new_tokens"] == 9
    assert got.versions is not None and "fimreplay" in got.versions and (got.early_stop, got.editor_timing) == (True, False)


def test_every_backend_description_is_a_field_of_the_run_config() -> None:
    """A key a backend's describe() adds that RunConfig does not name would not be kept with the
    run: each one the backends write is a field."""
    import ast

    from tests.conftest import ROOT

    keys = {node.value for path in (ROOT / "replay" / "backends").glob("*.py")
            for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(fn, ast.FunctionDef) and fn.name == "describe"
            for d in ast.walk(fn) if isinstance(d, ast.Dict)
            for node in d.keys if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    assert {"backend", "model", "model_id", "ctx", "endpoints"} <= keys  # the walk found them
    assert keys <= set(RunConfig.__struct_fields__)
