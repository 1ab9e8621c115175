"""`fimreplay session` end to end, as separate processes: typing sessions in, what the editor did
in time out (requests, shown items, the document), bad lines named by file:line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_render_verify import write_lines

DOC = "def add(a, b):\n    \n"
SESSION = {"id": "s1", "filepath": "t.py", "language": "python", "options": {},
           "events": [{"t_ms": 0, "type": "open", "document": DOC, "cursor": len(DOC) - 1},
                      {"t_ms": 500, "type": "type", "text": "r"},
                      {"t_ms": 1500, "type": "accept"}],
           "answers": [{"delay_ms": 0, "text": ""}, {"delay_ms": 0, "text": ""},
                       {"delay_ms": 50, "text": "eturn a + b"}]}


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_llama_vim_is_driven_through_each_session(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [SESSION, {**SESSION, "id": "s2"}])
    out = tmp_path / "out.jsonl"
    proc = cli("session", str(src), "--editor", "llama.vim", "-o", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["simulated"] == 2
    rows = rows_of(out)
    assert [r["id"] for r in rows] == ["s1", "s2"]
    row = rows[0]
    assert row["editor"] == "llama.vim" and row["document"] == "def add(a, b):\n    return a + b\n"
    assert [(r["n"], r["t_ms"], r["body"]["prompt"], r["outcome"]) for r in row["requests"][:3]] == [
        (1, 35.0, "", "not_shown"), (2, 70.0, "    ", "not_shown"), (3, 535.0, "    r", "shown")]
    assert row["shown"][0] == {"t_ms": 585.0, "after_event": 1, "request": 3, "shown_text": "eturn a + b",
                               "replace_before": 0, "replace_after": 0}


def test_bad_lines_stop_with_file_and_line_or_are_kept(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [SESSION, {**SESSION, "events": SESSION["events"][1:]}, "{not json"])
    stop = cli("session", str(src), "--editor", "llama.vim")
    assert stop.returncode == 2
    assert stop.stderr.strip() == f"fimreplay: {src}:2: the first event must be an `open` (the document and the cursor)"
    out = tmp_path / "out.jsonl"
    kept = cli("session", str(src), "--editor", "llama.vim", "-o", str(out), "--keep-going", "--json")
    assert kept.returncode == 0, kept.stderr
    summary = json.loads(kept.stdout)
    assert summary["simulated"] == 1 and summary["rejected"] == 2
    assert [r["where"] for r in rows_of(Path(summary["rejects_file"]))] == [f"{src}:2", f"{src}:3"]
    assert "Traceback" not in kept.stderr + stop.stderr


def test_an_editor_whose_timing_is_not_modelled_is_refused(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [SESSION])
    proc = cli("session", str(src), "--editor", "standard", "--model", "qwen2.5-coder")
    assert proc.returncode == 2 and "no timing" in proc.stderr and "Traceback" not in proc.stderr


def test_an_editor_that_renders_for_a_model_needs_one(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [SESSION])
    proc = cli("session", str(src), "--editor", "tabby")
    assert proc.returncode == 2 and "--model" in proc.stderr and "Traceback" not in proc.stderr
