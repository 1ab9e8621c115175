"""The standard profile: the prompt fits 1024 - 128 tokens of the real tokenizer, cut nearest the cursor."""

from __future__ import annotations

import pytest

from replay.editors import render
from replay.editors.standard import StandardInputError
from replay.editors.templates import get_family
from replay.paths import cache_dir
from replay.records import EditorInput
from replay.tokens.tokenizer import load_tokenizer



@pytest.fixture(scope="module")
def document() -> str:
    from tests.support.tabby_agent_lsp import installed_asset

    return (installed_asset("openzeppelin-contracts") / "package" / "token" / "ERC20" / "ERC20.sol").read_text()


@pytest.mark.parametrize("model", ["qwen2.5-coder", "TabbyML/StarCoder2-3B", "TabbyML/CodeLlama-7B", "TabbyML/DeepseekCoder-1.3B"])
def test_long_file_is_cut_to_the_budget_nearest_the_cursor(document: str, model: str) -> None:
    cursor = len(document) // 2
    out = render("standard", EditorInput(prefix=document[:cursor], suffix=document[cursor:]), model)
    family = get_family(out.family)
    assert out.max_new_tokens == 128 and out.route == "raw" and out.profile == "standard"
    assert len(out.token_ids) <= 1024 - 128
    assert len(out.token_ids) >= 1024 - 128 - 8  # the budget is used, not wasted
    assert document[:cursor].endswith(out.prefix_sent) and document[cursor:].startswith(out.suffix_sent)
    assert out.prefix_sent and out.suffix_sent
    assert out.text == family.render(out.prefix_sent, out.suffix_sent)
    tok = load_tokenizer({"qwen2.5-coder": "qwen2.5-coder", "starcoder": "starcoder2", "codellama": "codellama",
                          "deepseek-coder": "deepseek-coder"}[family.name])
    bos = [tok.bos_id] if family.adds_bos else []
    assert list(out.token_ids) == bos + tok.encode(out.text)
    # The suffix keeps at least a quarter of the room the template leaves.
    room = 1024 - 128 - len(bos) - tok.count(family.render("", ""))
    assert tok.count(out.suffix_sent) >= room // 4 - 2


def test_token_ids_are_what_llama_cpp_gives() -> None:
    from replay.backends.llama_library import LlamaVocab

    text = "contract A {\n  function f() public { uint x = 1; }\n"
    out = render("standard", EditorInput(prefix=text[:30], suffix=text[30:]), "qwen2.5-coder")
    model = LlamaVocab(cache_dir() / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    assert list(out.token_ids) == model.tokenize(out.text.encode(), add_bos=False, special=True)


def test_short_input_is_not_cut_and_short_prefix_gives_room_to_the_suffix() -> None:
    out = render("standard", EditorInput(prefix="a = 1\n", suffix="b = 2\n"), "qwen2.5-coder")
    assert (out.prefix_sent, out.suffix_sent) == ("a = 1\n", "b = 2\n")
    long_suffix = "x = 1\n" * 2000
    out = render("standard", EditorInput(prefix="a = 1\n", suffix=long_suffix), "qwen2.5-coder")
    assert out.prefix_sent == "a = 1\n" and len(out.token_ids) <= 896 and len(out.suffix_sent) > 1000


def test_options_and_errors() -> None:
    small = render("standard", EditorInput(prefix="x = 1\n" * 500, suffix="", options={"ctx": 256, "max_new_tokens": 64}),
                   "qwen2.5-coder")
    assert small.max_new_tokens == 64 and len(small.token_ids) <= 192
    with pytest.raises(StandardInputError):
        render("standard", EditorInput(prefix="a", suffix="", options={"context": 5}), "qwen2.5-coder")
    with pytest.raises(StandardInputError):
        render("standard", EditorInput(prefix="a", suffix=""), "gpt-4o")
    with pytest.raises(StandardInputError):
        render("standard", EditorInput(prefix="a", suffix="", options={"ctx": 3, "max_new_tokens": 1}), "qwen2.5-coder")
