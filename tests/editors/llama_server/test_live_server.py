"""The real llama.cpp server (xllamacpp, in process, on loopback) asked again: render_body
agrees with its /infill answers on fresh cases, and the OpenAI-compatible backend replays a
rendered llama client prompt through its /infill route, whole and streamed, also as
`fimreplay run` of rendered lines."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from replay.assets import DEMO_MODEL, asset_path
from replay.backends.base import GenParams
from replay.backends.openai_compat import OpenAICompatBackend
from replay.editors.inputs import output_row
from replay.editors.llama_server import InfillRefused, render_body, server_stop
from replay.run.runner import editor_stops
from tests.editors.llama_server.live import answer, llama_server


OPTIONS = {"server.n_ctx": 256, "server.n_batch": 64}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with llama_server(str(asset_path(DEMO_MODEL.name)), OPTIONS) as url:
        yield url


BODIES = [
    {"input_prefix": "import os\n\ndef main():\n", "input_suffix": "\n\nmain()\n", "prompt": "    ", "n_predict": 0,
     "input_extra": [{"text": "def helper(a, b):\n    return a + b\n", "filename": "util.py"}, {"text": "X = 3\n"}]},
    {"input_prefix": "class A:\n    def f(self):\n" * 20, "input_suffix": "\n# end\n" * 30, "prompt": "", "n_predict": 0,
     "input_extra": [{"text": f"v{i} = {i}\n" * 8, "filename": f"m{i}.py"} for i in range(16)]},
    {"input_prefix": "x", "input_suffix": "y", "prompt": "z = 1\n" * 200, "n_predict": 0},
    {"input_prefix": "x", "input_suffix": "y", "n_predict": 0, "n": 2, "n_indent": 4},
    {"input_prefix": "x", "input_suffix": "y", "max_tokens": -5, "min_keep": -1},
]


@pytest.mark.parametrize("body", BODIES, ids=["two-chunks", "sixteen-chunks-cut", "refused", "two-completions",
                                              "schema-limits"])
def test_render_body_matches_the_live_server(server: str, body: dict) -> None:
    said = answer(server, body)
    gguf = str(asset_path(DEMO_MODEL.name))
    if said["status"] == 200:
        got = render_body(body, gguf, OPTIONS)
        assert (got.text, len(got.token_ids)) == (said["prompt"], said["tokens_evaluated"])
    else:
        with pytest.raises(InfillRefused) as refused:
            render_body(body, gguf, OPTIONS)
        assert refused.value.reason == said["error"]["message"]


def test_the_backend_replays_through_infill(server: str) -> None:
    body = {"input_prefix": "def add(a, b):\n", "input_suffix": "\n\nprint(add(1, 2))\n", "prompt": "    ",
            "n_indent": 4, "n_predict": 24, "t_max_predict_ms": 1, "id_slot": 3, "top_k": 40}
    gguf = str(asset_path(DEMO_MODEL.name))
    prompt = render_body(body, gguf, OPTIONS, item_id="add")
    backend = OpenAICompatBackend("demo", "demo", [server])
    try:
        whole = backend.complete(prompt, GenParams())
        streamed = backend.complete_streaming(prompt, GenParams(), editor_stops((), server_stop(body)))
    finally:
        backend.close()
    assert whole.error is None and whole.raw_text and 0 < whole.n_tokens <= 24
    assert whole.finish_reason in ("stop", "length")
    assert streamed.raw_text.startswith(whole.raw_text[:1]) and streamed.timing


def test_fimreplay_run_replays_rendered_client_prompts_through_infill(server: str, cli, tmp_path) -> None:
    gguf = str(asset_path(DEMO_MODEL.name))
    bodies = [{"input_prefix": "def add(a, b):\n", "input_suffix": "\n\nprint(add(1, 2))\n", "prompt": "    ",
               "n_indent": 4, "n_predict": 16},
              {"input_prefix": "class A:\n    def f(self):\n", "input_suffix": "\n", "prompt": "        ", "n_indent": 8,
               "n_predict": 16, "input_extra": [{"text": "X = 1\n", "filename": "x.py"}]}]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("".join(json.dumps(output_row(render_body(b, gguf, OPTIONS, item_id=f"i{i}"), i + 1)) + "\n"
                            for i, b in enumerate(bodies)), encoding="utf-8")
    done = cli("run", str(rows), "--backend", "openai", "--endpoint", server, "--model", "demo", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["completed"], summary["errors"]) == (2, 0)
