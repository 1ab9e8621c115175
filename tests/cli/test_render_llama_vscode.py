"""End to end: `fimreplay render --editor llama.vscode` on document+cursor lines, request-only
lines, a cursor the extension sends nothing for and a body llama-server refuses; `postprocess`
on the same editor."""

from __future__ import annotations

import json
from pathlib import Path

from replay.assets import DEMO_MODEL, asset_path

LINES = [
    {"id": "doc", "document": "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    ret\n", "cursor": 55,
     "filepath": "/w/m.py", "extra": [{"text": "import math\n", "time": 1700000000000, "filename": "/w/util.py"}],
     "options": {"server.n_ctx": 2048, "server.n_batch": 1024}},
    {"id": "skip", "document": "x = foo(1, 2, 3, 4)\n", "cursor": 4},
    {"id": "req", "request": {"input_prefix": "def f():\n", "input_suffix": "\n", "input_extra": [], "prompt": "    ret",
                              "n_predict": 16}, "options": {"server.n_ctx": 512, "server.n_batch": 512}},
    {"id": "big", "request": {"input_prefix": "x = 1\n", "input_suffix": "\n", "prompt": "y = 2 " * 200, "n_predict": 16},
     "options": {"server.n_ctx": 256, "server.n_batch": 256}},
]


def test_render_llama_vscode(cli, tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in LINES), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    gguf = str(asset_path(DEMO_MODEL.name))
    done = cli("render", str(src), "--editor", "llama.vscode", "--model", gguf, "--keep-going", "-o", str(out))
    assert done.returncode == 0, done.stderr
    doc, skip, req = (json.loads(x) for x in out.read_text(encoding="utf-8").splitlines())
    assert doc["profile"] == "llama.vscode@v0.0.63" and doc["request"]["prompt"] == "    ret"
    assert doc["request"]["input_extra"] == LINES[0]["extra"] and doc["request"]["n_indent"] == 4
    assert doc["prompt"] == ("<|repo_name|>myproject\n<|file_sep|>/w/util.py\nimport math\n<|file_sep|>filename\n"
                             "<|fim_prefix|>def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    ret"
                             "<|fim_suffix|>\n\n<|fim_middle|>")
    assert doc["token_ids"][0] == 151663  # <|repo_name|>
    assert skip["request"] is None and skip["prompt"] == "" and "TOO_LONG_SUFFIX_RETURN" in skip["version_why"]
    assert req["request"] == LINES[2]["request"] and req["max_new_tokens"] == 16
    rejects = [json.loads(x) for x in (tmp_path / "out.jsonl.rejects.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["where"].rsplit(":", 1)[1] for r in rejects] == ["4"]
    assert "exceeds the available context size" in rejects[0]["reason"]

    old = cli("render", str(src), "--editor", "llama.vscode", "--model", gguf, "--editor-version", "v0.0.6,server=2025-02-01",
              "--keep-going")
    assert old.returncode == 0, old.stderr
    row = json.loads(old.stdout.splitlines()[0])
    assert row["profile"] == "llama.vscode@v0.0.6" and "id_slot" not in row["request"] and "n_cmpl" not in row["request"]


def test_postprocess_llama_vscode(cli, tmp_path: Path) -> None:
    lines = [{"id": "a", "prefix": "x = ", "suffix": ")\n\nend\n", "raw": "foo(1)\nbar"},
             {"id": "b", "prefix": "def f():\n    ", "suffix": "\n", "raw": "    return 1\n\n"}]
    src = tmp_path / "raw.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    done = cli("postprocess", str(src), "--editor", "llama.vscode", "--received")
    assert done.returncode == 0, done.stderr
    a, b = (json.loads(x) for x in done.stdout.splitlines())
    assert a["shown_text"] == "foo(1" and a["trace"][-1]["step"] == "updateSuggestion"
    assert b["shown_text"] == "return 1"
