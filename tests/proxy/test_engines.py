"""The proxy between real programs: llama.cpp's own server (tools/server, in process from the
xllamacpp wheel, with the demo GGUF) as the upstream of the OpenAI routes, streaming and not, and
the real tabby-agent 1.5.0 (npm) as the editor, over LSP, through the proxy to a Tabby server.

The server's own `/completion` and `/infill` are tested against a loopback upstream in their
shape (tests/proxy/test_apis.py). A Tabby server
cannot run here: the agent's upstream is the stub Tabby server of tests/tabby_agent_lsp.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from replay.assets import DEMO_MODEL, asset_path
from replay.records import Segments
from tests.support.proxy_helpers import captures, running_proxy
from tests.support.tabby_agent_lsp import tabby_agent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    from tests.editors.llama_server.live import llama_server as server

    with server(str(asset_path(DEMO_MODEL.name)), {"server.n_ctx": 1024}) as address:
        yield address if address.startswith("http") else f"http://{address}"


def _streamed_text(raw: str, chat: bool) -> str:
    out = []
    for line in raw.splitlines():
        if line.startswith("data: {"):
            choice = json.loads(line[6:])["choices"][0]
            out.append((choice.get("delta") or {}).get("content") or "" if chat else choice["text"])
    return "".join(out)


@pytest.mark.parametrize("route,stream", [("/v1/completions", False), ("/v1/completions", True),
                                          ("/v1/chat/completions", False), ("/v1/chat/completions", True)])
def test_llama_cpp_server_through_the_proxy(llama_server: str, route: str, stream: bool, tmp_path: Path) -> None:
    chat = "chat" in route
    body: dict[str, object] = {"max_tokens": 12, "temperature": 0, "seed": 0, "stream": stream, "stop": ["\n\n"]}
    if chat:
        body["messages"] = [{"role": "user", "content": "Write a Python function that adds two numbers."}]
    else:
        body["prompt"] = "<|fim_prefix|>def add(a, b):\n    <|fim_suffix|>\n\nprint(add(1, 2))\n<|fim_middle|>"
    headers = {"Authorization": "Bearer sk-proj-llamaSERVERkey0123456789"}
    direct = httpx.post(llama_server + route, json=body, headers=headers, timeout=120)
    with running_proxy(tmp_path / "s.db", llama_server) as proxy:
        via = httpx.post(f"http://{proxy.address}{route}", json=body, headers=headers, timeout=120)
    assert via.status_code == direct.status_code == 200
    if stream:
        received = _streamed_text(via.text, chat)
        assert received == _streamed_text(direct.text, chat) and via.text.rstrip().endswith("data: [DONE]")
    else:
        choice = via.json()["choices"][0]
        received = choice["message"]["content"] if chat else choice["text"]
        assert received == (direct.json()["choices"][0]["message"]["content"] if chat else direct.json()["choices"][0]["text"])
    assert received
    [(rec, _)] = captures(tmp_path / "s.db")
    wire = rec.extra["wire"]
    assert (wire["route"], wire["api"], wire["http_status"], wire["stream"]) == (route, "openai", 200, stream)
    assert rec.completion == received and wire["params"] == {"stop": ["\n\n"], "max_tokens": 12, "temperature": 0}
    assert rec.logged_prompt == (body["messages"][0]["content"] if chat else body["prompt"])  # type: ignore[index]


def test_tabby_agent_through_the_proxy(tmp_path: Path) -> None:
    """The real agent's completion request goes through the proxy unchanged (the stub server
    gets the very body), the agent gets the server's answer, and the capture holds the
    request's segments and the answered text, as a Tabby capture."""
    db = tmp_path / "s.db"
    with ExitStack() as stack:
        def via(upstream: str) -> str:
            return f"http://{stack.enter_context(running_proxy(db, upstream)).address}"

        with tabby_agent(tmp_path / "home", endpoint=via) as agent:
            text = "def add(a, b):\n    \n\nprint(add(1, 2))\n"
            sent, items = agent.completion("file:///w/add.py", "python", text, 1, 4, reply="return a + b")
    assert sent is not None and "segments" in sent
    assert items and "return a + b" in json.dumps(items[0])  # the agent got the server's answer
    recs = [rec for rec, _ in captures(db)]
    [rec] = [r for r in recs if r.format == "proxy"]
    assert rec.editor == "tabby" and rec.language == "python" and rec.completion == "return a + b"
    assert rec.segments == Segments(prefix=sent["segments"]["prefix"], suffix=sent["segments"].get("suffix"),
                                    filepath=sent["segments"].get("filepath"), git_url=sent["segments"].get("git_url"))
    assert json.loads(rec.raw) == sent
