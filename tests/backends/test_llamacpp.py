"""The default engine on the real demo model: llama.cpp's own server, in process from the
xllamacpp wheel, asked on loopback with the prompt's token ids. Short generations keep this
fast on 2 cores. llama-cpp-python's answers are compared where that extra is installed
(tests/backends/test_llama_cpp_python.py) and on the demo's prompts (bench/speed/engine_parity.py)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import msgspec
import pytest

from replay.backends.base import BackendError, GenParams
from replay.backends.llamacpp import LlamaCppBackend
from replay.backends.models import ModelError, ModelRef, resolve_model
from replay.records import RenderedPrompt
from replay.run.runner import editor_stops

PROMPT = RenderedPrompt(profile="standard", family="qwen2.5-coder",
                        text="<|fim_prefix|>def fibonacci(n):\n    <|fim_suffix|>\n    return a\n<|fim_middle|>",
                        prefix_sent="def fibonacci(n):\n    ", suffix_sent="\n    return a\n", item_id="fib", stop=("\n",))
EOG = RenderedPrompt(profile="standard", family="qwen2.5-coder",
                     text="<|fim_prefix|>def add(a, b):\n    return <|fim_suffix|>\n\nprint(add(1, 2))\n<|fim_middle|>",
                     prefix_sent="", suffix_sent="", item_id="eog")
BANNER = RenderedPrompt(profile="standard", family="qwen2.5-coder",
                        text="<|fim_prefix|>pragma solidity ^0.8.20;\n\n" + "/" * 62 + "\n// Token\n" + "/" * 62
                        + "\n\ncontract A {}\n\n<|fim_suffix|>\n// Vault\n" + "/" * 62 + "\n<|fim_middle|>",
                        prefix_sent="", suffix_sent="", item_id="banner")
FRAKTUR = RenderedPrompt(profile="standard", family="qwen2.5-coder",
                         text="<|fim_prefix|>// Fraktur: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝔘𝔫𝔦𝔠𝔬𝔡𝔢\nconst a = \"𝔘𝔫𝔦𝔠𝔬𝔡𝔢\";\nconst b = \"<|fim_suffix|>\";\n<|fim_middle|>",
                         prefix_sent="", suffix_sent="", item_id="fraktur")
FIM_PREFIX, FIM_SUFFIX, FIM_MIDDLE, BOS = 151659, 151661, 151660, 151643


@pytest.fixture(scope="module")
def ref() -> ModelRef:
    return resolve_model("default")


@pytest.fixture(scope="module")
def engine(ref: ModelRef) -> Iterator[LlamaCppBackend]:
    backend = LlamaCppBackend(ref, ctx=1024, n_threads=1)
    yield backend
    backend.close()


def test_the_engine_gets_the_prompt_ids_verbatim(engine: LlamaCppBackend) -> None:
    ids = engine.token_ids(PROMPT)  # no ids given: llama.cpp tokenizes, sentinels parsed, no BOS (the GGUF adds none)
    assert ids[0] == FIM_PREFIX and ids[-1] == FIM_MIDDLE and ids.count(FIM_SUFFIX) == 1 and BOS not in ids
    assert engine.token_ids(msgspec.structs.replace(PROMPT, token_ids=(1, 2, 3))) == [1, 2, 3]
    by_text = engine.complete(PROMPT, GenParams(max_new_tokens=12))
    from_ids = engine.complete(msgspec.structs.replace(PROMPT, token_ids=tuple(ids)), GenParams(max_new_tokens=12))
    assert by_text.raw_text == from_ids.raw_text and by_text.n_tokens == 12 and by_text.finish_reason == "length"
    assert by_text.raw_text.startswith("a, b = 0, 1")
    assert by_text.text == by_text.raw_text.split("\n")[0]  # the prompt's stop "\n" applied, raw kept


def test_the_engine_stops_on_end_of_generation(engine: LlamaCppBackend) -> None:
    c = engine.complete(EOG, GenParams(max_new_tokens=24))
    assert c.finish_reason == "stop" and c.n_tokens < 24 and c.raw_text.startswith("a + b")
    assert "<|endoftext|>" not in c.raw_text and "<|file_sep|>" not in c.raw_text


def test_a_prompt_the_context_cannot_take_is_an_item_error(engine: LlamaCppBackend) -> None:
    long = RenderedPrompt(profile="standard", family="q", text="", prefix_sent="", suffix_sent="", item_id="l",
                          token_ids=tuple([198] * 1024))
    with pytest.raises(BackendError, match="does not fit the context of 1024"):
        engine.complete(long, GenParams(max_new_tokens=4))
    chat = msgspec.structs.replace(PROMPT, route="chat")
    with pytest.raises(BackendError, match="needs --backend chat"):
        engine.complete(chat, GenParams(max_new_tokens=4))


def test_a_budget_over_the_context_generates_what_the_context_has_left(engine: LlamaCppBackend) -> None:
    """The budget of a prompt near the context's end is what the context has left (1020 ids:
    4 tokens), as it always was with llama-cpp-python's rule."""
    near = RenderedPrompt(profile="standard", family="q", text="", prefix_sent="", suffix_sent="", item_id="n",
                          token_ids=tuple([198] * 1020), max_new_tokens=16)
    assert engine.budget(near, GenParams(), 1020) == 4 and engine.budget(PROMPT, GenParams(max_new_tokens=16), 13) == 16
    assert engine.complete(near, GenParams()).n_tokens <= 4


def test_streaming_without_a_stop_is_the_same_generation(engine: LlamaCppBackend) -> None:
    params = GenParams(max_new_tokens=16)
    whole = engine.complete(PROMPT, params)
    streamed = engine.complete_streaming(PROMPT, params, lambda text: "")
    assert (streamed.raw_text, streamed.n_tokens, streamed.finish_reason) == (whole.raw_text, whole.n_tokens, whole.finish_reason)
    assert streamed.text == whole.text and not streamed.stopped_early
    assert len(streamed.timing) == 16 and streamed.timing[-1][0] == len(whole.raw_text)
    assert all(a[1] <= b[1] for a, b in zip(streamed.timing, streamed.timing[1:]))
    a, b = engine.complete(EOG, GenParams(max_new_tokens=24)), engine.complete_streaming(EOG, GenParams(max_new_tokens=24), lambda t: "")
    assert (a.raw_text, a.n_tokens, a.finish_reason) == (b.raw_text, b.n_tokens, b.finish_reason) == (a.raw_text, a.n_tokens, "stop")


def test_streaming_stops_where_the_editor_stops_reading(engine: LlamaCppBackend) -> None:
    """Stopped at the first stop word, fewer tokens are decoded and the text the editor uses is
    the same as after the whole budget; the server is free for the next prompt at once."""
    params = GenParams(max_new_tokens=16)
    whole = engine.complete(PROMPT, params)
    early = engine.complete_streaming(PROMPT, params, editor_stops(PROMPT.stop, None))
    assert early.text == whole.text and early.n_tokens < whole.n_tokens
    assert early.finish_reason == "stop_word" and early.stopped_early and whole.raw_text.startswith(early.raw_text)
    cancelled = engine.complete_streaming(PROMPT, params, editor_stops((), lambda text: 3 if len(text) >= 3 else None))
    assert cancelled.finish_reason == "editor_cancel" and whole.raw_text.startswith(cancelled.raw_text)
    assert len(cancelled.raw_text) >= 3 and cancelled.n_tokens <= 3
    assert engine.complete(PROMPT, params).raw_text == whole.raw_text


def test_a_banner_comment_keeps_its_sixty_slashes_token(engine: LlamaCppBackend) -> None:
    """Token 64575 (sixty slashes), which llama-cpp-python's detokenize lost: the server's text
    has them all, streamed or not, each token's piece arriving as one chunk."""
    whole = engine.complete(BANNER, GenParams(max_new_tokens=6))
    assert whole.raw_text == "contract B {}\n\n" + "/" * 60 + "//\n//" and whole.n_tokens == 6
    streamed = engine.complete_streaming(BANNER, GenParams(max_new_tokens=6), lambda text: "")
    assert streamed.raw_text == whole.raw_text and [n for n, _ in streamed.timing] == [8, 10, 15, 75, 78, 80]


def test_a_character_split_across_tokens_is_sent_once_whole(engine: LlamaCppBackend) -> None:
    """"𝔘𝔫𝔦…" comes as two tokens per character: the server sends a chunk once the character's
    last byte has come, never half of it; the token count still counts both tokens."""
    whole = engine.complete(FRAKTUR, GenParams(max_new_tokens=12))
    assert whole.raw_text == "𝔘𝔫𝔦𝔠𝔬𝔡𝔢\";\n" and whole.n_tokens == 12
    seen: list[str] = []
    streamed = engine.complete_streaming(FRAKTUR, GenParams(max_new_tokens=12), lambda text: seen.append(text) or "")
    assert streamed.raw_text == whole.raw_text and streamed.n_tokens == 12 and "\ufffd" not in "".join(seen)
    assert seen[:3] == ["𝔘", "𝔘𝔫", "𝔘𝔫𝔦"]


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


def test_the_cache_key_names_the_server_text(engine: LlamaCppBackend) -> None:
    from replay.run.cache import backend_cache_extra, cache_key

    params = GenParams(max_new_tokens=6)
    assert backend_cache_extra(engine) == {"text": "server-pieces", "build": "xllamacpp 2026.10.11549"}
    assert cache_key(engine, BANNER, params) != cache_key(engine, BANNER, params, extra={"text": "server-pieces"})
