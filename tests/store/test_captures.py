"""How the store keeps captures (schema 4): a Tabby capture as its own log line, identities, the
reader process of a large import, outcomes joined whatever the batch, and the 3 -> 4 migration."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest

from replay.importers.common import open_binary
from replay.rejects import Rejects
from replay.importers.importer import Importer
from replay.importers.tabby import parse_line, scan_line
from replay.records import CaptureRecord, OutcomeEvent, Segments, Source
from replay.importers.tabby import TABBY_LINE
from replay.store import MIGRATIONS, Store, decode_capture, line_digest, stored_capture
from tests.conftest import CAPTURES

TABBY = CAPTURES / "tabby" / "events"


def _tabby_lines() -> list[tuple[Path, int, int, bytes]]:
    """(file, line number, byte offset, line) of every line of the Tabby samples."""
    out = []
    for path in sorted(TABBY.iterdir()):
        with open_binary(path) as f:
            offset = 0
            for number, line in enumerate(f, 1):
                out.append((path, number, offset, line.rstrip(b"\n")))
                offset += len(line)
    return out


def test_scan_line_builds_the_row_of_the_record_parse_line_builds() -> None:
    """The importer's row (no record built) equals the row of the full record, and reading the
    row back gives that record: both paths apply the same rules."""
    seen = 0
    for path, number, offset, line in _tabby_lines():
        source = Source(file=str(path), line=number, offset=offset)
        rec = parse_line(line, source)
        if not isinstance(rec, CaptureRecord):
            assert scan_line(line, source) == rec  # events and ignored kinds are the same objects
            continue
        row = scan_line(line, source)
        assert row == stored_capture(rec)
        assert row.codec == TABBY_LINE and row.digest == line_digest(line)
        assert decode_capture(row.codec, row.body, source) == rec
        seen += 1
    assert seen == 9


def _record(i: int, **changes: object) -> CaptureRecord:
    rec = CaptureRecord(source=Source(file="t.json", line=i), editor="tabby", format="tabby", completion_id=f"c{i}",
                        segments=Segments(prefix=f"p{i}"), logged_prompt=f"p{i}")
    return msgspec.structs.replace(rec, **changes)


def test_a_record_that_is_not_its_raw_line_is_kept_whole(tmp_path: Path) -> None:
    """Tabby records built elsewhere with no raw line, or a raw line they do not parse from,
    keep their content identity: they neither collide on an empty line nor lose their fields."""
    path, number, offset, line = next(x for x in _tabby_lines() if b'"completion"' in x[3])
    real = parse_line(line, Source(file=str(path), line=number, offset=offset))
    edited = msgspec.structs.replace(real, completion="something else")
    with Store(tmp_path / "s.db") as store:
        assert store.add_captures([_record(1), _record(2), edited]) == (3, 0)
        assert store.add_captures([real]) == (1, 0)  # its own line: another capture than `edited`
        got = {rec.completion_id: rec for _, rec, _ in store.captures()}
        assert got["c1"] == _record(1) and got["c2"] == _record(2)
        codecs = dict(store.query("SELECT id, codec FROM capture_records"))
    assert sorted(codecs.values()) == ["record", "record", "record", TABBY_LINE]
    assert stored_capture(_record(1)).digest != stored_capture(_record(2)).digest


def test_captures_pages_through_the_store(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        store.add_captures([_record(i, editor="continue" if i in (4, 9) else "tabby") for i in range(23)])
        whole = [cid for cid, _, _ in store.captures()]
        assert [cid for cid, _, _ in store.captures(page=4)] == whole == list(range(1, 24))
        assert [cid for cid, _, _ in store.captures(limit=5, offset=2, page=3)] == whole[2:7]
        assert [cid for cid, _, _ in store.captures(ids=range(2, 24, 2), page=2, limit=3)] == [2, 4, 6]
        assert [cid for cid, _, _ in store.captures(after=20, page=2)] == [21, 22, 23]
        assert [cid for cid, _, _ in store.captures(ids=[7, 3, 99], after=3)] == [7]
        assert list(store.captures(ids=[])) == []
        assert [cid for cid, _, _ in store.captures(editor="continue", page=1)] == [5, 10]
        assert [cid for cid, _, _ in store.captures(editor="continue", after=5)] == [10]
        assert len(list(store.captures(editor="tabby"))) == 21
        assert list(store.captures(limit=0)) == []


def _log(tmp_path: Path) -> Path:
    """A Tabby log with every kind of line: completions, events (one before its completion),
    a chat event, a blank line, bad JSON, invalid UTF-8, a wrong type, a cut last line."""
    def completion(cid: str, ts: int) -> bytes:
        return json.dumps({"ts": ts, "event": {"completion": {
            "completion_id": cid, "language": "python", "prompt": f"<PRE> a{cid} <SUF> <MID>",
            "segments": {"prefix": f"a{cid}", "suffix": "\n"}, "choices": [{"index": 0, "text": "x"}]}}}).encode()

    def event(kind: str, cid: str, ts: int) -> bytes:
        return json.dumps({"ts": ts, "event": {kind: {"completion_id": cid, "choice_index": 0}}}).encode()

    lines = [event("view", "c0", 0)]
    for i in range(40):
        lines += [completion(f"c{i}", 10 * i), event("view", f"c{i}", 10 * i + 1)]
        if i % 3 == 0:
            lines.append(event("select" if i % 2 else "dismiss", f"c{i}", 10 * i + 2))
    lines[20:20] = [b'{"ts": 5, "event": {"chat_completion": {}}}', b"", b"{not json", b'{"ts": "x", "event": {}}',
                    b'{"ts": 1, "event": {"view": {"completion_id": "caf\xe9"}}}']
    path = tmp_path / "2024-09-30.json"
    path.write_bytes(b"\n".join(lines) + b'\n{"ts": 99, "event": {"view"')
    return path


def _import_all(tmp_path: Path, name: str, path: Path, **options: int) -> tuple[dict, list, list, list]:
    rejects = Rejects(tmp_path / f"{name}.jsonl")
    with Store(tmp_path / f"{name}.db") as store:
        summary = Importer(store, rejects, **options).import_file(path).to_json()
        captures = [(cid, rec, outcome) for cid, rec, outcome in store.captures()]
        events = store.query("SELECT completion_id, kind, source_line FROM outcome_events ORDER BY completion_id, source_line")
    rejects.close()
    summary.pop("rejects_file")
    kept = [(r["line"], r["reason"], r["raw"]) for r in map(json.loads, (tmp_path / f"{name}.jsonl").read_text().splitlines())]
    return summary, captures, [tuple(e) for e in events], kept


def test_reader_process_and_small_batches_store_what_one_pass_does(tmp_path: Path) -> None:
    """The same log through the reader process (any size), in batches of 1 and 7 records, and
    in one pass in this process: the same counts, rejects, captures, outcomes and events."""
    path = _log(tmp_path)
    base = _import_all(tmp_path, "base", path)
    summary, captures, events, rejects = base
    assert (summary["imported"], summary["ignored"], summary["rejected"]) == (40, 1, 4)
    assert summary["outcomes"] == len(events) == 55
    assert {outcome for _, _, outcome in captures} == {"viewed", "accepted", "dismissed"}
    assert captures[0][2] == "dismissed"  # its view came first, its dismiss after it
    assert [line for line, _, _ in rejects] == [23, 24, 25, 101]
    assert rejects[-1][1].startswith("truncated last line")
    assert _import_all(tmp_path, "reader", path, reader_min_bytes=0) == base
    assert _import_all(tmp_path, "b1", path, batch=1) == base
    assert _import_all(tmp_path, "b7", path, batch=7, reader_min_bytes=0) == base


def test_reader_process_keeps_what_came_before_a_cut_gz(tmp_path: Path) -> None:
    body = gzip.compress((TABBY / "2024-09-30.json").read_bytes() * 50)
    cut = tmp_path / "2024-09-30.json.gz"
    cut.write_bytes(body[: len(body) * 2 // 3])
    rejects = Rejects(tmp_path / "r.jsonl")
    with Store(tmp_path / "s.db") as store:
        s = Importer(store, rejects, reader_min_bytes=0).import_file(cut)
        assert s.rejected == 1 and s.imported == store.count_captures() > 0
    rejects.close()
    assert json.loads((tmp_path / "r.jsonl").read_text())["reason"].startswith("cannot read")


def _store_at_version_3(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path, isolation_level=None)
    for script in MIGRATIONS[:3]:
        assert isinstance(script, str)
        con.executescript(script)
    con.execute("PRAGMA user_version=3")
    return con


def test_migration_3_to_4_keeps_captures_events_and_identities(tmp_path: Path) -> None:
    """A store written by schema 3 (hex content hashes, record JSON, hashed event rows) reads
    the same after the migration, and importing its logs again adds nothing."""
    db = tmp_path / "old.db"
    con = _store_at_version_3(db)
    records = []
    for path, number, offset, line in _tabby_lines():
        if path.name.endswith(".gz"):
            continue
        rec = parse_line(line, Source(file=str(path.resolve()), line=number, offset=offset))
        if isinstance(rec, CaptureRecord):
            records.append(rec)
            cur = con.execute(
                "INSERT INTO captures (hash, completion_id, editor, format, model, language, filepath, outcome,"
                " outcome_detail, ts, source_file, source_line, imported_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,0)",
                (rec.content_hash(), rec.completion_id, rec.editor, rec.format, rec.model, rec.language, rec.filepath,
                 "unknown", None, rec.ts, rec.source.file, rec.source.line))
            con.execute("INSERT INTO capture_records (id, record) VALUES (?,?)", (cur.lastrowid, msgspec.json.encode(rec)))
        elif isinstance(rec, OutcomeEvent):
            con.execute("INSERT INTO outcome_events (hash, completion_id, kind, select_kind, ts, source_file, source_line,"
                        " record) VALUES (?,?,?,?,?,?,?,?)", (f"{number}-{path.name}", rec.completion_id, rec.kind,
                                                              rec.select_kind, rec.ts, rec.source.file, rec.source.line,
                                                              msgspec.json.encode(rec)))
    other = _record(7, editor="continue", format="continue-devdata")
    cur = con.execute("INSERT INTO captures (hash, completion_id, editor, format, outcome, source_file, source_line, imported_at)"
                      " VALUES (?,?,?,?,?,?,?,0)", (other.content_hash(), "c7", "continue", "continue-devdata", "unknown", "t.json", 7))
    con.execute("INSERT INTO capture_records (id, record) VALUES (?,?)", (cur.lastrowid, msgspec.json.encode(other)))
    events_before = con.execute("SELECT COUNT(*) FROM outcome_events").fetchone()[0]
    con.close()

    with Store(db) as store:
        assert store.schema_version == len(MIGRATIONS)
        got = [rec for _, rec, _ in store.captures()]
        assert [msgspec.structs.replace(r, outcome="unknown", outcome_detail=None) for r in got] == [*records, other]
        codecs = [c for (c,) in store.query("SELECT codec FROM capture_records ORDER BY id")]
        assert codecs == [TABBY_LINE] * len(records) + ["record"]
        assert store.query("SELECT COUNT(*) FROM outcome_events")[0][0] == events_before > 0
        cid = "cmpl-0f1e2d3c-4b5a-4697-8a8b-9c0d1e2f3a4b"
        assert [e.kind for e in store.outcome_events(cid)] == ["view", "select"]
        rejects = Rejects(tmp_path / "r.jsonl")
        again = Importer(store, rejects).import_paths([p for p in TABBY.iterdir() if not p.name.endswith(".gz")])
        assert (again.imported, again.outcomes) == (0, 0)
        assert store.add_captures([other]) == (0, 1)
        assert {rec.completion_id: outcome for _, rec, outcome in store.captures()}[cid] == "accepted_line"


@pytest.mark.parametrize("first", ["capture", "events"])
def test_outcome_is_joined_whichever_comes_first(tmp_path: Path, first: str) -> None:
    path, number, offset, line = next(x for x in _tabby_lines() if b"cmpl-0f1e2d3c" in x[3] and b'"completion"' in x[3])
    row = scan_line(line, Source(file=str(path), line=number, offset=offset))
    events = [parse_line(x[3], Source(file=str(x[0]), line=x[1])) for x in _tabby_lines()
              if b"cmpl-0f1e2d3c" in x[3] and b'"completion"' not in x[3]]
    with Store(tmp_path / "s.db") as store:
        if first == "capture":
            store.add_captures([row])
            assert next(store.captures())[2] == "unknown"
            store.add_outcome_events(events)  # type: ignore[arg-type]
        else:
            store.add_outcome_events(events)  # type: ignore[arg-type]
            store.add_captures([row])
        _, rec, outcome = next(store.captures())
    assert (outcome, rec.outcome_detail) == ("accepted_line", "select,view")


def test_a_failure_in_the_reader_process_is_raised_not_swallowed(tmp_path: Path) -> None:
    from replay.importers.reader import chunks_from_reader

    with pytest.raises(RuntimeError, match=r"reader process failed on .*unknown format 'no-such-format'"):
        list(chunks_from_reader(_log(tmp_path), "no-such-format", "x"))


@pytest.mark.parametrize("threads", [1, 2])
def test_no_reader_process_means_reading_in_this_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    """Where no process can be started (neither a fork, tried when this process runs one
    thread, nor a new interpreter, when it runs more), a large file is still imported, here."""
    import os
    import subprocess
    import threading

    refused = []

    def refuse(*args: object, **kwargs: object) -> None:
        refused.append(args)
        raise OSError("no processes here")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "fork", refuse)
    monkeypatch.setattr(threading, "active_count", lambda: threads)
    path = _log(tmp_path)
    base = _import_all(tmp_path, "base", path)
    assert _import_all(tmp_path, "here", path, reader_min_bytes=0) == base
    assert len(refused) == 1


def test_forked_and_new_interpreter_readers_store_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader is a fork of the importer when it runs one thread, a new interpreter when it
    runs more (a fork would copy a lock another thread holds): both store what one pass does,
    and both are waited for before the import returns."""
    import os
    import subprocess
    import threading

    children: list[int] = []
    real_fork, real_popen = os.fork, subprocess.Popen

    def fork() -> int:
        pid = real_fork()
        if pid:
            children.append(pid)
        return pid

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        proc = real_popen(*args, **kwargs)
        children.append(proc.pid)
        return proc

    monkeypatch.setattr(os, "fork", fork)
    monkeypatch.setattr(subprocess, "Popen", popen)
    path = _log(tmp_path)
    base = _import_all(tmp_path, "base", path)
    assert _import_all(tmp_path, "forked", path, reader_min_bytes=0) == base
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert _import_all(tmp_path, "spawned", path, reader_min_bytes=0) == base
    assert len(children) == 2
    for pid in children:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # already waited for: no such child left


def test_first_transactions_start_small_and_double(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store writes from the first records parsed on (the first transaction is small, each
    next one twice as large, up to the batch), and stores what one pass does."""
    from replay.importers import importer, scan

    monkeypatch.setattr(importer, "_FIRST_BATCH", 4)
    monkeypatch.setattr(scan, "_CHUNK", 1)  # one record per chunk: every transaction ends where its size says
    sizes: list[int] = []
    real = Importer._flush

    def flush(self: Importer, summary: Any, fmt: str, captures: list, events: list) -> None:  # type: ignore[type-arg]
        if captures or events:
            sizes.append(len(captures) + len(events))
        real(self, summary, fmt, captures, events)

    path = _log(tmp_path)
    base = _import_all(tmp_path, "base", path)
    monkeypatch.setattr(Importer, "_flush", flush)
    assert _import_all(tmp_path, "grown", path, batch=20) == base
    assert sizes[:4] == [4, 8, 16, 20] and set(sizes[3:-1]) == {20} and sum(sizes) == 40 + 55
