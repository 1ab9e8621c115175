"""`fimreplay audit` reads `fimreplay render` output of every editor (the prompt under `prompt`,
the item's id under `id`), as `run` does, and still rejects a line that is no rendered prompt."""

from __future__ import annotations

import json
from pathlib import Path

from replay.records import RenderedPrompt, rendered_prompt_of
from replay.rejects import Rejects
from replay.tokens.audit_input import read_rendered_lines

CURSOR = {"item_id": "c1", "prefix": "def add(a, b):\n    return ", "suffix": "\n\nprint(add(1, 2))\n",
          "filepath": "src/calc.py", "language": "python"}


def test_audit_takes_every_editors_render_output(cli, tmp_path: Path) -> None:
    (tmp_path / "in.jsonl").write_text(json.dumps(CURSOR) + "\n", encoding="utf-8")
    lines = []
    for editor in ("tabby", "continue", "llama.vscode", "llama.vim", "standard"):
        out = cli("render", str(tmp_path / "in.jsonl"), "--editor", editor, "--model", "qwen2.5-coder")
        assert out.returncode == 0, (editor, out.stderr)
        lines += out.stdout.splitlines()
    (tmp_path / "rendered.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    audited = cli("audit", str(tmp_path / "rendered.jsonl"), "--tokenizer", "qwen2.5-coder", "--json",
                  "--db", str(tmp_path / "s.db"))
    assert audited.returncode == 0, audited.stderr
    summary = json.loads(audited.stdout)["summary"]
    assert (summary["subjects"], summary["rejects"]) == (5, 0)


def test_render_rows_and_stored_records_read_alike(tmp_path: Path) -> None:
    row = {"line": 3, "id": 7, "profile": "standard", "family": "qwen2.5-coder", "route": "raw", "prompt": "p",
           "prefix_sent": "a", "suffix_sent": "b", "stop": [], "max_new_tokens": 8}
    stored = RenderedPrompt(profile="standard", family="qwen2.5-coder", text="p", prefix_sent="a", suffix_sent="b",
                            max_new_tokens=8, item_id="7")
    assert rendered_prompt_of(row) == stored
    with Rejects(tmp_path / "rejects.jsonl") as rejects:
        lines = [json.dumps(row).encode(), json.dumps({"profile": "x"}).encode(), b"[1]", b"{",
                 json.dumps(row).replace('"p"', '"p\xff"', 1).encode("latin-1")]  # a byte that is not UTF-8
        subjects = list(read_rendered_lines(lines, "in", rejects))
        assert [s.text for s in subjects] == ["p"] and [r.line for r in rejects] == [2, 3, 4, 5]
        assert list(rejects)[-1].reason == "not a rendered prompt: invalid UTF-8 (byte 0xff in a string)"
