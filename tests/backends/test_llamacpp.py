"""The default engine on the real demo model: llama.cpp's own server, in process from the
xllamacpp wheel, asked on loopback with the prompt's token ids. What it shares with
llama-cpp-python (the engine contract) is checked on both in test_engine_contract.py; here what
only it has: the budget at the context's end, its slots, its need of a local file.
llama-cpp-python's answers are compared where that extra is installed
(tests/backends/test_llama_cpp_python.py) and on the demo's prompts (bench/speed/engine_parity.py)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from replay.backends.base import GenParams
from replay.backends.llamacpp import LlamaCppBackend
from replay.backends.models import ModelError, ModelRef
from replay.records import RenderedPrompt
from tests.backends.test_engine_contract import EOG, PROMPT



@pytest.fixture(scope="module")
def engine(ref: ModelRef) -> Iterator[LlamaCppBackend]:
    backend = LlamaCppBackend(ref, ctx=1024, n_threads=1)
    yield backend
    backend.close()


def test_a_budget_over_the_context_generates_what_the_context_has_left(engine: LlamaCppBackend) -> None:
    """The budget of a prompt near the context's end is what the context has left (1020 ids:
    4 tokens), as it always was with llama-cpp-python's rule."""
    near = RenderedPrompt(profile="standard", family="q", text="", prefix_sent="", suffix_sent="", item_id="n",
                          token_ids=tuple([198] * 1020), max_new_tokens=16)
    assert engine.budget(near, GenParams(), 1020) == 4 and engine.budget(PROMPT, GenParams(max_new_tokens=16), 13) == 16
    assert engine.complete(near, GenParams()).n_tokens <= 4


def test_slots_answer_side_by_side_as_one_slot_does(engine: LlamaCppBackend, ref: ModelRef) -> None:
    """Two slots take two prompts at once (max_concurrency 2); each answer is the one-slot one."""
    params = GenParams(max_new_tokens=8)
    want = [engine.complete(p, params).raw_text for p in (PROMPT, EOG)]
    two = LlamaCppBackend(ref, ctx=1024, n_threads=1, slots=2)
    try:
        assert two.max_concurrency == 2
        with ThreadPoolExecutor(2) as pool:
            got = list(pool.map(lambda p: two.complete(p, params).raw_text, (PROMPT, EOG)))
    finally:
        two.close()
    assert got == want


def test_a_model_without_a_file_is_a_model_error() -> None:
    with pytest.raises(ModelError, match="needs a local GGUF file"):
        LlamaCppBackend(ModelRef(name="remote", model_id="remote@1", editor_model="remote"))
