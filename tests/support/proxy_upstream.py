"""A real HTTP server on 127.0.0.1 that answers in each completion API's own shape, for the
proxy's tests and bench: the servers of those APIs (Ollama, the llama.cpp server, Mistral's
hosted API, a Tabby server) cannot run here. llama-cpp-python's server, which does run here,
stands for the OpenAI routes in tests/proxy/test_engines.py.

Answers, per route, in the shape of the API's source (cited in replay/proxy/apis/): OpenAI
completions and chat completions (JSON, or server-sent events ending with `[DONE]`), Ollama
generate and chat (JSON, or NDJSON lines ending with `done: true`), llama.cpp `/completion` and
`/infill` (`content`, or `data:` events ending with `stop: true`), Mistral FIM (chat-completion
shaped), Tabby (`id` + `choices`; `/v1/events` answered empty; `/v1/health`). The streamed text
is `pieces`, one piece per chunk, `gap` seconds apart; `first_byte_delay` before anything;
`status` other than 200 answers that status with a one-line JSON error; `slots` caps the
answers under way at once, the others wait their turn (an engine's parallel slots). Every request is kept
(path, headers, raw body); `disconnects` counts streams the client closed before their end. A POST
body that is not a JSON object is answered 400 with a one-line JSON error, as the servers do.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
import threading
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Behaviour:
    pieces: list[str] = field(default_factory=lambda: ["def ", "add(a, b):", "\n    return a + b"])
    gap: float = 0.0
    first_byte_delay: float = 0.0
    status: int = 200
    slots: int = 0  # answers generated at once (an engine's parallel slots, llama.cpp's --parallel); 0: no limit


def _events(path: str, body: dict[str, Any], pieces: list[str]) -> tuple[str, list[dict[str, Any]], dict[str, Any]]:
    """(content type of a stream, the stream's objects, the whole answer) for a route."""
    whole = "".join(pieces)
    if path.endswith("/chat/completions") or path.endswith("/fim/completions"):
        chunks = [{"id": "chat-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": p}}]}
                  for p in pieces]
        return SSE, chunks, {"id": "chat-1", "object": "chat.completion",
                             "choices": [{"index": 0, "message": {"role": "assistant", "content": whole}, "finish_reason": "stop"}]}
    if path in ("/api/generate", "/api/chat"):
        key = "response" if path == "/api/generate" else "message"
        wrap = (lambda t: t) if key == "response" else (lambda t: {"role": "assistant", "content": t})
        chunks = [{"model": body.get("model"), key: wrap(p), "done": False} for p in pieces]
        chunks.append({"model": body.get("model"), key: wrap(""), "done": True, "done_reason": "stop"})
        return NDJSON, chunks, {"model": body.get("model"), key: wrap(whole), "done": True}
    if path in ("/completion", "/infill"):
        chunks = [{"content": p, "stop": False} for p in pieces] + [{"content": "", "stop": True}]
        return SSE, chunks, {"content": whole, "stop": True}
    if "segments" in body:  # Tabby
        return SSE, [], {"id": "cmpl-tabby-1", "choices": [{"index": 0, "text": whole}]}
    chunks = [{"id": "cmpl-1", "object": "text_completion", "choices": [{"index": 0, "text": p, "finish_reason": None}]}
              for p in pieces]
    return SSE, chunks, {"id": "cmpl-1", "object": "text_completion", "choices": [{"index": 0, "text": whole}]}


class ShapeUpstream:
    """The server, on its own event loop thread; a context manager."""

    def __init__(self, behaviour: Behaviour | None = None) -> None:
        self.behaviour = behaviour or Behaviour()
        self.seen: list[Seen] = []
        self.disconnects = 0
        self._slots: asyncio.Semaphore | None = None
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.url = ""

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()  # as sent (auto_decompress off): a gzip body is inflated below
        self.seen.append(Seen(request.method, request.path_qs, dict(request.headers), raw))
        if request.headers.get("Content-Encoding", "").lower() == "gzip":
            try:
                raw = gzip.decompress(raw)
            except (OSError, EOFError, zlib.error):
                return web.json_response({"error": "the body is not gzip"}, status=400)
        if self._slots is None:
            return await self._answer(request, raw)
        async with self._slots:
            return await self._answer(request, raw)

    async def _answer(self, request: web.Request, raw: bytes) -> web.StreamResponse:
        b = self.behaviour
        if b.first_byte_delay:
            await asyncio.sleep(b.first_byte_delay)
        if request.method == "GET" or request.path == "/v1/events":
            return web.json_response({"status": "ok"} if request.method == "GET" else None) if request.path != "/v1/events" \
                else web.Response(status=200)
        if b.status != 200:
            return web.json_response({"error": f"upstream failed with {b.status}"}, status=b.status)
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:  # not UTF-8, not JSON
            body = None
        if not isinstance(body, dict):
            return web.json_response({"error": "the body is not a JSON object"}, status=400)
        ctype, chunks, whole = _events(request.path, body, b.pieces)
        streaming = body.get("stream", request.path.startswith("/api/")) is not False and chunks
        if not streaming:
            return web.json_response(whole)
        answer = web.StreamResponse(headers={"Content-Type": ctype})
        await answer.prepare(request)
        try:
            for i, obj in enumerate(chunks):
                if i and b.gap:
                    await asyncio.sleep(b.gap)
                line = json.dumps(obj).encode()
                await answer.write(b"data: " + line + b"\n\n" if ctype == SSE else line + b"\n")
            if ctype == SSE and not request.path.startswith(("/completion", "/infill")):
                await answer.write(b"data: [DONE]\n\n")
            await answer.write_eof()
        except (ConnectionResetError, RuntimeError):
            self.disconnects += 1
        return answer

    def __enter__(self) -> ShapeUpstream:
        self._thread.start()

        async def start() -> str:
            self._slots = asyncio.Semaphore(self.behaviour.slots) if self.behaviour.slots else None
            app = web.Application(client_max_size=1 << 30)
            app.router.add_route("*", "/{tail:.*}", self._handle)
            self._runner = web.AppRunner(app, access_log=None, auto_decompress=False)
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            await site.start()
            return f"http://127.0.0.1:{self._runner.addresses[0][1]}"

        self.url = asyncio.run_coroutine_threadsafe(start(), self.loop).result()
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self.loop).result()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
