"""Tokenizer specs, pieces, decode, BOS rules per engine, CodeLlama spacing, Codestral order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.assets import MissingAsset, asset_path
from replay.tokens.engine import EngineError, engine_ids
from replay.tokens.tokenizer import CODELLAMA_ADDED, TokenizerError, default_tokenizer_spec, load_tokenizer
from tests.support.extras import needs_hf


def test_pieces_are_readable_and_keep_partial_bytes() -> None:
    tok = load_tokenizer("starcoder2")
    ids = tok.encode("x  é 🦙")
    pieces = tok.pieces(ids)
    assert "".join(pieces).replace("<0xF0><0x9F>", "").replace("<0xA6>", "").replace("<0x99>", "") == "x  é "
    assert any(p.startswith(" <0xF0>") for p in pieces)
    assert tok.decode(ids) == "x  é 🦙"


def test_sentinels_are_special_only_when_asked() -> None:
    tok = load_tokenizer("starcoder2")
    assert tok.encode("<fim_prefix>") == [1]
    assert tok.is_special(1)
    assert len(tok.encode("<fim_prefix>", special=False)) > 1
    assert tok.token_id("<fim_middle>") == 2 and tok.token_id("no such token") is None


def test_deepseek_fim_tokens_typed_user_defined_are_control_in_llama_cpp() -> None:
    """The GGUF types <｜fim▁begin｜> USER_DEFINED; llama.cpp makes it CONTROL by its text."""
    tok = load_tokenizer("deepseek-coder")
    assert tok.encode("<｜fim▁begin｜>") == [32016] and tok.is_special(32016)
    assert tok.encode("<｜fim▁begin｜>", special=False)[0] != 32016
    assert tok.encode("õ", special=False) == [32000]  # a plain user-defined token is still cut out


def test_file_spec_reads_tokenizer_json_and_its_config(tmp_path: Path) -> None:
    exact = load_tokenizer("deepseek-coder")
    exact.hf.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({
        "add_bos_token": True, "bos_token": {"content": "<｜begin▁of▁sentence｜>"}, "eos_token": "<｜end▁of▁sentence｜>"}))
    tok = load_tokenizer(f"file:{tmp_path / 'tokenizer.json'}")
    text = "<｜fim▁begin｜>def f():<｜fim▁hole｜>\n<｜fim▁end｜>"
    assert tok.encode(text) == exact.encode(text)
    assert (tok.bos_id, tok.eos_id, tok.add_bos) == (32013, 32014, True)
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"add_bos_token": False, "bos_token": "<｜begin▁of▁sentence｜>"}))
    load_tokenizer.cache_clear()
    assert load_tokenizer(f"file:{tmp_path}").add_bos is False


def test_bad_specs_name_the_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(TokenizerError, match="unknown tokenizer"):
        load_tokenizer("no-such-model")
    with pytest.raises(TokenizerError, match="no such GGUF"):
        load_tokenizer(f"gguf:{tmp_path / 'x.gguf'}")
    (tmp_path / "bad.gguf").write_bytes(b"NOPE" + bytes(20))
    with pytest.raises(TokenizerError, match="not a GGUF"):
        load_tokenizer(f"gguf:{tmp_path / 'bad.gguf'}")
    with pytest.raises(TokenizerError, match="unknown tokenizer scheme"):
        load_tokenizer("zip:foo")
    monkeypatch.setenv("FIMREPLAY_CACHE", str(tmp_path / "empty-cache"))
    load_tokenizer.cache_clear()
    with pytest.raises(MissingAsset, match="fimreplay assets install vocab-gpt-2"):
        load_tokenizer("gpt-2")
    load_tokenizer.cache_clear()


def test_default_tokenizer_per_family() -> None:
    assert default_tokenizer_spec("Qwen2.5-Coder") == "qwen2.5-coder"
    assert default_tokenizer_spec("codestral") == "mistral:v3"
    assert default_tokenizer_spec("codellama") == "codellama"
    with pytest.raises(TokenizerError, match="no default tokenizer"):
        default_tokenizer_spec("codegemma")


def test_codellama_spacing_gives_the_fim_pieces() -> None:
    """`<PRE> {prefix} <SUF>{suffix} <MID>` (Tabby/Continue template): SentencePiece's dummy prefix
    and the template's own spaces make the pieces "▁<PRE>", "▁<SUF>", "▁<MID>" (32007-32009)."""
    tok = load_tokenizer("codellama")
    assert [tok.token_id(p) for p in CODELLAMA_ADDED[7:11]] == [32007, 32008, 32009, 32010]
    ids = tok.encode("<PRE> def f(): <SUF>\n <MID>")
    assert ids[0] == 32007 and 32008 in ids and ids[-1] == 32009
    assert tok.encode("<PRE>", special=True)[0] == 32007
    # the same sentinel glued to code is not the FIM piece: spacing is part of the format
    assert 32008 not in tok.encode("x<SUF>y")
    assert engine_ids(tok, "<PRE> x <SUF>y <MID>", "llama.cpp").ids[:2] == [1, 32007]


def test_codestral_spm_order_matches_mistral_common() -> None:
    from mistral_common.protocol.fim.request import FIMRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    tok = load_tokenizer("mistral:v3")
    prefix, suffix = "def add(a, b):\n    return", "\n\nprint(add(1, 2))\n"
    want = MistralTokenizer.v3().encode_fim(FIMRequest(prompt=prefix, suffix=suffix)).tokens
    got = engine_ids(tok, f"[SUFFIX]{suffix}[PREFIX]{prefix}", "mistral")
    assert got.ids == want and got.bos_added
    assert (tok.token_id("[PREFIX]"), tok.token_id("[MIDDLE]"), tok.token_id("[SUFFIX]")) == (11, 12, 13)


@pytest.mark.parametrize(("spec", "engine", "bos"), [
    ("deepseek-coder", "llama.cpp", True),   # GGUF add_bos_token = true
    ("qwen2.5-coder", "llama.cpp", False),   # GGUF add_bos_token = false
    ("llama-spm", "ollama", True),
    ("starcoder2", "llama.cpp", False),      # no key: BPE default is no BOS
    ("deepseek-coder", "transformers", True),
    ("starcoder2", "mistral", True),         # the Codestral endpoint always puts BOS
])
def test_bos_per_engine(spec: str, engine: str, bos: bool) -> None:
    tok = load_tokenizer(spec)
    got = engine_ids(tok, "x", engine)
    assert got.bos_added is bos
    assert (got.ids[:1] == [tok.bos_id]) is bos
    assert got.ids[-1:] == tok.encode("x")[-1:]


def test_unknown_engine() -> None:
    with pytest.raises(EngineError, match="unknown engine"):
        engine_ids(load_tokenizer("gpt-2"), "x", "nope")


@pytest.mark.slow
@needs_hf
def test_transformers_gguf_import_disagrees_on_deepseek() -> None:
    """transformers' own GGUF import (hf-gguf:) garbles DeepSeek-Coder's FIM tokens; the audit says so."""
    from replay.tokens.audit import Auditor, Subject
    from replay.tokens.tokenizer import converter_spec

    exact = load_tokenizer("deepseek-coder")
    assert converter_spec(exact) == f"hf-gguf:{asset_path('vocab-deepseek-coder')}"
    hf = load_tokenizer(converter_spec(exact))
    text = "<｜fim▁begin｜>x = 12345<｜fim▁hole｜>\n<｜fim▁end｜>"
    assert hf.encode(text) != exact.encode(text)
    found = [f for f in Auditor(exact, compare=hf).audit(Subject(text)) if f.kind == "converter-disagreement"]
    assert len(found) == 1 and found[0].token == 1  # after the BOS llama.cpp adds
    with pytest.raises(TokenizerError, match="not read from a GGUF"):
        converter_spec(load_tokenizer("mistral:v3"))


@pytest.mark.slow
@needs_hf
def test_hf_spec_loads_a_local_dir_through_transformers(tmp_path: Path) -> None:
    """`hf:DIR` goes through transformers' AutoTokenizer; BOS is what transformers really does
    with add_special_tokens=True (here: a bare tokenizer.json has no post-processor, so none,
    whatever tokenizer_config.json says)."""
    exact = load_tokenizer("deepseek-coder")
    exact.hf.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "add_bos_token": True,
        "bos_token": "<｜begin▁of▁sentence｜>", "eos_token": "<｜end▁of▁sentence｜>"}))
    tok = load_tokenizer(f"hf:{tmp_path}")
    text = "<｜fim▁begin｜>x = 1<｜fim▁hole｜>"
    assert tok.kind == "hf" and tok.encode(text) == exact.encode(text)
    assert tok.bos_id == 32013 and tok.add_bos is False
    with pytest.raises(TokenizerError, match="transformers could not load"):
        load_tokenizer(f"hf:{tmp_path / 'missing'}")


def test_fim_route_ids() -> None:
    """The engine builds the ids itself when prefix and suffix go apart: mistral-common puts its
    control tokens; llama-cpp-python 0.3.36 puts token 0 where the sentinels should be."""
    from mistral_common.protocol.fim.request import FIMRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    from replay.tokens.engine import fim_route_ids

    want = MistralTokenizer.v3().encode_fim(FIMRequest(prompt="def f():", suffix="\n    pass\n")).tokens
    assert fim_route_ids(load_tokenizer("mistral:v3"), "def f():", "\n    pass\n", "mistral").ids == want
    qwen = load_tokenizer("qwen2.5-coder")
    got = fim_route_ids(qwen, "x = ", "\n", "llama.cpp").ids
    assert got == [0, *qwen.encode("x = "), 0, *qwen.encode("\n"), 0] and 151659 not in got
    spm = load_tokenizer("codellama")
    ids = fim_route_ids(spm, "a", "b", "llama.cpp").ids
    assert ids[0] == 1 and spm.pieces(ids[-2:-1]) == ["b"] and spm.pieces(spm.encode("b")) == [" b"]  # no dummy space
    with pytest.raises(EngineError):
        fim_route_ids(qwen, "a", "b", "vllm")
