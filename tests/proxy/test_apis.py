"""The recording proxy on each API editors use, between an HTTP client posting the editor's
real request shape (from the editor's source, cited per case) and a real loopback upstream that
answers in that API's shape (tests/proxy_upstream.py: the API's own server cannot run here).

Each case checks that the upstream got the body byte for byte and the credentials, that the
client got the same bytes it gets from the upstream directly, and what was recorded: route,
API, parameters, prompt side, the text assembled from the stream, timings, the editor."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from replay.records import Segments, Snippet
from tests.support.proxy_helpers import captures, running_proxy
from tests.support.proxy_upstream import Behaviour, ShapeUpstream

PREFIX = "def add(a, b):\n    "
SUFFIX = "\n\nprint(add(1, 2))\n"
TEXT = "def add(a, b):\n    return a + b"
KEY = "sk-proj-SECRETsecretSECRET0123456789"

# (case, route, headers, body, what the capture must hold)
CASES: list[tuple[str, str, dict[str, str], dict[str, Any], dict[str, Any]]] = [
    # continuedev/continue core/llm/llms/Ollama.ts `_streamFim` / `_getGenerateOptions`
    ("continue-ollama-fim", "/api/generate", {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}",
                                               "User-Agent": "Continue/1.0.16"},
     {"model": "qwen2.5-coder:1.5b", "prompt": PREFIX, "suffix": SUFFIX,
      "options": {"temperature": 0.01, "num_predict": 4096, "stop": ["\n\n"], "num_ctx": 8096}, "keep_alive": 1800,
      "stream": True},
     {"api": "ollama", "kind": "fim", "editor": "continue", "version": "1.0.16", "prefix": PREFIX, "suffix": SUFFIX,
      "params": {"stop": ["\n\n"], "max_tokens": 4096, "temperature": 0.01}}),
    # the same provider's raw route: the templated prompt with raw: true (Ollama.ts `_streamComplete`)
    ("continue-ollama-raw", "/api/generate", {"Content-Type": "application/json"},
     {"model": "qwen2.5-coder:1.5b", "prompt": f"<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>", "raw": True,
      "options": {"num_predict": 128}, "stream": False},
     {"api": "ollama", "kind": "raw", "editor": "unknown", "prompt": f"<|fim_prefix|>{PREFIX}<|fim_suffix|>{SUFFIX}<|fim_middle|>",
      "prefix": PREFIX, "suffix": SUFFIX, "params": {"max_tokens": 128}}),  # the parts, found in the model's template
    # Ollama.ts `_streamChat` (the hole-filler's chat route)
    ("ollama-chat", "/api/chat", {"Content-Type": "application/json"},
     {"model": "qwen2.5-coder:1.5b", "messages": [{"role": "system", "content": "You fill holes."},
                                                  {"role": "user", "content": "fill {{FILL_HERE}}"}],
      "options": {"num_predict": 64}, "stream": True},
     {"api": "ollama", "kind": "chat", "prompt": "fill {{FILL_HERE}}", "params": {"max_tokens": 64}}),
    # continuedev/continue core/llm/llms/OpenAI.ts `_legacystreamComplete` (completions, streamed)
    ("openai-completions-stream", "/v1/completions", {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"},
     {"model": "qwen", "prompt": "<|fim_prefix|>x<|fim_suffix|>y<|fim_middle|>", "max_tokens": 128, "temperature": 0.01,
      "stop": "<|endoftext|>", "stream": True},
     {"api": "openai", "kind": "raw", "params": {"stop": ["<|endoftext|>"], "max_tokens": 128, "temperature": 0.01}}),
    ("openai-completions-json", "/v1/completions", {"Content-Type": "application/json"},
     {"model": "qwen", "prompt": "x", "suffix": "y", "max_tokens": 16},
     {"api": "openai", "kind": "fim", "prefix": "x", "suffix": "y", "params": {"max_tokens": 16}}),
    ("openai-chat-stream", "/v1/chat/completions", {"Content-Type": "application/json", "api-key": KEY},
     {"model": "gpt", "messages": [{"role": "user", "content": [{"type": "text", "text": "complete"}]}], "max_completion_tokens": 32,
      "stream": True},
     {"api": "openai", "kind": "chat", "prompt": "complete", "params": {"max_tokens": 32}}),
    # OpenAI.ts `_streamFim` (fim/completions, with x-api-key) and Mistral.ts for Codestral
    ("continue-fim-completions", "/v1/fim/completions", {"Content-Type": "application/json", "Accept": "application/json",
                                                         "x-api-key": KEY, "Authorization": f"Bearer {KEY}"},
     {"model": "codestral-latest", "prompt": PREFIX, "suffix": SUFFIX, "max_tokens": 256, "temperature": 0.01,
      "stop": ["[PREFIX]", "[SUFFIX]"], "stream": True},
     {"api": "mistral", "kind": "fim", "prefix": PREFIX, "suffix": SUFFIX,
      "params": {"stop": ["[PREFIX]", "[SUFFIX]"], "max_tokens": 256, "temperature": 0.01}}),
    # continuedev/continue core/llm/llms/LlamaCpp.ts `_streamComplete`
    ("continue-llamacpp", "/completion", {"Content-Type": "application/json", "Authorization": "Bearer undefined"},
     {"model": "qwen", "prompt": "<|fim_prefix|>a<|fim_suffix|>b<|fim_middle|>", "stream": True, "n_predict": 128,
      "stop": ["<|endoftext|>"], "temperature": 0.01},
     {"api": "llama.cpp", "kind": "raw", "params": {"stop": ["<|endoftext|>"], "max_tokens": 128, "temperature": 0.01}}),
    # ggml-org/llama.vscode src/llama-server.ts `createRequestPayload` (axios)
    ("llama.vscode-infill", "/infill", {"Content-Type": "application/json", "User-Agent": "axios/1.8.4"},
     {"id_slot": 0, "input_prefix": PREFIX, "input_suffix": SUFFIX,
      "input_extra": [{"filename": "util.py", "text": "def sub(a, b):\n    return a - b\n"}], "prompt": "", "n_predict": 128,
      "n_cmpl": 1, "top_k": 40, "top_p": 0.99, "stream": False, "samplers": ["top_k", "top_p", "infill"], "cache_prompt": True,
      "n_indent": 4, "t_max_prompt_ms": 500, "t_max_predict_ms": 1000},
     {"api": "llama.cpp", "kind": "fim", "editor": "llama.vscode", "prefix": PREFIX, "suffix": SUFFIX,
      "snippets": (Snippet("util.py", "def sub(a, b):\n    return a - b\n", "extra"),), "params": {"max_tokens": 128}}),
    # ggml-org/llama.vim autoload/llama.vim `llama#fim` (curl)
    ("llama.vim-infill", "/infill", {"Content-Type": "application/json", "User-Agent": "curl/8.5.0"},
     {"id_slot": 0, "input_prefix": PREFIX, "input_suffix": SUFFIX, "input_extra": [], "prompt": "", "n_predict": 128,
      "stop": [], "n_indent": 4, "top_k": 40, "top_p": 0.90, "samplers": ["top_k", "top_p", "infill"], "stream": True,
      "cache_prompt": True, "t_max_prompt_ms": 500, "t_max_predict_ms": 1000, "response_fields": ["content", "timings/prompt_n"]},
     {"api": "llama.cpp", "kind": "fim", "editor": "llama.vim", "prefix": PREFIX, "suffix": SUFFIX,
      "params": {"stop": [], "max_tokens": 128}}),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_each_api_forwarded_unchanged_and_recorded(case: tuple, tmp_path: Path) -> None:
    _, route, headers, body, want = case
    data = json.dumps(body).encode()
    with ShapeUpstream(Behaviour(pieces=["def add(a, b):", "\n    return", " a + b"])) as up:
        direct = httpx.post(up.url + route, content=data, headers=headers)
        with running_proxy(tmp_path / "s.db", up.url) as proxy:
            via = httpx.post(f"http://{proxy.address}{route}", content=data, headers=headers)
    assert via.status_code == direct.status_code == 200
    assert via.content == direct.content  # the answer, byte for byte
    assert via.headers["content-type"] == direct.headers["content-type"]
    sent = up.seen[-1]
    assert sent.body == data and sent.path == route
    for key, value in headers.items():
        assert sent.headers.get(key) == value  # credentials too: forwarded, never kept
    [(rec, _)] = captures(tmp_path / "s.db")
    wire = rec.extra["wire"]
    assert (rec.format, wire["route"], wire["http_status"], wire["api"], wire["kind"]) == ("proxy", route, 200, want["api"], want["kind"])
    assert wire["params"] == want["params"]
    assert wire["stream"] == (body.get("stream", route.startswith("/api/")) is not False)
    assert rec.completion == TEXT
    assert 0 <= wire["timings"]["ttfb_s"] <= wire["timings"]["total_s"]
    assert rec.editor == want.get("editor", "unknown") and rec.editor_version == want.get("version")
    assert rec.model == body.get("model")
    if "prefix" in want:
        assert rec.segments == Segments(prefix=want["prefix"], suffix=want["suffix"], snippets=want.get("snippets", ()))
    # FIM routes carry no templated prompt: their prompt field is the prefix, in segments
    assert rec.logged_prompt == (None if want["kind"] == "fim" else want.get("prompt", body.get("prompt")))
    assert KEY not in rec.raw and json.loads(rec.raw).keys() == body.keys()


def test_tabby_completion_and_events_joined_as_outcomes(tmp_path: Path) -> None:
    """The Tabby client's completion (TabbyML/tabby crates/tabby/src/services/completion.rs
    CompletionRequest) and its view/select posts (crates/tabby-common/src/api/event.rs
    LogEventRequest, `select_kind` in the query) give one capture whose outcome is joined
    as the importer joins the server's log."""
    body = {"language": "python", "segments": {"prefix": PREFIX, "suffix": SUFFIX, "filepath": "src/add.py",
                                               "git_url": "https://github.com/a/b",
                                               "declarations": [{"filepath": "src/util.py", "body": "def sub(a, b): ..."}]}}
    with ShapeUpstream() as up, running_proxy(tmp_path / "s.db", up.url) as proxy:
        base = f"http://{proxy.address}"
        answer = httpx.post(base + "/v1/completions", json=body, headers={"Authorization": f"Bearer {KEY}"}).json()
        cid = answer["id"]
        for event, query in (({"type": "view", "completion_id": cid, "choice_index": 0, "view_id": "v1"}, ""),
                             ({"type": "select", "completion_id": cid, "choice_index": 0, "view_id": "v1", "elapsed": 900},
                              "?select_kind=line")):
            assert httpx.post(base + "/v1/events" + query, json=event).status_code == 200
        assert [s.path for s in up.seen] == ["/v1/completions", "/v1/events", "/v1/events?select_kind=line"]
    [(rec, outcome)] = captures(tmp_path / "s.db")
    assert (rec.editor, rec.completion_id, rec.language, rec.filepath) == ("tabby", cid, "python", "src/add.py")
    assert rec.segments == Segments(prefix=PREFIX, suffix=SUFFIX, snippets=(Snippet("src/util.py", "def sub(a, b): ...", "declaration"),),
                                    git_url="https://github.com/a/b", filepath="src/add.py")
    assert rec.completion == "def add(a, b):\n    return a + b"
    assert outcome == "accepted_line"


def test_other_requests_forwarded_not_recorded(tmp_path: Path) -> None:
    with ShapeUpstream() as up, running_proxy(tmp_path / "s.db", up.url) as proxy:
        got = httpx.get(f"http://{proxy.address}/v1/models?x=1")
        posted = httpx.post(f"http://{proxy.address}/v1/embeddings", json={"input": "x"})
        odd = httpx.post(f"http://{proxy.address}/v1/completions", content=b"not json")
    assert got.status_code == 200 and got.json() == {"status": "ok"} and posted.status_code == 200 and odd.status_code == 400
    assert [s.path for s in up.seen] == ["/v1/models?x=1", "/v1/embeddings", "/v1/completions"]
    assert captures(tmp_path / "s.db") == []
    # The body a completion route could not record: forwarded as sent, and a reject saying why.
    [reject] = [json.loads(line) for line in (tmp_path / "s.db.rejects.jsonl").read_text(encoding="utf-8").splitlines()]
    assert reject["where"].endswith("/v1/completions:3") and reject["reason"].startswith("not JSON") and reject["raw"] == "not json"
