"""The `hf` backend with the real transformers loading and generation code: a tiny random-weight
Qwen2 model built from a config (hidden 64, 2 layers) and the real Qwen2.5-Coder tokenizer,
imported from the demo GGUF by transformers' own GGUF loader (no hub)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from replay.backends.base import GenParams
from replay.backends.hf import HFBackend
from replay.backends.models import ModelRef, default_model_path, resolve_model
from replay.records import RenderedPrompt
from replay.run.runner import replay_prompts
from replay.store import Store
from tests.support.extras import needs_hf

pytestmark = [needs_hf, pytest.mark.slow]  # torch import + the GGUF tokenizer import: ~15-30 s of set-up on 2 cores

FIM = "<|fim_prefix|>{p}<|fim_suffix|>{s}<|fim_middle|>"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM
    from transformers.integrations.gguf.gguf_tokenizer_mapping import convert_gguf_tokenizer, get_gguf_tokenizer

    # transformers' own GGUF tokenizer import, called in its two steps: AutoTokenizer.from_pretrained(
    # gguf_file=...) does the same and more, 10x slower (about 50 s on a loaded 2-core machine).
    architecture, tokenizer_dict, tokenizer_config = get_gguf_tokenizer(str(default_model_path()))
    backend_tokenizer, extra = convert_gguf_tokenizer(architecture, tokenizer_dict)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend_tokenizer, **tokenizer_config, **extra)
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                         eos_token_id=tokenizer.eos_token_id, bos_token_id=151643, tie_word_embeddings=True)
    folder = tmp_path_factory.mktemp("tiny-qwen2.5-coder")
    Qwen2ForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def backend(model_dir: Path) -> Iterator[HFBackend]:
    b = HFBackend(resolve_model(str(model_dir), family="qwen2.5-coder"))
    yield b
    b.close()


def prompt(item_id: str, prefix: str, suffix: str, **kw: object) -> RenderedPrompt:
    return RenderedPrompt(profile="standard", family="qwen2.5-coder", text=FIM.format(p=prefix, s=suffix),
                          prefix_sent=prefix, suffix_sent=suffix, item_id=item_id, **kw)  # type: ignore[arg-type]


def test_stop_ids_are_llama_cpps_end_of_generation_set(backend: HFBackend) -> None:
    vocab = backend.tokenizer.get_vocab()
    names = {t for t, i in vocab.items() if i in set(backend.stop_ids)}
    # the same set llama.cpp marks end-of-generation in this model's GGUF (minus its stray '</s>')
    assert names == {"<|endoftext|>", "<|im_end|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"}


def test_ids_match_llama_cpp_tokenization(backend: HFBackend) -> None:
    """The ids transformers gives are llama.cpp's (the engine's own build, vocabulary alone)."""
    from replay.backends.llama_library import LlamaVocab

    p = prompt("a", "contract A {\n    function f() public {\n        ", "\n    }\n}\n")
    vocab = LlamaVocab(default_model_path())
    assert backend.token_ids(p) == vocab.tokenize(p.text.encode(), add_bos=vocab.add_bos, special=True)
    assert backend.token_ids(msgspec.structs.replace(p, token_ids=(5, 6))) == [5, 6]


def test_batched_left_padded_greedy_equals_one_by_one(backend: HFBackend) -> None:
    prompts = [prompt("a", "def f(x):\n    return ", "\n"), prompt("b", "x = 1\ny = ", "\nprint(x + y)\n"),
               prompt("c", "uint256 public total", ";\n")]
    params = GenParams(max_new_tokens=6)
    batched = backend.complete_batch(prompts, params)
    single = [backend.complete(p, params) for p in prompts]
    assert [c.raw_text for c in batched] == [c.raw_text for c in single]
    assert all(c.n_tokens <= 6 and c.item_id == p.item_id for c, p in zip(batched, prompts))


def test_decode_keeps_tokenization_spaces(backend: HFBackend) -> None:
    # clean_up_tokenization_spaces would turn " ." into "." and " 's" into "'s": code must stay as generated
    ids = backend.tokenizer(" a . b 's", add_special_tokens=False)["input_ids"]
    assert backend.tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False) == " a . b 's"


def test_runner_batches_through_the_hf_backend(backend: HFBackend, tmp_path: Path) -> None:
    prompts = [prompt(f"i{n}", f"v{n} = ", "\n", stop=("\n",)) for n in range(5)]
    with Store(tmp_path / "s.db") as store:
        summary = replay_prompts(store, prompts, backend, GenParams(max_new_tokens=4), run_id="hf", batch_size=2)
        rows = store.completions("hf")
    assert (summary.completed, summary.errors) == (5, 0)
    assert sorted(c.item_id for c in rows) == [f"i{n}" for n in range(5)]
    assert all(c.backend == "hf" and "\n" not in c.text and c.text == c.raw_text.split("\n")[0] for c in rows)


def test_model_ref_of_an_hf_folder(model_dir: Path) -> None:
    ref: ModelRef = resolve_model(str(model_dir), family="qwen2.5-coder")
    assert ref.model_id.startswith("sha256:") and ref.path == str(model_dir)
