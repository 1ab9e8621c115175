"""HTTP backends against real servers on 127.0.0.1 (stubs for Tabby, Ollama, the hosted chat
APIs and a misbehaving OpenAI-compatible server): request bodies, retries, errors, keys."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from tests.support.backend_stubs import Reply, Request, StubServer, openai_reply
from replay.backends.base import BackendError, GenParams
from replay.backends.chat import AnthropicBackend, ChatBackend
from replay.backends.ollama import OllamaBackend
from replay.backends.openai_compat import OpenAICompatBackend
from replay.backends.tabby_server import TabbyServerBackend
from replay.records import RenderedPrompt
from replay.run.runner import RunMismatch, replay_prompts
from replay.store import Store

SECRET = "sk-test-SECRET-never-logged-1234"


def prompt(item_id: str = "i1", **kw: object) -> RenderedPrompt:
    base = dict(profile="standard", family="qwen2.5-coder", text="<|fim_prefix|>def f():\n    <|fim_suffix|>\n<|fim_middle|>",
                prefix_sent="def f():\n    ", suffix_sent="\n", item_id=item_id, stop=("\n\n",), max_new_tokens=32)
    base.update(kw)
    return RenderedPrompt(**base)  # type: ignore[arg-type]


def test_openai_raw_route_body_and_stop_postprocessing() -> None:
    with StubServer(lambda r: openai_reply("return 1\n\nx = 2", tokens=7)) as srv:
        backend = OpenAICompatBackend("m", "m@1", [srv.url])
        c = backend.complete(prompt(), GenParams(max_new_tokens=16))
    body = srv.requests[0].body
    assert srv.requests[0].path == "/v1/completions"
    assert body == {"model": "m", "max_tokens": 16, "temperature": 0.0, "repeat_penalty": 1.0, "prompt": prompt().text}
    assert (c.text, c.raw_text, c.n_tokens, c.finish_reason) == ("return 1", "return 1\n\nx = 2", 7, "stop")


def test_openai_fim_route_and_token_ids() -> None:
    with StubServer(lambda r: openai_reply("x")) as srv:
        backend = OpenAICompatBackend("m", "m@1", [srv.url], send_ids=True, extra_body={})
        backend.complete(prompt(route="fim"), GenParams())
        backend.complete(prompt(token_ids=(151659, 750, 151661)), GenParams())
    fim, ids = srv.requests[0].body, srv.requests[1].body
    assert (fim["prompt"], fim["suffix"], fim["max_tokens"]) == ("def f():\n    ", "\n", 32)
    assert "repeat_penalty" not in fim
    assert ids["prompt"] == [151659, 750, 151661]


def test_ollama_raw_and_suffix_routes() -> None:
    with StubServer(lambda r: Reply(body={"model": "m", "response": "pass\n\nz", "done": True, "done_reason": "stop", "eval_count": 4})) as srv:
        backend = OllamaBackend("qwen2.5-coder:0.5b", "x@1", [srv.url])
        c = backend.complete(prompt(), GenParams(ctx=1024, max_new_tokens=8))
        backend.complete(prompt(route="fim"), GenParams(ctx=2048))
    raw, fim = srv.requests[0].body, srv.requests[1].body
    assert srv.requests[0].path == "/api/generate"
    assert raw["raw"] is True and raw["prompt"] == prompt().text and raw["stream"] is False
    assert raw["options"] == {"temperature": 0.0, "seed": 0, "num_predict": 8, "num_ctx": 1024, "repeat_penalty": 1.0}
    assert "raw" not in fim and (fim["prompt"], fim["suffix"]) == ("def f():\n    ", "\n")
    assert fim["options"]["num_ctx"] == 2048 and fim["options"]["num_predict"] == 32
    assert (c.text, c.raw_text, c.n_tokens) == ("pass", "pass\n\nz", 4)


def test_tabby_sends_segments_or_the_editor_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABBY_TOKEN", SECRET)
    with StubServer(lambda r: Reply(body={"id": "cmpl-x", "choices": [{"index": 0, "text": "return 0\n\n"}]})) as srv:
        backend = TabbyServerBackend("StarCoder-1B", "x@1", [srv.url])
        c = backend.complete(prompt(), GenParams())
        request = {"language": "solidity", "segments": {"prefix": "p", "suffix": "s"}}
        backend.complete(prompt(request=request), GenParams())
    first, second = srv.requests
    assert first.path == "/v1/completions" and first.headers["authorization"] == f"Bearer {SECRET}"
    assert first.body["segments"] == {"prefix": "def f():\n    ", "suffix": "\n"}
    assert second.body["language"] == "solidity" and second.body["segments"] == {"prefix": "p", "suffix": "s"}
    assert second.body["temperature"] == 0.0 and second.body["debug_options"] == {"return_prompt": True}
    assert c.text == c.raw_text == "return 0\n\n"  # the server applied its own stops


def test_chat_openai_and_anthropic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET + "-a")

    def handler(r: Request) -> Reply:
        if r.path == "/v1/messages":
            return Reply(body={"content": [{"type": "text", "text": "a + b</COMPLETION> more"}], "stop_reason": "end_turn",
                               "usage": {"input_tokens": 9, "output_tokens": 5}})
        return Reply(body={"choices": [{"index": 0, "message": {"role": "assistant", "content": "a + b</COMPLETION>"},
                                        "finish_reason": "stop"}], "usage": {"completion_tokens": 4}})

    hole = prompt(route="chat", text="You are a HOLE FILLER ...<QUERY>...", stop=("</COMPLETION>",))
    with StubServer(handler) as srv:
        chat = ChatBackend("gpt-4o-mini", "gpt@1", [srv.url]).complete(hole, GenParams(max_new_tokens=64))
        claude = AnthropicBackend("claude-x", "c@1", [srv.url]).complete(hole, GenParams())
    oa, an = srv.requests
    assert oa.path == "/v1/chat/completions" and oa.headers["authorization"] == f"Bearer {SECRET}"
    assert oa.body["messages"] == [{"role": "user", "content": hole.text}] and oa.body["max_tokens"] == 64
    assert an.path == "/v1/messages" and an.headers["x-api-key"] == SECRET + "-a"
    assert an.headers["anthropic-version"] == "2023-06-01" and "authorization" not in an.headers
    assert (chat.text, chat.raw_text) == ("a + b", "a + b</COMPLETION>")
    assert (claude.text, claude.n_tokens, claude.finish_reason) == ("a + b", 5, "end_turn")


def test_retries_5xx_and_429_then_succeeds() -> None:
    count = {"n": 0}

    def handler(r: Request) -> Reply:
        count["n"] += 1
        if count["n"] == 1:
            return Reply(503, {"error": "overloaded"})
        if count["n"] == 2:
            return Reply(429, {"error": "slow down"}, headers={"retry-after": "0.05"})
        return openai_reply("ok")

    with StubServer(handler) as srv:
        c = OpenAICompatBackend("m", "m@1", [srv.url], retries=3, backoff=0.01).complete(prompt(), GenParams())
    assert c.text == "ok" and count["n"] == 3


@pytest.mark.parametrize(("reply", "match", "tries"), [
    (Reply(500, {"error": "boom"}), "HTTP 500", 3),
    (Reply(400, {"error": "bad request"}), "HTTP 400", 1),  # client errors are not retried
    (Reply(200, b"{not json"), "not JSON", 1),
    (Reply(200, {"choices": []}), "malformed response: no choices.0.text", 1),
    (Reply(200, [1, 2]), "not a JSON object", 1),
])
def test_failures_become_clear_errors(reply: Reply, match: str, tries: int) -> None:
    with StubServer(lambda r: reply) as srv:
        backend = OpenAICompatBackend("m", "m@1", [srv.url], retries=2, backoff=0.01)
        with pytest.raises(BackendError, match=match):
            backend.complete(prompt(), GenParams())
    assert len(srv.requests) == tries


def test_timeout_and_connection_refused_are_retried_then_fail() -> None:
    with StubServer(lambda r: Reply(body={"response": "late"}, delay=1.0)) as srv:
        backend = OllamaBackend("m", "m@1", [srv.url], timeout=0.2, retries=1, backoff=0.01)
        started = time.monotonic()
        with pytest.raises(BackendError, match=r"timed out after 0.2 s \(after 2 tries\)"):
            backend.complete(prompt(), GenParams())
        assert time.monotonic() - started < 1.5
        assert len(srv.requests) == 2
    with pytest.raises(BackendError, match="connection failed"):
        OllamaBackend("m", "m@1", [srv.url], retries=1, backoff=0.01).complete(prompt(), GenParams())


def test_run_goes_on_after_item_errors_and_keys_never_leak(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("MY_KEY", SECRET)

    def handler(r: Request) -> Reply:
        if "bad" in r.body["prompt"]:
            return Reply(500, {"error": f"echo {r.headers.get('authorization')}"})  # a server that echoes the key
        return openai_reply("fine")

    prompts = [prompt(f"i{n}", text=("bad" if n == 2 else "good") + str(n)) for n in range(5)]
    with StubServer(handler) as srv, Store(tmp_path / "s.db") as store:
        backend = OpenAICompatBackend("m", "m@1", [srv.url], retries=1, backoff=0.01, api_key_env="MY_KEY")
        summary = replay_prompts(store, prompts, backend, run_id="r1", concurrency=3)
        assert (summary.items, summary.completed, summary.errors) == (5, 4, 1)
        errors = [c for c in store.completions("r1") if c.error]
        assert len(errors) == 1 and "HTTP 500" in errors[0].error and "<redacted>" in errors[0].error
        assert srv.requests[0].headers["authorization"] == f"Bearer {SECRET}"
        assert store.run("r1").config.api_key_env == "MY_KEY"
    dump = (tmp_path / "s.db").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("s.db-*"))
    assert SECRET.encode() not in dump
    assert SECRET not in caplog.text


def test_several_endpoints_share_the_work(tmp_path: Path) -> None:
    handler = lambda r: Reply(body=openai_reply("x").body, delay=0.05)  # noqa: E731
    with StubServer(handler) as a, StubServer(handler) as b, Store(tmp_path / "s.db") as store:
        backend = OpenAICompatBackend("m", "m@1", [a.url, b.url])
        prompts = [prompt(f"i{n}", text=f"p{n}") for n in range(20)]
        seen: list[tuple[int, int]] = []
        threads: set[str] = set()

        def progress(done: int, total: int, completion: object) -> None:
            seen.append((done, total))
            threads.add(threading.current_thread().name)

        summary = replay_prompts(store, prompts, backend, run_id="r", concurrency=4, on_progress=progress)
    assert summary.completed == 20
    assert len(a.requests) + len(b.requests) == 20 and min(len(a.requests), len(b.requests)) >= 6
    assert seen[0] == (0, 20) and sorted(d for d, _ in seen[1:]) == list(range(1, 21))
    assert any(t.startswith("replay") for t in threads)


def test_cache_serves_a_second_run_and_reapplies_its_stops(tmp_path: Path) -> None:
    with StubServer(lambda r: openai_reply("a\nb\n\nc")) as srv, Store(tmp_path / "s.db") as store:
        backend = OpenAICompatBackend("m", "m@1", [srv.url])
        first = replay_prompts(store, [prompt("x", stop=("\n\n",))], backend, run_id="r1")
        second = replay_prompts(store, [prompt("y", stop=("\n",))], backend, run_id="r2")
        assert (first.cached, second.cached, len(srv.requests)) == (0, 1, 1)
        (c,) = store.completions("r2")
        assert (c.item_id, c.text, c.raw_text) == ("y", "a", "a\nb\n\nc")
        third = replay_prompts(store, [prompt("z")], backend, run_id="r3", use_cache=False)
        assert third.cached == 0 and len(srv.requests) == 2


def test_errors_are_not_cached_and_are_retried_on_resume(tmp_path: Path) -> None:
    state = {"fail": True}
    with StubServer(lambda r: Reply(500, {}) if state["fail"] else openai_reply("ok")) as srv, Store(tmp_path / "s.db") as store:
        backend = OpenAICompatBackend("m", "m@1", [srv.url], retries=0)
        assert replay_prompts(store, [prompt("a")], backend, run_id="r").errors == 1
        assert store.run("r").status == "done_with_errors"
        state["fail"] = False
        again = replay_prompts(store, [prompt("a")], backend, run_id="r")
        assert (again.errors, again.completed, again.cached) == (0, 1, 0)
        assert [c.text for c in store.completions("r")] == ["ok"] and store.run("r").status == "done"


def test_env_key_absent_sends_no_auth(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with StubServer(lambda r: openai_reply("x")) as srv:
        OpenAICompatBackend("m", "m@1", [srv.url]).complete(prompt(), GenParams())
    assert "authorization" not in srv.requests[0].headers
    assert json.dumps(OpenAICompatBackend("m", "m@1", [srv.url]).describe()).count("sk-") == 0
    assert os.environ.get("OPENAI_API_KEY") is None


def test_resuming_a_run_with_other_settings_is_refused(tmp_path: Path) -> None:
    with StubServer(lambda r: openai_reply("x")) as srv, Store(tmp_path / "s.db") as store:
        replay_prompts(store, [prompt("a")], OpenAICompatBackend("m", "m@1", [srv.url]), GenParams(max_new_tokens=8), run_id="r")
        with pytest.raises(RunMismatch, match="started with model_id 'm@1', not 'm@2'"):
            replay_prompts(store, [prompt("a")], OpenAICompatBackend("m", "m@2", [srv.url]), GenParams(max_new_tokens=8), run_id="r")
        with pytest.raises(RunMismatch, match="started with params"):
            replay_prompts(store, [prompt("a")], OpenAICompatBackend("m", "m@1", [srv.url]), GenParams(max_new_tokens=9), run_id="r")
        assert replay_prompts(store, [prompt("a"), prompt("b")], OpenAICompatBackend("m", "m@1", [srv.url]),
                              GenParams(max_new_tokens=8), run_id="r").resumed == 1


def test_a_progress_callback_that_raises_cancels_the_rest(tmp_path: Path) -> None:
    class Cancelled(Exception):
        pass

    def progress(done: int, total: int, completion: object) -> None:
        if done >= 3:
            raise Cancelled

    with StubServer(lambda r: Reply(body=openai_reply("x").body, delay=0.02)) as srv, Store(tmp_path / "s.db") as store:
        prompts = [prompt(f"i{n}", text=f"p{n}") for n in range(40)]
        with pytest.raises(Cancelled):
            replay_prompts(store, prompts, OpenAICompatBackend("m", "m@1", [srv.url]), run_id="c", concurrency=2,
                           on_progress=progress)
        assert store.run("c").status == "interrupted"
        done = len(store.completions("c"))
        assert 3 <= done < 40 and len(srv.requests) == done  # nothing asked that was not stored


@pytest.mark.parametrize("cls", [TabbyServerBackend, OllamaBackend, ChatBackend, AnthropicBackend, OpenAICompatBackend])
@pytest.mark.parametrize(("reply", "match"), [
    (Reply(200, b"<html>proxy error</html>"), "not JSON"),
    (Reply(200, {"unexpected": True}), "malformed response"),
    (Reply(502, b"bad gateway"), r"HTTP 502 bad gateway \(after 2 tries\)"),
    (Reply(429, {"error": "rate"}, headers={"retry-after": "0"}), r"HTTP 429 .* \(after 2 tries\)"),
])
def test_every_http_backend_reports_failures_per_item(cls: type, reply: Reply, match: str) -> None:
    with StubServer(lambda r: reply) as srv:
        backend = cls("m", "m@1", [srv.url], retries=1, backoff=0.01)
        with pytest.raises(BackendError, match=match):
            backend.complete(prompt(route="chat" if cls in (ChatBackend, AnthropicBackend) else "raw"), GenParams())


def test_openai_stream_is_read_until_the_editor_stops_reading() -> None:
    from tests.support.backend_stubs import sse_reply
    from replay.run.runner import editor_stops

    pieces = ["return", " 1", "\n", "\n", "x", " = 2"]
    with StubServer(lambda r: sse_reply(pieces)) as srv:
        backend = OpenAICompatBackend("m", "m@1", [srv.url])
        whole = backend.complete_streaming(prompt(), GenParams(max_new_tokens=16), lambda text: "")
        early = backend.complete_streaming(prompt(), GenParams(max_new_tokens=16), editor_stops(("\n\n",), None))
    assert srv.requests[0].body["stream"] is True
    assert (whole.raw_text, whole.n_tokens, whole.finish_reason) == ("return 1\n\nx = 2", 6, "length")
    assert [chars for chars, _ in whole.timing] == [6, 8, 9, 10, 11, 15]
    assert (early.raw_text, early.text, early.n_tokens, early.finish_reason) == ("return 1\n\n", "return 1", 4, "stop_word")
    assert early.stopped_early and not whole.stopped_early


def test_openai_stream_retries_before_the_first_event_and_reads_a_plain_answer() -> None:
    from tests.support.backend_stubs import sse_reply

    calls = {"n": 0}

    def flaky(request: Request) -> Reply:
        calls["n"] += 1
        return Reply(503, {"error": "loading"}) if calls["n"] == 1 else sse_reply(["ok"], "stop")

    with StubServer(flaky) as srv:
        done = OpenAICompatBackend("m", "m@1", [srv.url], backoff=0.01).complete_streaming(prompt(), GenParams(), lambda t: "")
    assert (done.raw_text, done.finish_reason, calls["n"]) == ("ok", "stop", 2)
    # A server that ignores "stream" answers with one JSON object: read as complete() reads it.
    with StubServer(lambda r: openai_reply("a\n\nb", tokens=3)) as srv:
        plain = OpenAICompatBackend("m", "m@1", [srv.url]).complete_streaming(prompt(), GenParams(), lambda t: "stop_word")
    assert (plain.raw_text, plain.text, plain.n_tokens, plain.stopped_early) == ("a\n\nb", "a", 3, False)
    bad = Reply(body=b"data: {not json\n\n", headers={"content-type": "text/event-stream"})
    with StubServer(lambda r: bad) as srv, pytest.raises(BackendError, match="not JSON"):
        OpenAICompatBackend("m", "m@1", [srv.url]).complete_streaming(prompt(), GenParams(), lambda t: "")
