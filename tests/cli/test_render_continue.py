"""End to end: `fimreplay render --editor continue` and `fimreplay verify` on Continue captures."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import CAPTURES


def test_render_continue_jsonl(cli, tmp_path: Path) -> None:
    lines = [
        {"prefix": "contract A {\n    function f() public {\n        ", "suffix": "\n    }\n}\n",
         "filepath": "contracts/A.sol", "workspace": "/home/me/proj",
         "snippets": [{"filepath": "contracts/B.sol", "content": "contract B {}"}], "id": "one"},
        {"document": "def f(x):\n    return x\n", "cursor": 20, "filepath": "src/m.py",
         "options": {"provider": "mistral", "maxTokens": 128}},
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    done = cli("render", str(src), "--editor", "continue", "--model", "qwen2.5-coder:1.5b", "-o", str(out))
    assert done.returncode == 0, done.stderr
    first, second = (json.loads(x) for x in out.read_text(encoding="utf-8").splitlines())
    assert first["id"] == "one" and first["route"] == "raw" and first["family"] == "qwen2.5-coder"
    assert first["prompt"] == ("<|repo_name|>proj\n<|file_sep|>B.sol\ncontract B {}\n<|file_sep|>A.sol\n<|fim_prefix|>"
                               "contract A {\n    function f() public {\n        <|fim_suffix|>\n    }\n}\n<|fim_middle|>")
    assert first["stop"][-3:] == ["/src/", "#- coding: utf-8", "```"] and first["max_new_tokens"] == 4096
    assert second["route"] == "fim" and second["max_new_tokens"] == 128
    assert second["prefix_sent"] == "def f(x):\n    return" and second["suffix_sent"] == " x\n"

    old = cli("render", str(src), "--editor", "continue", "--model", "qwen2.5-coder:1.5b", "--editor-version", "0.8.40")
    assert old.returncode == 0, old.stderr
    row = json.loads(old.stdout.splitlines()[0])
    assert row["profile"] == "continue@0.8.40-vscode" and row["prompt"].startswith("<fim_prefix>// Path: B.sol\n// contract B {}\n//\n\ncontract A {")

    bad = cli("render", str(src), "--editor", "continue", "--model", "x", "--editor-version", "9.9.9")
    assert bad.returncode == 2 and "in.jsonl:1" in bad.stderr and "unknown Continue version" in bad.stderr


def test_verify_continue_captures(cli) -> None:
    imported = cli("import", str(CAPTURES / "continue"), "--json")
    assert imported.returncode == 0, imported.stderr
    done = cli("verify", "--editor", "continue", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["checked"] >= 4 and report["matched"] == report["checked"]
