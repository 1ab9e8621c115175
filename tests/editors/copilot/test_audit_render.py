"""`fimreplay render --editor copilot` piped into `fimreplay audit -`: the audit reads render's
output lines (the prompt under `prompt`) as they come."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "golden" / "copilot"


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


def test_the_audit_lists_what_copilots_layout_does_to_the_target_tokenizer(cli, tmp_path: Path) -> None:
    cases = [line for line in (DATA / "cases.jsonl").read_text(encoding="utf-8").splitlines()
             if json.loads(line)["item_id"] in ("py-open3", "py-long-elision")]
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(cases) + "\n", encoding="utf-8")
    rendered = cli("render", str(source), "--editor", "copilot", "--model", "qwen2.5-coder")
    assert rendered.returncode == 0, rendered.stderr
    bad = json.loads(rendered.stdout.splitlines()[0])
    bad["request"] = {"prompt": 1}  # not Copilot's body: rejected, the rest audited
    piped = rendered.stdout + json.dumps(bad) + "\n"
    audited = cli("audit", "-", "--render-input", str(source), "--tokenizer", "starcoder2", "--json",
                  "--db", str(tmp_path / "s.db"), input=piped)
    assert audited.returncode == 0, audited.stderr
    summary = json.loads(audited.stdout)["summary"]
    assert (summary["subjects"], summary["rejects"]) == (2, 1)
    by_kind = summary["by_kind"]
    assert (by_kind["marker-pieces"], by_kind["elision-cut"], by_kind["elision-splits-token"], by_kind["budget-mismatch"]) == (3, 5, 1, 2)
    lines = cli("audit", "-", "--render-input", str(source), "--tokenizer", "starcoder2", "--db", str(tmp_path / "s.db"),
                input=rendered.stdout).stdout.splitlines()
    assert any(": warning: elision-splits-token @char " in line and "prefix cut falls inside" in line for line in lines)
    alone = cli("audit", "-", "--tokenizer", "starcoder2", "--json", "--db", str(tmp_path / "s.db"), input=rendered.stdout)
    assert json.loads(alone.stdout)["summary"]["by_kind"]["elision-cut"] == 0  # where it cut needs the render input
