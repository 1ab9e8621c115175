"""Rules of the backend layer that need no engine: stop words, cache keys, model identity,
family detection from GGUF metadata, endpoint balancing."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from replay.backends.base import Backend, GenParams
from replay.editors.stage import apply_stop
from replay.run.cache import cache_key
from replay.backends.http import Endpoints
from replay.backends.models import ModelError, family_from_gguf, gguf_metadata, resolve_model
from replay.paths import cache_dir
from replay.records import RenderedPrompt

VOCAB = cache_dir() / "vocab"


def prompt(**kw: object) -> RenderedPrompt:
    base = dict(profile="standard", family="qwen2.5-coder", text="<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>",
                prefix_sent="a", suffix_sent="b", item_id="i1")
    base.update(kw)
    return RenderedPrompt(**base)  # type: ignore[arg-type]


class Engine(Backend):
    name = "engine"


def test_apply_stop_cuts_at_the_earliest_stop_and_drops_it() -> None:
    assert apply_stop("x = 1\n\ny = 2", ("\n\n",)) == "x = 1"
    # earliest match wins, whatever the order of the list
    assert apply_stop("ab<|endoftext|>cd\n\nef", ("\n\n", "<|endoftext|>")) == "ab"
    assert apply_stop("abc", ()) == "abc"
    assert apply_stop("abc", ("",)) == "abc"  # an empty stop word never matches
    assert apply_stop("\n\nabc", ("\n\n",)) == ""


def test_gen_params_default_to_the_prompt_limit() -> None:
    assert GenParams().new_tokens(prompt(max_new_tokens=64)) == 64
    assert GenParams(max_new_tokens=8).new_tokens(prompt(max_new_tokens=64)) == 8


def test_cache_key_changes_with_what_changes_the_output_only() -> None:
    eng = Engine("m", "sha256:aa")
    params = GenParams(ctx=1024, max_new_tokens=16)
    key = cache_key(eng, prompt(), params)
    assert key == cache_key(eng, prompt(item_id="other", profile="tabby@0.25"), params)  # not in the key
    assert key == cache_key(eng, prompt(stop=("\n",)), params)  # stops are applied afterwards
    assert key != cache_key(eng, prompt(text="<|fim_prefix|>a <|fim_suffix|>b<|fim_middle|>"), params)
    assert key != cache_key(Engine("m", "sha256:bb"), prompt(), params)
    other = Engine("m", "sha256:aa")
    other.name = "other"
    assert key != cache_key(other, prompt(), params)
    assert key != cache_key(eng, prompt(), GenParams(ctx=2048, max_new_tokens=16))
    assert key != cache_key(eng, prompt(), GenParams(ctx=1024, max_new_tokens=17))
    assert key != cache_key(eng, prompt(route="fim"), params)


def test_cache_key_uses_ids_when_the_engine_gets_ids() -> None:
    eng = Engine("m", "sha256:aa")
    eng.sends_ids = True  # type: ignore[attr-defined]
    params = GenParams()
    a = cache_key(eng, prompt(token_ids=(1, 2, 3)), params)
    assert a == cache_key(eng, prompt(token_ids=(1, 2, 3), text="same ids, other text"), params)
    assert a != cache_key(eng, prompt(token_ids=(1, 2, 4)), params)


def test_gguf_header_reader_matches_the_gguf_library() -> None:
    from gguf import GGUFReader

    path = VOCAB / "ggml-vocab-deepseek-coder.gguf"
    meta = gguf_metadata(path)
    reader = GGUFReader(str(path))
    for key in ("general.name", "tokenizer.ggml.pre", "tokenizer.ggml.bos_token_id", "tokenizer.ggml.add_bos_token"):
        fld = reader.fields[key]
        value = fld.parts[fld.data[0]]
        expected = bytes(value).decode() if key in ("general.name", "tokenizer.ggml.pre") else str(value[0]).lower()
        assert meta[key] == expected
    assert "tokenizer.ggml.tokens" not in meta  # arrays are skipped


def test_gguf_reader_rejects_other_files(tmp_path: Path) -> None:
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"NOPE" + bytes(40))
    with pytest.raises(ModelError, match="not a GGUF"):
        gguf_metadata(bad)


@pytest.mark.parametrize(("vocab", "family"), [
    ("starcoder", "starcoder"), ("deepseek-coder", "deepseek-coder"), ("llama-spm", None), ("qwen2", None),
])
def test_family_from_gguf_metadata(vocab: str, family: str | None) -> None:
    assert family_from_gguf(gguf_metadata(VOCAB / f"ggml-vocab-{vocab}.gguf")) == family


def test_resolve_model_file_name_and_default(tmp_path: Path) -> None:
    path = VOCAB / "ggml-vocab-deepseek-coder.gguf"
    ref = resolve_model(str(path))
    assert ref.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert ref.model_id == f"sha256:{ref.sha256}" and ref.family == "deepseek-coder" and ref.name == "deepseek-coder"
    assert resolve_model(str(VOCAB / "ggml-vocab-llama-spm.gguf"), family="codellama").family == "codellama"
    server = resolve_model("Qwen/Qwen2.5-Coder-1.5B", revision="main")
    assert (server.model_id, server.family, server.path) == ("Qwen/Qwen2.5-Coder-1.5B@main", "qwen2.5-coder", None)
    default = resolve_model("default")
    assert default.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert default.family == "qwen2.5-coder" and default.name == "Qwen2.5 Coder 0.5B Instruct AWQ"


def test_default_model_missing_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIMREPLAY_CACHE", str(tmp_path))
    with pytest.raises(ModelError, match="assets install"):
        resolve_model("default")


def test_endpoints_go_to_the_least_busy() -> None:
    eps = Endpoints(["http://a/", "http://b"])
    assert eps.urls == ["http://a", "http://b"]
    first = eps.acquire()
    second = eps.acquire()
    assert {first, second} == {0, 1}  # the busy one is avoided
    eps.release(first)
    assert eps.acquire() == first
    eps.release(first)
    eps.release(second)
    picks = []
    for _ in range(6):  # idle endpoints take turns
        i = eps.acquire()
        eps.release(i)
        picks.append(i)
    assert picks.count(0) == picks.count(1) == 3


def test_cli_progress_line_counts_and_estimates(capsys: pytest.CaptureFixture[str]) -> None:
    from replay.cli.app import Progress

    bar = Progress(True)
    ticks = iter([0.0, 10.0, 20.0])
    bar.clock = lambda: next(ticks)  # type: ignore[method-assign]
    bar.started = 0.0
    bar(2, 6, None)  # resumed: 2 already done, no rate yet
    bar(3, 6, None)  # 1 fresh item in 10 s -> 3 left -> 30 s
    bar(6, 6, None)
    err = capsys.readouterr().err
    assert "2/6 ETA ?" in err and "3/6 ETA 30s" in err and "6/6" in err and err.endswith("\n")
    Progress(False)(1, 2, None)
    assert capsys.readouterr().err == ""


def test_cap_new_tokens_bounds_the_profile_limit_and_the_override() -> None:
    from replay.backends.base import GenParams
    from replay.records import RenderedPrompt

    def prompt(n: int) -> RenderedPrompt:
        return RenderedPrompt(profile="continue", family="qwen2.5-coder", text="x", prefix_sent="x", suffix_sent="", max_new_tokens=n)

    assert GenParams(cap_new_tokens=128).new_tokens(prompt(4096)) == 128
    assert GenParams(cap_new_tokens=128).new_tokens(prompt(64)) == 64
    assert GenParams(max_new_tokens=200, cap_new_tokens=128).new_tokens(prompt(64)) == 128
    assert GenParams().new_tokens(prompt(4096)) == 4096


def test_an_engine_whose_library_is_missing_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hf and llama-cpp-python backends are optional extras: without their library the
    backend is a usage error naming the extra, not a traceback."""
    import importlib.util

    from replay.backends import open_backend
    from replay.errors import UsageError

    real = importlib.util.find_spec
    missing = ("torch", "transformers", "llama_cpp")  # whether or not this install has them
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in missing else real(name, *a))
    ref = resolve_model("default")
    with pytest.raises(UsageError, match=r"needs torch, transformers: install the `hf` extra \(pip install -e '\.\[hf\]'\)"):
        open_backend("hf", ref)
    with pytest.raises(UsageError, match="needs llama_cpp: install the `llama-cpp-python` extra"):
        open_backend("llama-cpp-python", ref)


def test_llama_cpp_python_keeps_its_keys_and_the_server_build_has_its_own() -> None:
    """Completions llama-cpp-python cached as the `llamacpp` engine (engine "llamacpp", text
    "server-pieces") are read by the llama-cpp-python backend, whose answers they are, and not
    by the server build, whose greedy answers differ where the builds' kernels break a near tie."""
    import msgspec

    from replay.backends.llama_cpp_python import LlamaCppPythonBackend
    from replay.backends.llamacpp import LlamaCppBackend

    params = GenParams(ctx=1024, max_new_tokens=16)
    ids = prompt(token_ids=(1, 2, 3))
    before = hashlib.sha256(msgspec.json.encode({
        "engine": "llamacpp", "model": "sha256:aa", "prompt": {"ids": [1, 2, 3]},
        "params": {"ctx": 1024, "max_new_tokens": 16, "temperature": 0.0}, "extra": {"text": "server-pieces"}},
        order="sorted")).hexdigest()
    python, server = object.__new__(LlamaCppPythonBackend), object.__new__(LlamaCppBackend)
    for engine in (python, server):
        Backend.__init__(engine, "m", "sha256:aa")
    assert cache_key(python, ids, params) == before
    assert cache_key(server, ids, params) != before
