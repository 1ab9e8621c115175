"""The exact GGUF tokenizer against llama.cpp's own reference cases (ggml-vocab-*.gguf.inp/.out,
the ids the original Hugging Face tokenizers give; shipped in the llama-cpp-python 0.3.36 sdist)."""

from __future__ import annotations

import pytest

from replay.assets import asset_path
from replay.tokens.tokenizer import load_tokenizer

# Every vocabulary with reference pairs that the asset registry installs.
VOCABS = ["starcoder", "deepseek-coder", "llama-spm", "gpt-2", "qwen2", "phi-3", "refact", "llama-bpe",
          "deepseek-llm", "falcon", "mpt", "command-r"]


def reference_cases(name: str) -> list[tuple[str, list[int]]]:
    inp = asset_path(f"vocab-{name}", 1).read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
    out = asset_path(f"vocab-{name}", 2).read_text(encoding="utf-8").split("\n")
    assert len(out) >= len(inp)
    return [(text, [int(x) for x in line.split()]) for text, line in zip(inp, out)]


@pytest.mark.parametrize("name", VOCABS)
def test_every_reference_case_matches(name: str) -> None:
    tok = load_tokenizer(f"gguf:{asset_path(f'vocab-{name}')}")
    cases = reference_cases(name)
    assert len(cases) == 47
    bad = [(text, want, tok.encode(text)) for text, want in cases if tok.encode(text) != want]
    assert bad == []


def test_short_names_load_the_same_vocab() -> None:
    assert load_tokenizer("starcoder2").encode("x = 12") == load_tokenizer(f"gguf:{asset_path('vocab-starcoder')}").encode("x = 12")
