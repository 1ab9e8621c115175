"""`fimreplay render` and `fimreplay verify` end to end, as separate processes."""

from __future__ import annotations

import json
from pathlib import Path

from replay.editors.inputs import BadInputLine, parse_line
from replay.tokens.diff import first_difference
from replay.records import CaptureRecord, Segments, Snippet, Source
from replay.store import open_store


def write_lines(path: Path, rows: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


GOOD = [
    {"id": "doc", "document": "contract A {\n  function f() \n}\n", "cursor": 28, "language": "solidity"},
    {"prefix": "x = 1\r\n", "suffix": "", "language": "python",
     "snippets": [{"filepath": "d.py", "content": "def d(): pass", "kind": "declaration"}]},
    {"prefix": "f(", "suffix": ")\nnext\n", "language": "solidity",
     "options": {"completion.prompt.experimentalStripAutoClosingCharacters": True}},
]
AGENT_1_5 = ("--editor-version", "agent=1.5.0,server=0.32.0")  # the agent that has the option above


def test_render_tabby_writes_one_line_per_input(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", GOOD)
    out = tmp_path / "out.jsonl"
    proc = cli("render", str(src), "--editor", "tabby", *AGENT_1_5, "--model", "TabbyML/StarCoder2-3B", "-o", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"input": str(src), "output": str(out), "rendered": 3, "rejected": 0, "rejects_file": None}
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in rows] == [1, 2, 3] and rows[0]["id"] == "doc"
    assert rows[0]["prompt"] == "<fim_prefix>contract A {\n  function f() <fim_suffix>\n}\n<fim_middle>"
    assert rows[0]["request"] == {"language": "solidity", "segments": {"prefix": "contract A {\n  function f() ", "suffix": "\n}\n"}}
    assert rows[0]["max_new_tokens"] == 64 and rows[0]["route"] == "raw" and "\ncontract" in rows[0]["stop"]
    assert rows[1]["prompt"] == "<fim_prefix># Path: d.py\n# def d(): pass\nx = 1\n<fim_suffix>\n<fim_middle>"
    assert rows[1]["request"]["segments"]["prefix"] == "x = 1\r\n"  # the client keeps CRLF
    assert rows[2]["request"]["segments"]["suffix"] == "\nnext\n"
    for row in rows:
        assert {"prompt", "prefix_sent", "suffix_sent", "stop", "max_new_tokens", "route", "request"} <= set(row)


def test_render_to_stdout_and_older_release(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", GOOD[1:2])
    proc = cli("render", str(src), "--db", str(tmp_path / "x.db"), "--editor", "tabby", "--editor-version", "0.19",
               "--model", "TabbyML/StarCoder2-3B")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)
    assert row["profile"] == "tabby@agent=1.9.0-dev@2024-10-31,server=0.19.0"  # main's agent on 0.19.0's day
    assert "x = 1\r\n" in row["prompt"]  # no CRLF -> LF before 0.20


def test_render_standard_has_token_ids(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", GOOD[:1])
    proc = cli("render", str(src), "--editor", "standard", "--model", "qwen2.5-coder")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)
    assert row["max_new_tokens"] == 128 and row["token_ids"][0] == 151659 and "request" not in row


def test_bad_line_stops_with_file_and_line(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", [GOOD[0], "", "{not json", GOOD[1]])
    proc = cli("render", str(src), "--editor", "tabby", "--model", "TabbyML/StarCoder2-3B", "-o", str(tmp_path / "o.jsonl"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"fimreplay: {src}:3: not JSON: Expecting property name enclosed in double quotes at column 2"]


def test_keep_going_counts_and_keeps_rejects(cli, tmp_path: Path) -> None:
    bad = [{"prefix": "a", "sufix": "b"}, {"document": "abc", "cursor": 9}, {"prefix": "a", "options": {"completion.prompt.nope": 1}},
           {"prefix": "a", "document": "b", "cursor": 0}, "[1]"]
    src = write_lines(tmp_path / "in.jsonl", [GOOD[0], *bad, GOOD[2]])
    out = tmp_path / "o.jsonl"
    proc = cli("render", str(src), "--editor", "tabby", *AGENT_1_5, "--model", "TabbyML/StarCoder2-3B", "-o", str(out),
               "--keep-going", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["rendered"] == 2 and summary["rejected"] == 5
    rejects = [json.loads(line) for line in Path(summary["rejects_file"]).read_text().splitlines()]
    assert [r["where"] for r in rejects] == [f"{src}:{n}" for n in range(2, 7)]
    assert "sufix" in rejects[0]["reason"] and "outside the document" in rejects[1]["reason"]
    assert "completion.prompt.nope" in rejects[2]["reason"] and "not both" in rejects[3]["reason"]
    assert rejects[4]["raw"] == "[1]"
    assert len(out.read_text().splitlines()) == 2


def test_unknown_model_and_editor(cli, tmp_path: Path) -> None:
    src = write_lines(tmp_path / "in.jsonl", GOOD[:1])
    proc = cli("render", str(src), "--editor", "tabby", "--model", "no-such-model")
    assert proc.returncode == 2 and "no-such-model" in proc.stderr
    proc = cli("render", str(src), "--editor", "vim", "--model", "x")
    assert proc.returncode == 2


def _capture(line: int, prefix: str, suffix: str | None, logged: str, ts: float, snippets: tuple[Snippet, ...] = ()) -> CaptureRecord:
    return CaptureRecord(source=Source(file="events/x.json", line=line), editor="tabby", format="tabby-events",
                         completion_id=f"cmpl-{line}", language="solidity", ts=ts,
                         segments=Segments(prefix=prefix, suffix=suffix, snippets=snippets), logged_prompt=logged)


def test_verify_reports_matches_and_first_differing_byte(cli, tmp_path: Path) -> None:
    db = tmp_path / "caps.db"
    nov_2025 = 1_762_000_000.0
    with open_store(db) as store:
        store.add_captures([
            _capture(1, "a\r\nb", None, "<|fim_prefix|>a\nb<|fim_suffix|>\n<|fim_middle|>", nov_2025),
            _capture(2, "x", "y", "<fim_prefix>// Path: L.sol\n// library L {}\nx<fim_suffix>y<fim_middle>", nov_2025,
                     (Snippet("L.sol", "library L {}", "declaration"),)),
            _capture(3, "é = 1", "z", "<fim_prefix>é = 2<fim_suffix>z<fim_middle>", nov_2025),
            CaptureRecord(source=Source(file="events/x.json", line=4), editor="tabby", format="tabby-events", logged_prompt="raw"),
        ])
    proc = cli("verify", "--db", str(db), "--json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["checked"], report["matched"], report["mismatched"]) == (3, 2, 1)
    assert report["skipped"] == {"no segments": 1}
    mismatch = report["mismatches"][0]
    assert mismatch["source"] == "events/x.json:3" and mismatch["offset"] == len("<fim_prefix>é = ".encode())
    text = cli("verify", "--db", str(db))
    assert "checked 3, matched 2 (66.7%)" in text.stdout and "events/x.json:3: differs at byte 17" in text.stdout


def test_verify_uses_the_release_of_the_capture_date(cli, tmp_path: Path) -> None:
    db = tmp_path / "caps.db"
    sep_2024 = 1_727_740_790.0  # before v0.20.0: Tabby kept CRLF in the prompt
    with open_store(db) as store:
        store.add_captures([_capture(1, "a\r\nb", None, "<fim_prefix>a\r\nb<fim_suffix>\n<fim_middle>", sep_2024)])
    assert cli("verify", "--db", str(db)).returncode == 0
    assert cli("verify", "--db", str(db), "--editor-version", "0.20").returncode == 1


def test_parse_line_and_first_difference() -> None:
    inp = parse_line(json.dumps({"document": "ab😀cd", "cursor": 3, "filepath": "file:///w/a.sol", "workspace": "file:///w",
                                 "id": 7, "middle": "ignored", "mode": "line"}))
    assert (inp.prefix, inp.suffix, inp.item_id, inp.workspace) == ("ab😀", "cd", "7", "file:///w")
    for bad in ['{"prefix": 1}', '{"document": "a"}', '{"prefix": "a", "snippets": [{"kind": "x", "content": ""}]}']:
        try:
            parse_line(bad)
        except BadInputLine:
            continue
        raise AssertionError(bad)
    assert first_difference(b"abc", b"abd") == 2 and first_difference(b"ab", b"abc") == 2
