"""The FIM family registry: templates as TabbyML/registry-tabby has them, model-name mapping."""

from __future__ import annotations

import pytest

from replay.editors.templates import UnknownFamily, families, family_for_model, get_family, model_family


@pytest.mark.parametrize(("family", "expected"), [
    ("starcoder", "<fim_prefix>P<fim_suffix>S<fim_middle>"),
    ("codeqwen", "<fim_prefix>P<fim_suffix>S<fim_middle>"),
    ("codellama", "<PRE> P <SUF>S <MID>"),
    ("deepseek-coder", "<｜fim▁begin｜>P<｜fim▁hole｜>S<｜fim▁end｜>"),
    ("qwen2.5-coder", "<|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>"),
    ("codegemma", "<|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>"),
    ("codestral", "[SUFFIX]S[PREFIX]P"),
    ("granite-4", "<|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>"),
    ("seed-coder", "<[fim-prefix]>P<[fim-suffix]>S<[fim-middle]>"),
    ("codegeex", "<|code_suffix|>S<|code_prefix|>P<|code_middle|>"),
    ("mercury", "P<|fim_suffix|>S<|fim_middle|>"),
    ("tabby-http", "P<|FIM|>S"),
    ("none", "P"),
])
def test_render_every_family(family: str, expected: str) -> None:
    assert get_family(family).render("P", "S") == expected


def test_placeholders_inside_code_stay_literal() -> None:
    # strfmt substitutes once: "{suffix}" typed in the prefix is code, not a placeholder.
    assert get_family("starcoder").render("a{suffix}{", "}b") == "<fim_prefix>a{suffix}{<fim_suffix>}b<fim_middle>"


def test_a_family_has_one_template_its_models_were_trained_on() -> None:
    """What one registry entry had on a day is that entry's (tabby/registry.py): Qwen2.5-Coder's
    family template is its own sentinels, whatever the day."""
    assert get_family("qwen2.5-coder").render("P", "S") == "<|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>"
    for family in families():
        assert all(token in (family.template or "") for token in family.sentinels()), family.name


@pytest.mark.parametrize(("model", "family"), [
    ("TabbyML/Qwen2.5-Coder-1.5B", "qwen2.5-coder"),
    ("Qwen2.5 Coder 0.5B Instruct AWQ", "qwen2.5-coder"),
    ("/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "qwen2.5-coder"),
    ("TabbyML/StarCoder2-3B", "starcoder"),
    ("bigcode/starcoder2-7b", "starcoder"),
    ("TabbyML/CodeQwen-7B", "codeqwen"),
    ("Qwen/CodeQwen1.5-7B", "codeqwen"),
    ("TabbyML/DeepseekCoder-6.7B", "deepseek-coder"),
    ("deepseek-ai/DeepSeek-Coder-V2-Lite-Base", "deepseek-coder"),
    ("codellama/CodeLlama-7b-hf", "codellama"),
    ("TabbyML/Codestral-22B", "codestral"),
    ("google/codegemma-2b", "codegemma"),
    ("ibm-granite/granite-4.0-h-tiny", "granite-4"),
    ("ByteDance-Seed/Seed-Coder-8B-Base", "seed-coder"),
    ("THUDM/codegeex4-all-9b", "codegeex"),
    ("mercury-coder-small", "mercury"),
    ("openai/completion", "tabby-http"),
])
def test_family_for_model(model: str, family: str) -> None:
    found = family_for_model(model)
    assert found is not None and found.name == family


def test_unknown_model_and_family() -> None:
    assert family_for_model("gpt-4o") is None
    with pytest.raises(UnknownFamily):
        get_family("no-such-family")


def test_a_model_names_its_family_by_the_family_name_first() -> None:
    """model_family: a family name (`tabby-http`, which no model-name pattern gives) before the
    model's own name; None when neither is known."""
    assert family_for_model("tabby-http") is None
    assert model_family("tabby-http") == get_family("tabby-http")
    assert model_family("Qwen/Qwen2.5-Coder-1.5B") == get_family("qwen2.5-coder")
    assert model_family("gpt-4o") is None


@pytest.mark.parametrize(("family", "gguf"), [
    ("starcoder", "vocab/ggml-vocab-starcoder.gguf"),
    ("deepseek-coder", "vocab/ggml-vocab-deepseek-coder.gguf"),
    ("codellama", "vocab/ggml-vocab-llama-spm.gguf"),
    ("qwen2.5-coder", "models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
])
def test_bos_rule_is_what_llama_cpp_does(family: str, gguf: str) -> None:
    """The BOS rule agrees with the real engine: llama.cpp's add_bos for the family's vocab."""
    from replay.backends.llama_library import LlamaVocab
    from replay.paths import cache_dir

    assert get_family(family).adds_bos is LlamaVocab(cache_dir() / gguf).add_bos


def test_every_family_cites_a_source_and_its_sentinels_appear_in_its_template() -> None:
    for family in families():
        assert family.source
        for token in family.sentinels():
            assert token in (family.template or "")


@pytest.mark.parametrize(("family", "gguf"), [
    ("starcoder", "vocab/ggml-vocab-starcoder.gguf"),
    ("deepseek-coder", "vocab/ggml-vocab-deepseek-coder.gguf"),
    ("qwen2.5-coder", "models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
])
def test_sentinels_are_single_tokens_of_the_real_vocabulary(family: str, gguf: str) -> None:
    """Each sentinel string is one special token for llama.cpp (special=True), and so are the
    family's EOS and stop sentinels that look like tokens."""
    from replay.backends.llama_library import LlamaVocab
    from replay.paths import cache_dir

    model = LlamaVocab(cache_dir() / gguf)
    fam = get_family(family)
    for token in (*fam.sentinels(), fam.eos):
        assert token is not None
        assert len(model.tokenize(token.encode(), add_bos=False, special=True)) == 1, token
