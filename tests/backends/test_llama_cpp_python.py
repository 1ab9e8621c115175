"""llama-cpp-python (the optional `llama-cpp-python` extra) on the real demo model: in process,
and its own OpenAI-compatible server on 127.0.0.1 through the `openai` backend; both must give
the same greedy text for the same prompt, and the same as the default engine (llama.cpp's server
from the xllamacpp wheel). Short generations keep this fast on 2 cores."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from replay.backends.base import GenParams
from replay.backends.llamacpp import LlamaCppBackend
from replay.backends.llama_cpp_python import LlamaCppPythonBackend
from replay.backends.models import ModelRef, resolve_model
from replay.backends.openai_compat import OpenAICompatBackend
from replay.records import RenderedPrompt
from tests.conftest import free_port
from tests.support.extras import LLAMA_CPP_PYTHON_MISSING
from tests.support.processes import start, stop

PROMPT = RenderedPrompt(profile="standard", family="qwen2.5-coder",
                        text="<|fim_prefix|>def fibonacci(n):\n    <|fim_suffix|>\n    return a\n<|fim_middle|>",
                        prefix_sent="def fibonacci(n):\n    ", suffix_sent="\n    return a\n", item_id="fib", stop=("\n",))
# Qwen2.5-Coder FIM ids (the GGUF's vocabulary): <|fim_prefix|> 151659, <|fim_suffix|> 151661, <|fim_middle|> 151660;
# BOS would be 151643 (<|endoftext|>), which this GGUF does not add (add_bos_token false).
FIM_PREFIX, FIM_SUFFIX, FIM_MIDDLE, BOS = 151659, 151661, 151660, 151643

# The engine the replay used before, as an optional extra (a 10-minute source build): these tests
# check it, and run where it is installed (`pip install -e '.[llama-cpp-python]'`).
pytest.importorskip("llama_cpp", reason=LLAMA_CPP_PYTHON_MISSING)


def with_ids(prompt: RenderedPrompt, ids: tuple[int, ...]) -> RenderedPrompt:
    import msgspec

    return msgspec.structs.replace(prompt, token_ids=ids)


@pytest.fixture(scope="module")
def ref() -> ModelRef:
    return resolve_model("default")


@pytest.fixture(scope="module")
def engine(ref: ModelRef) -> Iterator[LlamaCppPythonBackend]:
    backend = LlamaCppPythonBackend(ref, ctx=1024, n_threads=1)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def server(ref: ModelRef, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m llama_cpp.server` with the demo model; ready within a bounded wait."""
    port = free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    log = log_path.open("w")  # a file, not a pipe: the server's verbose start-up would fill a pipe
    proc = start([sys.executable, "-m", "llama_cpp.server", "--model", str(ref.path), "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", "2048", "--n_threads", "1"],
                            stdout=subprocess.DEVNULL, stderr=log, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/v1/models", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server not ready in 90 s")
            time.sleep(0.3)
        yield url
    finally:
        stop(proc, grace=10)
        log.close()


def test_the_engine_gets_the_prompt_ids_verbatim(engine: LlamaCppPythonBackend) -> None:
    ids = engine.token_ids(PROMPT)  # no ids given: llama.cpp tokenizes, sentinels parsed, no BOS
    assert ids[0] == FIM_PREFIX and ids[-1] == FIM_MIDDLE and ids.count(FIM_SUFFIX) == 1 and BOS not in ids
    assert engine.token_ids(with_ids(PROMPT, (1, 2, 3))) == [1, 2, 3]  # audited ids go in untouched


def test_greedy_text_from_ids_and_text_is_the_same(engine: LlamaCppPythonBackend) -> None:
    by_text = engine.complete(PROMPT, GenParams(max_new_tokens=12))
    from_ids = engine.complete(with_ids(PROMPT, tuple(engine.token_ids(PROMPT))), GenParams(max_new_tokens=12))
    assert by_text.raw_text == from_ids.raw_text and by_text.n_tokens == 12 and by_text.finish_reason == "length"
    assert by_text.raw_text.startswith("a, b = 0, 1")
    assert by_text.text == by_text.raw_text.split("\n")[0]  # the prompt's stop "\n" applied, raw kept


def test_the_engine_stops_on_end_of_generation(engine: LlamaCppPythonBackend) -> None:
    done = RenderedPrompt(profile="standard", family="qwen2.5-coder",
                          text="<|fim_prefix|>def add(a, b):\n    return <|fim_suffix|>\n\nprint(add(1, 2))\n<|fim_middle|>", prefix_sent="", suffix_sent="",
                          item_id="eog")
    c = engine.complete(done, GenParams(max_new_tokens=24))
    assert c.finish_reason == "stop" and c.n_tokens < 24 and c.raw_text.startswith("a + b")
    assert "<|endoftext|>" not in c.raw_text and "<|file_sep|>" not in c.raw_text


def test_prompt_longer_than_the_context_is_an_item_error(engine: LlamaCppPythonBackend) -> None:
    from replay.backends.base import BackendError

    long = RenderedPrompt(profile="standard", family="q", text="", prefix_sent="", suffix_sent="", item_id="l",
                          token_ids=tuple([198] * 1024))
    with pytest.raises(BackendError, match="does not fit the context of 1024"):
        engine.complete(long, GenParams(max_new_tokens=4))


def test_llama_cpp_server_gives_the_in_process_greedy_text(engine: LlamaCppPythonBackend, server: str, ref: ModelRef) -> None:
    http = OpenAICompatBackend(ref.name, ref.model_id, [server], timeout=120)
    remote = http.complete(PROMPT, GenParams(max_new_tokens=12))
    local = engine.complete(PROMPT, GenParams(max_new_tokens=12))
    assert remote.raw_text == local.raw_text
    assert remote.text == local.text and remote.n_tokens == local.n_tokens == 12
    http.close()


def test_streaming_without_a_stop_is_the_same_generation(engine: LlamaCppPythonBackend) -> None:
    """complete_streaming runs complete()'s generation loop, asked after each token: with nothing stopping it
    the text, token count and finish reason are complete()'s, and each token's arrival is timed."""
    params = GenParams(max_new_tokens=16)
    whole = engine.complete(PROMPT, params)
    streamed = engine.complete_streaming(PROMPT, params, lambda text: "")
    assert (streamed.raw_text, streamed.n_tokens, streamed.finish_reason) == (whole.raw_text, whole.n_tokens, whole.finish_reason)
    assert streamed.text == whole.text and not streamed.stopped_early
    assert len(streamed.timing) == 16 and streamed.timing[-1][0] == len(whole.raw_text)
    assert all(a[1] <= b[1] for a, b in zip(streamed.timing, streamed.timing[1:]))
    eog = RenderedPrompt(profile="standard", family="qwen2.5-coder",
                         text="<|fim_prefix|>def add(a, b):\n    return <|fim_suffix|>\n\nprint(add(1, 2))\n<|fim_middle|>",
                         prefix_sent="", suffix_sent="", item_id="eog")
    a, b = engine.complete(eog, GenParams(max_new_tokens=24)), engine.complete_streaming(eog, GenParams(max_new_tokens=24), lambda t: "")
    assert (a.raw_text, a.n_tokens, a.finish_reason) == (b.raw_text, b.n_tokens, b.finish_reason) == (a.raw_text, a.n_tokens, "stop")


def test_streaming_stops_where_the_editor_stops_reading(engine: LlamaCppPythonBackend) -> None:
    """Stopped at the first stop word, the engine has decoded fewer tokens, and the text the
    editor uses (cut at the stop word) is the same as after the whole budget."""
    from replay.run.runner import editor_stops

    params = GenParams(max_new_tokens=16)
    whole = engine.complete(PROMPT, params)  # PROMPT stops at "\n"; the greedy text has a newline early
    early = engine.complete_streaming(PROMPT, params, editor_stops(PROMPT.stop, None))
    assert early.text == whole.text and early.n_tokens < whole.n_tokens
    assert early.finish_reason == "stop_word" and early.stopped_early
    assert whole.raw_text.startswith(early.raw_text)
    cancelled = engine.complete_streaming(PROMPT, params, editor_stops((), lambda text: 3 if len(text) >= 3 else None))
    assert cancelled.finish_reason == "editor_cancel" and whole.raw_text.startswith(cancelled.raw_text)
    assert len(cancelled.raw_text) >= 3 and cancelled.n_tokens <= 3


def test_llama_cpp_server_stream_cancelled_where_the_editor_stops(server: str, ref: ModelRef) -> None:
    """Over llama.cpp's server the stream gives the same greedy text as one answer, and closing
    it at the first stop word leaves the text the editor uses unchanged, after fewer tokens."""
    from replay.run.runner import editor_stops

    http = OpenAICompatBackend(ref.name, ref.model_id, [server], timeout=120)
    params = GenParams(max_new_tokens=16)
    whole = http.complete(PROMPT, params)
    streamed = http.complete_streaming(PROMPT, params, lambda text: "")
    assert streamed.raw_text == whole.raw_text and streamed.n_tokens == whole.n_tokens == 16
    assert streamed.finish_reason == whole.finish_reason == "length" and not streamed.stopped_early
    early = http.complete_streaming(PROMPT, params, editor_stops(PROMPT.stop, None))
    assert early.text == whole.text and early.finish_reason == "stop_word" and early.stopped_early
    assert whole.raw_text.startswith(early.raw_text) and early.n_tokens < whole.n_tokens
    assert early.timing and early.timing[-1][0] == len(early.raw_text)
    http.close()


BANNER = RenderedPrompt(profile="standard", family="qwen2.5-coder",
                        text="<|fim_prefix|>pragma solidity ^0.8.20;\n\n" + "/" * 62 + "\n// Token\n" + "/" * 62
                        + "\n\ncontract A {}\n\n<|fim_suffix|>\n// Vault\n" + "/" * 62 + "\n<|fim_middle|>",
                        prefix_sent="", suffix_sent="", item_id="banner")
FRAKTUR = RenderedPrompt(profile="standard", family="qwen2.5-coder",
                         text="<|fim_prefix|>// Fraktur: 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝔘𝔫𝔦𝔠𝔬𝔡𝔢\nconst a = \"𝔘𝔫𝔦𝔠𝔬𝔡𝔢\";\nconst b = \"<|fim_suffix|>\";\n<|fim_middle|>",
                         prefix_sent="", suffix_sent="", item_id="fraktur")


def test_a_banner_comment_keeps_its_sixty_slashes_token(engine: LlamaCppPythonBackend) -> None:
    """The greedy answer to a Solidity banner is "contract B {}\\n\\n" then token 64575 (sixty
    slashes), which llama-cpp-python's detokenize returns as nothing: the text has them all,
    streamed or not."""
    whole = engine.complete(BANNER, GenParams(max_new_tokens=6))
    assert whole.raw_text == "contract B {}\n\n" + "/" * 60 + "//\n//" and whole.n_tokens == 6
    streamed = engine.complete_streaming(BANNER, GenParams(max_new_tokens=6), lambda text: "")
    assert streamed.raw_text == whole.raw_text and [n for n, _ in streamed.timing] == [8, 10, 15, 75, 78, 80]


def test_a_character_split_across_tokens_is_joined_not_dropped(engine: LlamaCppPythonBackend) -> None:
    """The model copies "𝔘𝔫𝔦…", whose characters come as two tokens each (the first three bytes,
    then the fourth). The stream sends each character once its last byte has come (the text so
    far never ends in half a character); an answer cut by the budget inside a character is, as
    the server writes it unstreamed, U+FFFD there, and streamed, without it."""
    whole = engine.complete(FRAKTUR, GenParams(max_new_tokens=12))
    assert whole.raw_text == "𝔘𝔫𝔦𝔠𝔬𝔡𝔢\";\n" and whole.n_tokens == 12
    seen: list[str] = []
    streamed = engine.complete_streaming(FRAKTUR, GenParams(max_new_tokens=12), lambda text: seen.append(text) or "")
    assert streamed.raw_text == whole.raw_text and "\ufffd" not in "".join(seen)
    assert seen[:6] == ["", "𝔘", "𝔘", "𝔘𝔫", "𝔘𝔫𝔦", "𝔘𝔫𝔦"] and [n for n, _ in streamed.timing][:6] == [0, 1, 1, 2, 3, 3]
    cut = engine.complete(FRAKTUR, GenParams(max_new_tokens=3))
    assert (cut.raw_text, cut.n_tokens, cut.finish_reason) == ("𝔘\ufffd", 3, "length")
    cut_stream = engine.complete_streaming(FRAKTUR, GenParams(max_new_tokens=3), lambda text: "")
    assert (cut_stream.raw_text, cut_stream.n_tokens) == ("𝔘", 3)
    line = engine.complete_streaming(FRAKTUR, GenParams(max_new_tokens=16), editor_stops_at_newline())
    assert (line.raw_text, line.n_tokens, line.finish_reason) == ("𝔘𝔫𝔦𝔠𝔬𝔡𝔢\";\n", 12, "stop_word")


def editor_stops_at_newline() -> Any:
    from replay.run.runner import editor_stops

    return editor_stops(("\n",), None)


def test_completions_cached_before_the_whole_pieces_are_not_read(engine: LlamaCppPythonBackend) -> None:
    """The engine's cache key names how ids became text: a completion cached under the key of
    before (its text from the 32-byte detokenize) is another key, so it is generated again."""
    from replay.run.cache import backend_cache_extra, cache_key

    params = GenParams(max_new_tokens=6)
    assert backend_cache_extra(engine) == {"text": "server-pieces"}
    assert cache_key(engine, BANNER, params) != cache_key(engine, BANNER, params, extra={})


def test_the_default_engine_gives_the_same_short_answers(engine: LlamaCppPythonBackend, ref: ModelRef) -> None:
    """llama.cpp's server from the xllamacpp wheel and llama-cpp-python 0.3.36 on prompts with no
    near tie in their first tokens: the same text, token count and finish, unstreamed, streamed,
    and stopped where the editor stops reading. Not so everywhere: on the demo's prompts the
    builds' kernels part some answers (bench/speed/engine_parity.py, docs/replay-and-scores.md)."""
    from replay.run.runner import editor_stops

    server = LlamaCppBackend(ref, ctx=1024, n_threads=1)
    try:
        for prompt, n in ((PROMPT, 16), (BANNER, 6), (FRAKTUR, 12)):
            params = GenParams(max_new_tokens=n)
            for ask in (lambda b: b.complete(prompt, params), lambda b: b.complete_streaming(prompt, params, lambda t: ""),
                        lambda b: b.complete_streaming(prompt, params, editor_stops(("\n",), None))):
                a, b = ask(server), ask(engine)
                assert (a.raw_text, a.text, a.n_tokens, a.finish_reason) == (b.raw_text, b.text, b.n_tokens, b.finish_reason)
    finally:
        server.close()
