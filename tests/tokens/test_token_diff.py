"""Token diffs with rapidfuzz opcodes on id sequences."""

from __future__ import annotations

from replay.tokens.diff import diff_ids, diff_texts, diff_tokenizers
from replay.tokens.tokenizer import load_tokenizer


def test_diff_ids_opcodes_and_offsets() -> None:
    d = diff_ids([1, 2, 3, 4], [1, 9, 3, 4, 5], ["a", "b", "c", "d"], ["a", "X", "c", "d", "e"])
    assert d.distance == 2 and not d.identical
    assert [(op.tag, op.a_start, op.a_end, op.b_start, op.b_end) for op in d.changes()] == [("replace", 1, 2, 1, 2), ("insert", 4, 4, 4, 5)]
    assert d.changes()[0].a_char == 1 and d.changes()[1].b_char == 4
    assert diff_ids([7], [7], ["x"], ["x"]).identical


def test_logged_vs_rebuilt_rendering() -> None:
    tok = load_tokenizer("qwen2.5-coder")
    logged = "<|fim_prefix|>x = 1\r\ny<|fim_suffix|>\n<|fim_middle|>"
    rebuilt = "<|fim_prefix|>x = 1\ny<|fim_suffix|>\n<|fim_middle|>"
    d = diff_texts(logged, rebuilt, tok, a_label="logged", b_label="rebuilt")
    ch = d.changes()
    assert len(ch) == 1 and "\r" in "".join(ch[0].a_pieces) and "\r" not in "".join(ch[0].b_pieces)
    assert d.to_dict()["a_label"] == "logged"


def test_two_tokenizers_on_one_text() -> None:
    d = diff_tokenizers("x = 12345", load_tokenizer("starcoder2"), load_tokenizer("gpt-2"))
    assert not d.identical
    joined = [p for op in d.changes() for p in op.a_pieces]
    assert "1" in joined  # StarCoder2 splits digits one by one, GPT-2 does not
    assert diff_tokenizers("x = 1", load_tokenizer("starcoder2"), load_tokenizer("starcoder")).identical
