"""End to end: `fimreplay render --editor llama.vim` on render inputs derived from the real
plugin (tests/data/golden/llama.vim): each line's `request` is the body the plugin sent, with the
prompt and token ids llama-server assembles from it; lines the plugin sends nothing for, or the
server refuses, are rejected with their reason."""

from __future__ import annotations

import json
from pathlib import Path

from replay.assets import DEMO_MODEL, asset_path

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden" / "llama.vim" / "cases.jsonl"


def test_render_llama_vim_gives_the_plugins_body_and_the_servers_prompt(cli, tmp_path: Path) -> None:
    cases = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
    cases = [c for c in cases if c["version"] == "a1c8e6e"][:12]
    inputs = [{k: v for k, v in c.items() if k not in ("version", "sent")} for c in cases]
    inputs.append({"document": "x = 1\nprint(xy)\n", "cursor": 6, "id": "long-rest-of-line"})  # 9 bytes after: no auto request
    line = "y = " + "1 + " * 100
    inputs.append({"document": line + "\n", "cursor": len(line), "id": "too-big",  # the server refuses the prompt
                   "options": {"server.n_ctx": 64, "server.n_batch": 64}})
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in inputs), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    done = cli("render", str(src), "--editor", "llama.vim", "--editor-version", "a1c8e6e",
               "--model", str(asset_path(DEMO_MODEL.name)), "--keep-going", "-o", str(out))
    assert done.returncode == 0, done.stderr
    rows = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [c["id"] for c in cases]
    for row, case in zip(rows, cases):
        assert row["request"] == json.loads(case["sent"])
        assert row["profile"] == "llama.vim@a1c8e6e" and row["token_ids"]
        assert row["prompt"].endswith(row["request"]["input_suffix"] + "<|fim_middle|>")
    assert "rejected 2" in done.stdout + done.stderr
    rejects = next(tmp_path.glob("*reject*")).read_text(encoding="utf-8")
    assert "max_line_suffix" in rejects and "exceed" in rejects


def test_postprocess_llama_vim_shows_what_the_plugin_shows(cli, tmp_path: Path) -> None:
    lines = [{"id": "blank-line", "document": "def f(x):\n    \n    return x\n", "cursor": 14,
              "raw": "    y = x + 1\n    return y\n\n"},
             {"id": "repeats-next-line", "document": "def f(x):\n\n    return x\n", "cursor": 10, "raw": "    return x"},
             {"id": "rest-of-line", "document": "x = f()\n", "cursor": 6, "raw": "a, b\n"}]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    done = cli("postprocess", str(src), "--editor", "llama.vim", "--editor-version", "2026-01-31", "--received")
    assert done.returncode == 0, done.stderr
    rows = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert rows["blank-line"]["shown_text"] == "y = x + 1\n    return y" and rows["blank-line"]["multiline"]
    assert rows["repeats-next-line"]["shown_text"] is None
    assert (rows["rest-of-line"]["shown_text"], rows["rest-of-line"]["replace_after"]) == ("a, b)", 1)
