"""Rejected lines are said on stderr, counted with where they are kept, and kept beside the
store the command was given (`--db`), not in the user data folder; a file none of whose lines
could be used is bad input (exit 2, as for `run`)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import CAPTURES

GOOD = {"id": "ok", "prefix": "def add(a, b):\n    ", "suffix": "\n", "language": "python"}
BAD = {"id": "bad", "prefix": "x", "suffix": "", "path": "a.py"}  # `path` is no input key: `filepath` is


def _write(tmp_path: Path, *rows: dict) -> Path:
    src = tmp_path / "cursors.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return src


def test_rejected_lines_are_counted_on_stderr_with_their_file(cli, tmp_path: Path, home: Path) -> None:
    src = _write(tmp_path, BAD, GOOD)
    db = tmp_path / "elsewhere" / "s.db"
    for output in ((), ("-o", str(tmp_path / "out.jsonl"))):
        proc = cli("render", str(src), "--editor", "tabby", "--model", "qwen2.5-coder", "--keep-going", "--db", str(db),
                   *output)
        assert proc.returncode == 0, proc.stderr
        kept = tmp_path / "out.jsonl.rejects.jsonl" if output else db.parent / "rejects" / "render-cursors.jsonl"
        assert f"fimreplay: {src}:1: unknown key(s) 'path'" in proc.stderr.splitlines()
        assert f"fimreplay: rejected 1 of the 2 lines of {src} (kept in {kept})" in proc.stderr.splitlines()
        assert [json.loads(x)["where"] for x in kept.read_text(encoding="utf-8").splitlines()] == [f"{src}:1"]
    assert not (home / "data" / "rejects").exists()


def test_json_summary_keeps_stdout_for_the_rows_and_says_the_rejects(cli, tmp_path: Path) -> None:
    src = _write(tmp_path, GOOD, BAD)
    proc = cli("render", str(src), "--editor", "tabby", "--model", "qwen2.5-coder", "--keep-going", "--json")
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x)["id"] for x in proc.stdout.splitlines()] == ["ok"]
    assert "rejected 1 of the 2 lines" in proc.stderr


def test_a_file_of_rejected_lines_only_is_bad_input(cli, tmp_path: Path) -> None:
    src = _write(tmp_path, BAD, BAD)
    proc = cli("render", str(src), "--editor", "tabby", "--model", "qwen2.5-coder", "--keep-going")
    assert proc.returncode == 2 and proc.stdout == ""
    assert f"fimreplay: {src}: every line was rejected, nothing rendered" in proc.stderr
    raw = _write(tmp_path, {**GOOD, "raw": 3})
    proc = cli("postprocess", str(raw), "--editor", "tabby", "--received", "--keep-going")
    assert proc.returncode == 2 and "nothing postprocessed" in proc.stderr and "'raw' must be a string" in proc.stderr


def test_import_rejects_follow_the_store(cli, tmp_path: Path, home: Path) -> None:
    db = tmp_path / "kept" / "s.db"
    proc = cli("import", str(CAPTURES / "bad"), "--db", str(db), "--json")
    summary = json.loads(proc.stdout)
    assert summary["rejected"] > 0 and Path(summary["rejects_file"]).parent == db.parent / "rejects"
    assert not (home / "data" / "rejects").exists()
