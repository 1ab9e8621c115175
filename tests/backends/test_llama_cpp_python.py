"""llama-cpp-python (the optional `llama-cpp-python` extra) on the real demo model: in process,
and its own OpenAI-compatible server on 127.0.0.1 through the `openai` backend; both must give
the same greedy text for the same prompt, and the same as the default engine (llama.cpp's server
from the xllamacpp wheel). The engine contract it shares with the default engine is checked on
both in test_engine_contract.py. Short generations keep this fast on 2 cores."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from replay.backends.base import GenParams
from replay.backends.llamacpp import LlamaCppBackend
from replay.backends.llama_cpp_python import LlamaCppPythonBackend
from replay.backends.models import ModelRef
from replay.backends.openai_compat import OpenAICompatBackend
from tests.backends.test_engine_contract import BANNER, FRAKTUR, PROMPT
from tests.conftest import free_port
from tests.support.extras import LLAMA_CPP_PYTHON_MISSING
from tests.support.processes import start, stop

# The engine the replay used before, as an optional extra (a 10-minute source build): these tests
# check it, and run where it is installed (`pip install -e '.[llama-cpp-python]'`).
pytest.importorskip("llama_cpp", reason=LLAMA_CPP_PYTHON_MISSING)


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


def test_llama_cpp_server_gives_the_in_process_greedy_text(engine: LlamaCppPythonBackend, server: str, ref: ModelRef) -> None:
    http = OpenAICompatBackend(ref.name, ref.model_id, [server], timeout=120)
    remote = http.complete(PROMPT, GenParams(max_new_tokens=12))
    local = engine.complete(PROMPT, GenParams(max_new_tokens=12))
    assert remote.raw_text == local.raw_text
    assert remote.text == local.text and remote.n_tokens == local.n_tokens == 12
    http.close()


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
