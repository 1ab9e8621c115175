"""`fimreplay render --editor copilot` piped into `fimreplay audit -`: the audit reads render's
output lines (the prompt under `prompt`) as they come."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "copilot_golden"


def test_render_output_piped_into_audit(cli, tmp_path: Path) -> None:
    cases = [line for line in (DATA / "cases.jsonl").read_text(encoding="utf-8").splitlines()
             if json.loads(line)["item_id"] in ("py-open1", "py-midline")]
    (tmp_path / "in.jsonl").write_text("\n".join(cases) + "\n", encoding="utf-8")
    rendered = cli("render", str(tmp_path / "in.jsonl"), "--editor", "copilot", "--model", "qwen2.5-coder")
    assert rendered.returncode == 0, rendered.stderr
    assert all("prompt" in json.loads(line) for line in rendered.stdout.splitlines())
    audited = cli("audit", "-", "--tokenizer", "qwen2.5-coder", "--json", "--db", str(tmp_path / "s.db"),
                  input=rendered.stdout)
    assert audited.returncode == 0, audited.stderr
    summary = json.loads(audited.stdout)["summary"]
    assert (summary["subjects"], summary["rejects"]) == (2, 0)
