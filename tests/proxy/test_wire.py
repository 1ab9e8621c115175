"""Reading an answer off the wire whatever framing and encoding it came in, and telling the
editor from a request."""

from __future__ import annotations

import gzip
import json

from replay.proxy.clients import detect
from replay.proxy.apis import recognise, route_of
from replay.proxy.wire import answer_objects, decoded_body


def test_framing_is_read_from_the_bytes_when_the_content_type_says_json() -> None:
    sse = b'data: {"content": "a"}\n\ndata: {"content": "b"}\n\ndata: [DONE]\n\n'
    ndjson = b'{"response": "a", "done": false}\n{"response": "b", "done": true}\n'
    assert [o["content"] for o in answer_objects("application/json", sse)] == ["a", "b"]
    assert [o["response"] for o in answer_objects("application/json", ndjson)] == ["a", "b"]
    assert list(answer_objects("application/json", b'[{"content": "first"}, {"content": "second"}]')) == [{"content": "first"}]
    assert list(answer_objects("text/event-stream; charset=utf-8", b"data: not json\n\n")) == []


def test_compressed_answers_are_undone_for_the_record() -> None:
    body = json.dumps({"choices": [{"index": 0, "text": "x"}]}).encode()
    packed = gzip.compress(body)
    assert decoded_body([packed[:5], packed[5:]], "gzip") == body
    assert decoded_body([body], "") == body and decoded_body([b"??"], "br") is None


def test_routes_under_a_base_path_and_shared_paths() -> None:
    assert route_of("/openai/v1/completions") == "/v1/completions" and route_of("/v1/fim/completions/") == "/v1/fim/completions"
    assert route_of("/v1/models") is None
    # llama.cpp's `/completions` alias carries n_predict, OpenAI's max_tokens
    assert recognise("/completions", {"prompt": "x", "n_predict": 4})[0].name == "llama.cpp"  # type: ignore[index]
    assert recognise("/completions", {"prompt": "x", "max_tokens": 4})[0].name == "openai"  # type: ignore[index]
    assert recognise("/v1/completions", {"segments": {"prefix": "x"}})[0].name == "tabby"  # type: ignore[index]


def test_editor_told_by_user_agent_then_by_what_only_its_requests_carry() -> None:
    infill = recognise("/infill", {"input_prefix": "a", "input_suffix": "b", "n_cmpl": 1})[1]  # type: ignore[index]
    assert detect({"User-Agent": "Continue/1.3.32 (vscode)"}, None) == ("continue", "1.3.32")
    assert detect({"User-Agent": "tabby-agent/1.5.0"}, None) == ("tabby", "1.5.0")
    assert detect({"User-Agent": "axios/1.8.4"}, infill) == ("llama.vscode", None)
    plain = recognise("/infill", {"input_prefix": "a"})[1]  # type: ignore[index]
    assert detect({"User-Agent": "curl/8.5.0"}, plain) == ("llama.vim", None)
    assert detect({"User-Agent": "python-httpx/0.28.1"}, plain) == ("unknown", None)
