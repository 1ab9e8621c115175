"""Real HTTP servers on 127.0.0.1 that play Tabby, Ollama, the hosted chat APIs or an
OpenAI-compatible server (the real ones cannot run here), with their failure paths.

`StubServer(handler)` runs a ThreadingHTTPServer on a free port; `handler(request)` returns a
Reply (status, JSON object or raw bytes, headers, delay before answering). Every request is
recorded (path, headers, parsed body) so tests check what the backend really sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # a JSON-able object, or bytes sent as they are
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class StubServer:
    def __init__(self, handler: Callable[[Request], Reply]) -> None:
        self.handler = handler
        self.requests: list[Request] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw
                req = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with stub.lock:
                    stub.requests.append(req)
                reply = stub.handler(req)
                if reply.delay:
                    time.sleep(reply.delay)
                data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    if "content-type" not in {k.lower() for k in reply.headers}:
                        self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> StubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def openai_reply(text: str, finish: str = "stop", tokens: int = 3) -> Reply:
    return Reply(body={"id": "cmpl-1", "object": "text_completion", "choices": [{"index": 0, "text": text, "finish_reason": finish}],
                       "usage": {"prompt_tokens": 5, "completion_tokens": tokens, "total_tokens": 5 + tokens}})


def sse_reply(pieces: list[str], finish: str = "length") -> Reply:
    """An OpenAI-style completion stream: one `data:` event per piece, a last event with the
    finish reason, then `[DONE]` (what llama.cpp's server and vLLM send with "stream": true)."""
    events = [{"choices": [{"index": 0, "text": piece, "finish_reason": None}]} for piece in pieces]
    events.append({"choices": [{"index": 0, "text": "", "finish_reason": finish}]})
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    return Reply(body=body.encode(), headers={"content-type": "text/event-stream"})
