"""Drive the real tabby-agent (npm) over LSP against a stub Tabby server on 127.0.0.1.

The stub answers /v1/health and records the JSON body of every POST /v1/completions: that body is
the client stage's output, which replay.editors.tabby.client.build_request must reproduce. It
answers each completion request with the next text queued by `completion(..., reply=...)` (""
when none is queued): the agent's post-processing of that text is the completion stage, which
replay.editors.tabby.completion.complete must reproduce. tabby-agent 1.5.0 serves LSP
`textDocument/completion` only (src/LspServer.ts: completionProvider; the inlineCompletion
provider is commented out), one CompletionItem per choice whose textEdit inserts the word typed
before the cursor plus the choice text, over a range that ends at the choice's replace range.
tabby-agent 1.5.0 reads its settings from $HOME/.tabby-client/agent/config.toml
(TabbyML/tabby clients/tabby-agent/src/configFile.ts), so each run gets its own HOME.

The package is the `tabby-agent` asset of replay.assets (npm pack tabby-agent@1.5.0, checked
by sha256, in FIMREPLAY_CACHE/npm); its dist/cli.js bundles all it needs but node itself.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from replay.assets import MissingAsset, asset_path
from replay.assets.installer import install


def installed_asset(name: str) -> Path:
    """The asset's folder, installed from npm the first time (`npm pack`, sha256-checked)."""
    try:
        return asset_path(name)
    except MissingAsset:
        install([name])
        return asset_path(name)


def tabby_agent_cli() -> Path:
    return installed_asset("tabby-agent") / "package" / "dist" / "cli.js"


class _Recorder(BaseHTTPRequestHandler):
    """The stub Tabby server: the server object carries `bodies` (POSTed completion bodies, in
    order) and `replies` (the texts to answer them with, in order)."""

    def log_message(self, format: str, *args: Any) -> None:  # the test output stays clean
        pass

    def _reply(self, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._reply({"model": "stub", "device": "cpu", "arch": "x86_64", "cpu_info": "", "cpu_count": 1,
                     "cuda_devices": [], "version": {"build_date": "", "build_timestamp": "", "git_sha": "", "git_describe": ""}})

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path.startswith("/v1/health"):
            self.do_GET()
            return
        if self.path.startswith("/v1/completions"):
            self.server.bodies.put(json.loads(body))  # type: ignore[attr-defined]
            try:
                text = self.server.replies.get_nowait()  # type: ignore[attr-defined]
            except queue.Empty:
                text = ""
            self._reply({"id": "cmpl-stub", "choices": [{"index": 0, "text": text}]})
            return
        self._reply({})


class TabbyAgentSession:
    """One tabby-agent process speaking LSP on stdio, with documents opened one by one."""

    def __init__(self, cli_js: Path, home: Path, config_toml: str, endpoint: Callable[[str], str] | None = None) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
        self.server.bodies = queue.Queue()  # type: ignore[attr-defined]
        self.server.replies = queue.Queue()  # type: ignore[attr-defined]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        stub = f"http://127.0.0.1:{self.server.server_address[1]}"
        endpoint = stub if endpoint is None else endpoint(stub)  # e.g. a recording proxy in front of the stub
        config_dir = home / ".tabby-client" / "agent"
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / "config.toml").write_text(
            f'[server]\nendpoint = "{endpoint}"\n\n[anonymousUsageTracking]\ndisable = true\n\n'
            # no debounce wait: it changes timing only, never the body (AgentConfig.ts completion.debounce)
            f'[completion.debounce]\nmode = "fixed"\ninterval = 0\n\n{config_toml}')
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}
        node = shutil.which("node") or "/usr/bin/node"
        self.proc = subprocess.Popen([node, str(cli_js), "--lsp", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
        self._next_id = 0
        self._version = 0
        self.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {},
                                    "clientInfo": {"name": "fimreplay-test", "version": "0"}})
        self.notify("initialized", {})

    def _send(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.proc.stdin.flush()

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("tabby-agent exited")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any) -> Any:
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        while True:
            message = self._read()
            if message.get("id") == self._next_id and "method" not in message:
                return message.get("result")
            if "method" in message and "id" in message:  # a server->client request: answer empty
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})

    def complete(self, uri: str, language: str, text: str, line: int, character: int, timeout: float = 15) -> dict[str, Any] | None:
        """Open `text` as `uri`, ask for a completion at (line, character) in UTF-16 units, and
        return the body the agent POSTed (None when it sent nothing)."""
        self._version += 1
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": self._version, "text": text}})
        self.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        try:
            return self.server.bodies.get(timeout=0.05 if timeout <= 0 else min(timeout, 0.5))  # type: ignore[attr-defined]
        except queue.Empty:
            return None

    def completion(self, uri: str, language: str, text: str, line: int, character: int,
                   reply: str = "") -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
        """Open `text` as `uri`, have the stub answer the agent's request with `reply`, ask for a
        completion at (line, character) in UTF-16 units, and return the body the agent POSTed
        (None: it sent nothing) and the `textDocument/completion` result items.

        Give each call its own uri: the agent's completion cache is keyed by file, text and
        cursor, and a hit would answer from an earlier reply."""
        self._version += 1
        self.server.replies.put(reply)  # type: ignore[attr-defined]
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": self._version, "text": text}})
        result = self.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        try:
            sent = self.server.bodies.get(timeout=0.05)  # type: ignore[attr-defined]
        except queue.Empty:
            sent = None
        while not self.server.replies.empty():  # a reply no request took must not answer the next one
            self.server.replies.get_nowait()  # type: ignore[attr-defined]
        items = result.get("items", []) if isinstance(result, dict) else list(result or [])
        return sent, items

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired):  # the agent died or hung
            self.proc.kill()
            self.proc.wait()
        finally:
            self.server.shutdown()
            self.server.server_close()


@contextmanager
def tabby_agent(home: Path, config_toml: str = "", endpoint: Callable[[str], str] | None = None) -> Iterator[TabbyAgentSession]:
    session = TabbyAgentSession(tabby_agent_cli(), home, config_toml, endpoint)
    try:
        yield session
    finally:
        session.close()
