"""The template sentinels a prompt holds that a vocabulary does not hold as one token."""

from __future__ import annotations

from replay.tokens.sentinels import foreign_sentinels
from replay.tokens.tokenizer import load_tokenizer

STARCODER_PROMPT = "<fim_prefix>x = 1\n<fim_suffix>\n<fim_middle>"
QWEN_PROMPT = "<|fim_prefix|>x = 1\n<|fim_suffix|>\n<|fim_middle|>"


def test_another_models_sentinels_are_foreign_to_qwen() -> None:
    qwen = load_tokenizer("qwen2.5-coder")
    assert foreign_sentinels(qwen, STARCODER_PROMPT, "x = 1\n", "\n") == ["<fim_prefix>", "<fim_suffix>", "<fim_middle>"]
    assert foreign_sentinels(qwen, QWEN_PROMPT, "x = 1\n", "\n") == []


def test_each_vocabulary_holds_its_own() -> None:
    starcoder = load_tokenizer("starcoder2")
    assert foreign_sentinels(starcoder, STARCODER_PROMPT, "x = 1\n", "\n") == []
    assert foreign_sentinels(starcoder, QWEN_PROMPT, "x = 1\n", "\n") == ["<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"]


def test_sentinel_text_in_the_users_code_is_not_the_templates() -> None:
    code = "MARK = '<fim_prefix>'\n"
    text = f"<|fim_prefix|>{code}<|fim_suffix|>\n<|fim_middle|>"
    qwen = load_tokenizer("qwen2.5-coder")
    assert foreign_sentinels(qwen, text, code, "\n") == []
    assert foreign_sentinels(qwen, text, None, None) == ["<fim_prefix>"]  # where the code sits unknown: counted
