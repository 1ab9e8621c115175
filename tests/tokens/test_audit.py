"""Each gotcha kind: a real tokenizer and prompt that trigger it, and one that does not."""

from __future__ import annotations

import pytest

from replay.tokens.audit import KINDS, Auditor, Subject, audit_all
from replay.tokens.tokenizer import load_tokenizer

QWEN_OK = Subject("<|fim_prefix|>def f(x):\n    return x<|fim_suffix|>\n<|fim_middle|>",
                  prefix="def f(x):\n    return x", suffix="\n", where="ok:1")


def kinds(spec: str, s: Subject, **kw) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in Auditor(load_tokenizer(spec), **kw).audit(s):
        assert f.severity == KINDS[f.kind] or f.severity == "info"
        assert "\n" not in f.message
        out.setdefault(f.kind, []).append(f)
    return out


def test_a_clean_qwen_prompt_has_no_error_or_warning() -> None:
    found = kinds("qwen2.5-coder", QWEN_OK)
    assert all(f.severity == "info" for fs in found.values() for f in fs), found


def test_sentinel_not_special() -> None:
    s = Subject("<|fim_prefix|>x = 1<|fim_suffix|>\n<|fim_middle|>", prefix="x = 1", suffix="\n")
    found = kinds("starcoder2", s)["sentinel-not-special"]
    assert [f.char for f in found] == [0, 19, 34] and found[0].token == 0
    assert "sentinel-not-special" not in kinds("qwen2.5-coder", s)


def test_sentinel_in_user_code() -> None:
    code = "# a comment about <|fim_middle|>\nx = "
    s = Subject(f"<|fim_prefix|>{code}<|fim_suffix|>\n<|fim_middle|>", prefix=code, suffix="\n")
    found = kinds("qwen2.5-coder", s)["sentinel-in-user-code"]
    assert len(found) == 1 and found[0].char == len("<|fim_prefix|># a comment about ")
    # the same text in a tokenizer that has no such token is plain text: no finding
    assert "sentinel-in-user-code" not in kinds("gpt-2", s)


def test_bos_doubled_and_missing() -> None:
    text = "<｜begin▁of▁sentence｜><｜fim▁begin｜>x<｜fim▁hole｜>\n<｜fim▁end｜>"
    assert "bos-doubled" in kinds("deepseek-coder", Subject(text), engine="llama.cpp")
    assert "bos-doubled" not in kinds("deepseek-coder", Subject(text[len("<｜begin▁of▁sentence｜>"):]), engine="llama.cpp")
    # a tokenizer whose config wants BOS, and a recorded id list without it
    plain = Subject("<｜fim▁begin｜>x<｜fim▁hole｜>\n<｜fim▁end｜>")
    assert "bos-missing" not in kinds("deepseek-coder", plain)


def test_bos_missing_when_engine_rule_skips_it() -> None:
    from replay.tokens import engine as eng

    eng.ENGINES["raw-no-bos"] = eng.EngineRule("raw-no-bos", "never", True, "test rule: an engine that never adds BOS")
    try:
        assert "bos-missing" in kinds("deepseek-coder", Subject("x"), engine="raw-no-bos")
        assert "bos-missing" not in kinds("qwen2.5-coder", Subject("x"), engine="raw-no-bos")
    finally:
        del eng.ENGINES["raw-no-bos"]


def test_seam_mismatch_hamel_example() -> None:
    """enc("Ok\\n") + enc("<|im_start|>") != enc("Ok\\n<|im_start|>") in a SentencePiece vocab."""
    s = Subject("<PRE> x <SUF>y <MID>", prefix="x", suffix="y")
    assert "seam-mismatch" in kinds("codellama", s)
    assert "seam-mismatch" not in kinds("qwen2.5-coder", QWEN_OK)


def test_spm_space_drift_after_a_sentinel() -> None:
    s = Subject("[SUFFIX]y[PREFIX]x = 1", prefix="x = 1", suffix="y")
    found = kinds("mistral:v3", s, engine="mistral")["spm-space-drift"]
    assert found[0].char == len("[SUFFIX]y[PREFIX]")
    assert "spm-space-drift" not in kinds("qwen2.5-coder", QWEN_OK)


def test_cursor_splits_token() -> None:
    base = "<|fim_prefix|>{p}<|fim_suffix|>\n<|fim_middle|>"
    mid = Subject(base.format(p="x = compu"), prefix="x = compu", suffix="\n", middle="te()")
    assert "cursor-splits-token" in kinds("qwen2.5-coder", mid)
    ws = Subject(base.format(p="x =  "), prefix="x =  ", suffix="\n")
    assert kinds("qwen2.5-coder", ws)["cursor-splits-token"][0].severity == "warning"
    clean = Subject(base.format(p="x = 1\n"), prefix="x = 1\n", suffix="\n", middle="y = 2")
    assert "cursor-splits-token" not in kinds("qwen2.5-coder", clean)


def test_clipped_sentinel() -> None:
    clipped = Subject("return x<|fim_suffix|>\n<|fim_middle|>", prefix="return x", suffix="\n")
    assert kinds("qwen2.5-coder", clipped)["clipped-sentinel"][0].severity == "error"
    assert "clipped-sentinel" not in kinds("qwen2.5-coder", QWEN_OK)


def test_over_context() -> None:
    long = "x = 1\n" * 400
    s = Subject(f"<|fim_prefix|>{long}<|fim_suffix|>\n<|fim_middle|>", prefix=long, suffix="\n")
    f = kinds("qwen2.5-coder", s, ctx=1024)["over-context"][0]
    assert f.token == 1024 - 128
    assert "over-context" not in kinds("qwen2.5-coder", s, ctx=8192)


def test_crlf_mismatch() -> None:
    s = Subject("<|fim_prefix|>a\nb<|fim_suffix|>\n<|fim_middle|>", prefix="a\nb", suffix="\n", segments_prefix="a\r\nb")
    assert "crlf-mismatch" in kinds("qwen2.5-coder", s)
    assert "crlf-mismatch" not in kinds("qwen2.5-coder", QWEN_OK)


def test_normalizer_changes_text() -> None:
    """transformers' import of the Qwen2 vocab (Qwen1.5 tokenizer.json style, NFC) vs none."""
    from tokenizers import normalizers

    tok = load_tokenizer("qwen2")
    original = tok.hf.normalizer
    tok.hf.normalizer = normalizers.NFC()
    try:
        s = Subject("cafe\u0301 = 1")  # decomposed é
        found = kinds("qwen2", s)["normalizer-changes-text"]
        assert found[0].char == 3
    finally:
        tok.hf.normalizer = original
    assert "normalizer-changes-text" not in kinds("qwen2", Subject("cafe\u0301 = 1"))


def test_converter_disagreement_with_a_second_tokenizer() -> None:
    s = Subject("x = 12345")
    a = Auditor(load_tokenizer("starcoder2"), compare=load_tokenizer("gpt-2"))
    assert any(f.kind == "converter-disagreement" for f in a.audit(s))
    same = Auditor(load_tokenizer("starcoder2"), compare=load_tokenizer("starcoder"))
    assert not any(f.kind == "converter-disagreement" for f in same.audit(s))


def test_recorded_ids_that_differ_are_reported() -> None:
    tok = load_tokenizer("qwen2.5-coder")
    good = Subject(QWEN_OK.text, token_ids=tuple(tok.encode(QWEN_OK.text)))
    assert "converter-disagreement" not in kinds("qwen2.5-coder", good)
    bad = Subject(QWEN_OK.text, token_ids=(1, 2, 3))
    assert "converter-disagreement" in kinds("qwen2.5-coder", bad)


def test_summary_counts_every_kind() -> None:
    report = audit_all([QWEN_OK, Subject("return x<|fim_suffix|>\n<|fim_middle|>", where="c:2")],
                       Auditor(load_tokenizer("qwen2.5-coder")))
    summary = report.summary()
    assert summary["subjects"] == 2 and set(summary["by_kind"]) == set(KINDS)
    assert summary["by_kind"]["clipped-sentinel"] == 1
    assert summary["findings"] == sum(summary["by_kind"].values())


@pytest.mark.parametrize("spec", ["starcoder2", "deepseek-coder", "codellama", "mistral:v3"])
def test_offsets_cover_the_text(spec: str) -> None:
    tok = load_tokenizer(spec)
    text = "[SUFFIX]\n}\n[PREFIX]contract A {\n  uint x = 1;  é" if spec == "mistral:v3" else "<PRE> contract A {\n  uint x = 1;  é <SUF>"
    ids, spans = tok.encode_with_offsets(text)
    assert len(ids) == len(spans) and spans[-1][1] == len(text)
    assert all(a <= b for a, b in spans)
