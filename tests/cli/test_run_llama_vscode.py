"""End to end: benchmark items replayed as llama.vscode asks llama-server (in process, the demo
model) and scored on what the extension shows."""

from __future__ import annotations

import json
from pathlib import Path

# Every code line is followed by a blank one: a line-mode item's cursor (the start of the line
# after its middle) then has no text after it, and llama.vscode sends its request.
SOURCE = "import math\n\ndef area(r):\n\n    return math.pi * r * r\n\ndef double(x):\n\n    return 2 * x\n\n"


def test_run_and_score_llama_vscode(cli, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "shapes.py").write_text(SOURCE, encoding="utf-8")
    items = tmp_path / "items.jsonl"
    made = cli("evalgen", str(tmp_path / "src"), "--ext", "py", "--per-file", "2", "-o", str(items), "--json")
    assert made.returncode == 0, made.stderr
    done = cli("run", str(items), "--editor", "llama.vscode", "--model", "default", "--max-new-tokens", "8",
               "--run-id", "lv", "--threads", "1", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["completed"] == 2
    items_sent = [json.loads(line) for line in items.read_text(encoding="utf-8").splitlines()]
    assert all(item["suffix"].startswith("\n") for item in items_sent)
    scored = cli("score", "lv", "--json")
    assert scored.returncode == 0, scored.stderr
    summary = json.loads(scored.stdout)
    assert summary["profile"] == "llama.vscode" and summary["items_done"] == 2 and summary["n_errors"] == 0
    assert summary["n_scored"] == 2
