"""The in-process engine contract on the real demo model, checked on both llama.cpp engines: the
default one (llama.cpp's own server from the xllamacpp wheel, asked on loopback with the
prompt's token ids) and llama-cpp-python (the optional `llama-cpp-python` extra, a source build:
its cases skip, saying so, where it is not installed). Each gets the prompt's ids verbatim,
stops where the model or the editor stops, streams the same generation it gives whole, and keeps
every byte of a token's text; where the two build their text differently (how a character split
across tokens is streamed, what the cache key names), each engine's own rule is checked
(TextRules). Short generations keep this fast on 2 cores. What only one engine has is in
test_llamacpp.py (its slots, budget, model check) and test_llama_cpp_python.py (its own server,
and the same answers as the default engine)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
import pytest

from replay.backends.base import Backend, BackendError, GenParams
from replay.backends.llamacpp import LlamaCppBackend
from replay.backends.models import ModelRef
from replay.records import RenderedPrompt
from replay.run.runner import editor_stops
from tests.support.extras import LLAMA_CPP_PYTHON_MISSING

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
# Qwen2.5-Coder FIM ids (the GGUF's vocabulary): <|fim_prefix|> 151659, <|fim_suffix|> 151661, <|fim_middle|> 151660;
# BOS would be 151643 (<|endoftext|>), which this GGUF does not add (add_bos_token false).
FIM_PREFIX, FIM_SUFFIX, FIM_MIDDLE, BOS = 151659, 151661, 151660, 151643


@dataclass(frozen=True)
class TextRules:
    """Where the engines' texts are built differently. `fraktur_seen`: the first texts the
    stream of FRAKTUR ("𝔘𝔫𝔦…", two tokens per character) shows the editor, one per token, and
    `fraktur_ends` the text's length after each (llama-cpp-python asks after every token, showing
    the text so far without a half character; the server sends a chunk once a character's last
    byte has come); `cache_extra` what the cache key names of the engine's text, and
    `cached_before` a key's extra of before, whose completions are generated again."""

    fraktur_seen: tuple[str, ...]
    fraktur_ends: tuple[int, ...]
    cache_extra: dict[str, Any]
    cached_before: dict[str, Any]


RULES = {
    "llamacpp": TextRules(fraktur_seen=("𝔘", "𝔘𝔫", "𝔘𝔫𝔦"), fraktur_ends=(1, 2, 3),
                          cache_extra={"text": "server-pieces", "build": "xllamacpp 2026.10.11549"},
                          cached_before={"text": "server-pieces"}),
    # The text of before came from the 32-byte detokenize, under a key without `text`.
    "llama-cpp-python": TextRules(fraktur_seen=("", "𝔘", "𝔘", "𝔘𝔫", "𝔘𝔫𝔦", "𝔘𝔫𝔦"), fraktur_ends=(0, 1, 1, 2, 3, 3),
                                  cache_extra={"text": "server-pieces"}, cached_before={}),
}


@pytest.fixture(scope="module", params=list(RULES))
def engine(request: pytest.FixtureRequest, ref: ModelRef) -> Iterator[Backend]:
    if request.param == "llama-cpp-python":
        pytest.importorskip("llama_cpp", reason=LLAMA_CPP_PYTHON_MISSING)
        from replay.backends.llama_cpp_python import LlamaCppPythonBackend

        backend: Backend = LlamaCppPythonBackend(ref, ctx=1024, n_threads=1)
    else:
        backend = LlamaCppBackend(ref, ctx=1024, n_threads=1)
    yield backend
    backend.close()


def test_the_engine_gets_the_prompt_ids_verbatim(engine: Any) -> None:
    ids = engine.token_ids(PROMPT)  # no ids given: llama.cpp tokenizes, sentinels parsed, no BOS (the GGUF adds none)
    assert ids[0] == FIM_PREFIX and ids[-1] == FIM_MIDDLE and ids.count(FIM_SUFFIX) == 1 and BOS not in ids
    assert engine.token_ids(msgspec.structs.replace(PROMPT, token_ids=(1, 2, 3))) == [1, 2, 3]  # audited ids go in untouched


def test_greedy_text_from_ids_and_text_is_the_same(engine: Any) -> None:
    by_text = engine.complete(PROMPT, GenParams(max_new_tokens=12))
    from_ids = engine.complete(msgspec.structs.replace(PROMPT, token_ids=tuple(engine.token_ids(PROMPT))),
                               GenParams(max_new_tokens=12))
    assert by_text.raw_text == from_ids.raw_text and by_text.n_tokens == 12 and by_text.finish_reason == "length"
    assert by_text.raw_text.startswith("a, b = 0, 1")
    assert by_text.text == by_text.raw_text.split("\n")[0]  # the prompt's stop "\n" applied, raw kept


def test_the_engine_stops_on_end_of_generation(engine: Any) -> None:
    c = engine.complete(EOG, GenParams(max_new_tokens=24))
    assert c.finish_reason == "stop" and c.n_tokens < 24 and c.raw_text.startswith("a + b")
    assert "<|endoftext|>" not in c.raw_text and "<|file_sep|>" not in c.raw_text


def test_a_prompt_the_context_cannot_take_is_an_item_error(engine: Any) -> None:
    long = RenderedPrompt(profile="standard", family="q", text="", prefix_sent="", suffix_sent="", item_id="l",
                          token_ids=tuple([198] * 1024))
    with pytest.raises(BackendError, match="does not fit the context of 1024"):
        engine.complete(long, GenParams(max_new_tokens=4))
    chat = msgspec.structs.replace(PROMPT, route="chat")
    with pytest.raises(BackendError, match="needs --backend chat"):
        engine.complete(chat, GenParams(max_new_tokens=4))


def test_streaming_without_a_stop_is_the_same_generation(engine: Any) -> None:
    """complete_streaming gives complete()'s generation, asked after each token: with nothing
    stopping it the text, token count and finish reason are complete()'s, and each token's
    arrival is timed."""
    params = GenParams(max_new_tokens=16)
    whole = engine.complete(PROMPT, params)
    streamed = engine.complete_streaming(PROMPT, params, lambda text: "")
    assert (streamed.raw_text, streamed.n_tokens, streamed.finish_reason) == (whole.raw_text, whole.n_tokens, whole.finish_reason)
    assert streamed.text == whole.text and not streamed.stopped_early
    assert len(streamed.timing) == 16 and streamed.timing[-1][0] == len(whole.raw_text)
    assert all(a[1] <= b[1] for a, b in zip(streamed.timing, streamed.timing[1:]))
    a, b = engine.complete(EOG, GenParams(max_new_tokens=24)), engine.complete_streaming(EOG, GenParams(max_new_tokens=24), lambda t: "")
    assert (a.raw_text, a.n_tokens, a.finish_reason) == (b.raw_text, b.n_tokens, b.finish_reason) == (a.raw_text, a.n_tokens, "stop")


def test_streaming_stops_where_the_editor_stops_reading(engine: Any) -> None:
    """Stopped at the first stop word, fewer tokens are decoded and the text the editor uses (cut
    at the stop word) is the same as after the whole budget; the engine is free for the next
    prompt at once."""
    params = GenParams(max_new_tokens=16)
    whole = engine.complete(PROMPT, params)  # PROMPT stops at "\n"; the greedy text has a newline early
    early = engine.complete_streaming(PROMPT, params, editor_stops(PROMPT.stop, None))
    assert early.text == whole.text and early.n_tokens < whole.n_tokens
    assert early.finish_reason == "stop_word" and early.stopped_early and whole.raw_text.startswith(early.raw_text)
    cancelled = engine.complete_streaming(PROMPT, params, editor_stops((), lambda text: 3 if len(text) >= 3 else None))
    assert cancelled.finish_reason == "editor_cancel" and whole.raw_text.startswith(cancelled.raw_text)
    assert len(cancelled.raw_text) >= 3 and cancelled.n_tokens <= 3
    assert engine.complete(PROMPT, params).raw_text == whole.raw_text


def test_a_banner_comment_keeps_its_sixty_slashes_token(engine: Any) -> None:
    """The greedy answer to a Solidity banner is "contract B {}\\n\\n" then token 64575 (sixty
    slashes), which llama-cpp-python's detokenize returns as nothing: the text has them all,
    streamed or not, each token's piece arriving as one chunk."""
    whole = engine.complete(BANNER, GenParams(max_new_tokens=6))
    assert whole.raw_text == "contract B {}\n\n" + "/" * 60 + "//\n//" and whole.n_tokens == 6
    streamed = engine.complete_streaming(BANNER, GenParams(max_new_tokens=6), lambda text: "")
    assert streamed.raw_text == whole.raw_text and [n for n, _ in streamed.timing] == [8, 10, 15, 75, 78, 80]


def test_a_character_split_across_tokens_is_joined_not_dropped(engine: Any) -> None:
    """The model copies "𝔘𝔫𝔦…", whose characters come as two tokens each (the first three bytes,
    then the fourth): the stream never shows half a character, the token count counts both
    tokens; an answer cut by the budget inside a character is, unstreamed, U+FFFD there (as the
    server writes it), and streamed, without it."""
    rules = RULES[engine.name]
    whole = engine.complete(FRAKTUR, GenParams(max_new_tokens=12))
    assert whole.raw_text == "𝔘𝔫𝔦𝔠𝔬𝔡𝔢\";\n" and whole.n_tokens == 12
    seen: list[str] = []
    streamed = engine.complete_streaming(FRAKTUR, GenParams(max_new_tokens=12), lambda text: seen.append(text) or "")
    assert streamed.raw_text == whole.raw_text and streamed.n_tokens == 12 and "\ufffd" not in "".join(seen)
    n = len(rules.fraktur_seen)
    assert tuple(seen[:n]) == rules.fraktur_seen and tuple(end for end, _ in streamed.timing[:n]) == rules.fraktur_ends
    cut = engine.complete(FRAKTUR, GenParams(max_new_tokens=3))
    assert (cut.raw_text, cut.n_tokens, cut.finish_reason) == ("𝔘\ufffd", 3, "length")
    cut_stream = engine.complete_streaming(FRAKTUR, GenParams(max_new_tokens=3), lambda text: "")
    assert (cut_stream.raw_text, cut_stream.n_tokens) == ("𝔘", 3)
    line = engine.complete_streaming(FRAKTUR, GenParams(max_new_tokens=16), editor_stops(("\n",), None))
    assert (line.raw_text, line.n_tokens, line.finish_reason) == ("𝔘𝔫𝔦𝔠𝔬𝔡𝔢\";\n", 12, "stop_word")


def test_the_cache_key_names_how_ids_became_text(engine: Any) -> None:
    """The engine's cache key names how its ids became text: a completion cached under a key of
    before is another key, so it is generated again."""
    from replay.run.cache import backend_cache_extra, cache_key

    rules = RULES[engine.name]
    params = GenParams(max_new_tokens=6)
    assert backend_cache_extra(engine) == rules.cache_extra
    assert cache_key(engine, BANNER, params) != cache_key(engine, BANNER, params, extra=rules.cached_before)
