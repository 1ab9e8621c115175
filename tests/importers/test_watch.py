"""`watch` with a real watchdog observer on real files: chunks, rotation, truncation,
replacement, restart, and the CLI. Waits are bounded polls, never fixed sleeps."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from replay.rejects import Rejects
from replay.importers.importer import ImportSummary
from replay.importers.watch import Watcher
from replay.store import Store
from tests.conftest import ROOT, refuse_folders
from tests.support.processes import spawned


def _completion(cid: str, ts: int = 1727740790000, text: str = "1") -> bytes:
    return (b'{"user":null,"ts":%d,"event":{"completion":{"completion_id":"%s","language":"python","prompt":"x = ",'
            b'"choices":[{"index":0,"text":"%s"}],"user_agent":null}}}\n' % (ts, cid.encode(), text.encode()))


def _select(cid: str) -> bytes:
    return b'{"user":null,"ts":1727740799000,"event":{"select":{"completion_id":"%s","choice_index":0}}}\n' % cid.encode()


def _wait(cond: Callable[[], bool], timeout: float = 60.0) -> None:
    """Until `cond` holds (the bound only keeps a broken watcher from hanging the suite: a loaded
    2-core machine can take seconds to notice a write)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


class _Seen:
    def __init__(self) -> None:
        self.calls: list[tuple[Path, ImportSummary, str]] = []

    def __call__(self, path: Path, summary: ImportSummary) -> None:
        self.calls.append((path, summary, threading.current_thread().name))

    @property
    def imported(self) -> int:
        return sum(s.imported for _, s, _ in self.calls)


def _ids(store: Store) -> list[str]:
    return [r.completion_id for _, r, _ in store.captures()]


def _watcher(store: Store, d: Path, tmp: Path, seen: _Seen | None = None) -> Watcher:
    return Watcher(store, [d], on_imported=seen, rejects=Rejects(tmp / "rejects.jsonl"), rescan_s=0.3)


def test_chunks_partial_line_and_new_daily_file(tmp_path: Path) -> None:
    d = tmp_path / "events"
    d.mkdir()
    seen = _Seen()
    with Store(tmp_path / "s.db") as store, _watcher(store, d, tmp_path, seen):
        f = d / "2024-09-30.json"
        line = _completion("a")
        with open(f, "ab") as fh:
            fh.write(line[:40])  # a buffered writer flushed mid-line
            fh.flush()
            time.sleep(0.5)
            assert store.count_captures() == 0  # the partial line waits for its newline
            fh.write(line[40:] + _completion("b")[:10])
            fh.flush()
            _wait(lambda: store.count_captures() == 1)
            fh.write(_completion("b")[10:])
            fh.flush()
            _wait(lambda: store.count_captures() == 2)
        (d / "2024-10-01.json").write_bytes(_select("a") + _completion("c"))  # rotation at midnight
        _wait(lambda: store.count_captures() == 3)
        _wait(lambda: dict((r.completion_id, o) for _, r, o in store.captures())["a"] == "accepted")
        assert _ids(store) == ["a", "b", "c"]
        _wait(lambda: seen.imported == 3)  # the callback follows the store's commit
        assert all(name == "fimreplay-watch" for _, _, name in seen.calls)
        off = store.get_offset(str(f.resolve()))
        assert off.offset == f.stat().st_size and off.line == 2


def test_truncate_replace_and_restart_without_duplicates_or_misses(tmp_path: Path) -> None:
    d = tmp_path / "events"
    d.mkdir()
    f = d / "2024-09-30.json"
    f.write_bytes(_completion("a") + _completion("b"))
    db = tmp_path / "s.db"
    with Store(db) as store:
        seen = _Seen()
        with _watcher(store, d, tmp_path, seen):
            _wait(lambda: store.count_captures() == 2)
            f.write_bytes(_completion("a"))  # truncated, then rewritten with its first line
            _wait(lambda: any(s.duplicates for _, s, _ in seen.calls))
            with open(f, "ab") as fh:
                fh.write(_completion("d"))
            _wait(lambda: store.count_captures() == 3)
            tmp = d / ".swap"
            tmp.write_bytes(_completion("a") + _completion("e"))
            os.replace(tmp, f)  # replaced: a new inode under the same name
            _wait(lambda: store.count_captures() == 4)
            # `e` may have come from .swap before the rename: stop only once the file that
            # replaced f was read as f (its offset is kept under its own inode).
            _wait(lambda: (kept := store.get_offset(str(f.resolve()))) is not None and kept.inode == f.stat().st_ino)
        assert sorted(_ids(store)) == ["a", "b", "d", "e"]
        # while stopped: more lines arrive; a restart reads only those
        with open(f, "ab") as fh:
            fh.write(_completion("f"))
    with Store(db) as store:
        seen = _Seen()
        with _watcher(store, d, tmp_path, seen):
            _wait(lambda: store.count_captures() == 5)
            time.sleep(0.4)  # one rescan more: nothing may be read twice
        assert sorted(_ids(store)) == ["a", "b", "d", "e", "f"]
        assert sum(s.duplicates for _, s, _ in seen.calls) == 0 and seen.imported == 1


def test_unrecognized_file_rejected_once_and_text_logs_reread(tmp_path: Path) -> None:
    d = tmp_path / "logs"
    d.mkdir()
    seen = _Seen()
    sep = "=" * 74 + "\n" + "=" * 74 + "\n"
    entry = sep + '##### Completion options #####\n{"model": "qwen2.5-coder:0.5b"}\n\n##### Prompt #####\nPrefix: a\nSuffix: b'
    with Store(tmp_path / "s.db") as store, _watcher(store, d, tmp_path, seen):
        (d / "notes.bin").write_bytes(b"\x00\x01\x02" * 40)
        console = d / "channel.txt"
        console.write_text(entry + sep + "Completion:\nc\n\n", encoding="utf-8")
        _wait(lambda: store.count_captures() == 1)
        with open(console, "a", encoding="utf-8") as fh:
            fh.write(entry.replace("Prefix: a", "Prefix: z") + sep + "Completion:\nq\n\n")
        _wait(lambda: store.count_captures() == 2)
        time.sleep(0.4)
        rejected = sum(s.rejected for _, s, _ in seen.calls)
        assert rejected == 1
        assert [r.completion for _, r, _ in store.captures()] == ["c", "q"]


def test_watch_cli_imports_and_stops_on_sigint(tmp_path: Path, home: Path) -> None:
    d = tmp_path / "events"
    d.mkdir()
    (d / "2024-09-30.json").write_bytes(_completion("a"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), FIMREPLAY_HOME=str(home))
    db = tmp_path / "s.db"
    with spawned([sys.executable, "-m", "replay", "watch", str(d), "--db", str(db), "--json"],
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT) as proc:
        first = json.loads(proc.stdout.readline())
        assert first["imported"] == 1 and first["file"].endswith("2024-09-30.json")
        with open(d / "2024-09-30.json", "ab") as fh:
            fh.write(_select("a"))
        second = json.loads(proc.stdout.readline())
        assert second["outcomes"] == 1
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    with Store(db) as store:
        assert [o for _, _, o in store.captures()] == ["accepted"]


def test_watch_cli_rejects_a_missing_dir(cli, tmp_path: Path) -> None:
    out = cli("watch", str(tmp_path / "nope"), "--db", str(tmp_path / "s.db"))
    assert out.returncode == 2 and out.stderr.strip() == f"fimreplay: {tmp_path / 'nope'}: not a directory"


def test_tail_lines_keeps_the_offset_when_nothing_is_new(tmp_path: Path) -> None:
    from replay.importers.importer import Importer

    f = tmp_path / "2024-09-30.json"
    f.write_bytes(_completion("a") + _completion("b")[:20])
    with Store(tmp_path / "s.db") as store:
        imp = Importer(store, Rejects(tmp_path / "r.jsonl"))
        s, off, line = imp.tail_lines(f, "tabby", 0, 0)
        assert (s.imported, off, line) == (1, len(_completion("a")), 1)
        s, off2, line2 = imp.tail_lines(f, "tabby", off, line)
        assert (s.imported, off2, line2) == (0, off, 1)  # the partial line still waits


def test_an_unreadable_file_is_reported_once_and_the_watch_goes_on(tmp_path: Path, monkeypatch) -> None:
    import replay.importers.watch as watch_mod

    real_open = watch_mod.open_binary

    def open_binary(path: Path):
        if path.name == "locked.json":
            raise PermissionError(13, "Permission denied")
        return real_open(path)

    monkeypatch.setattr(watch_mod, "open_binary", open_binary)
    d = tmp_path / "events"
    d.mkdir()
    (d / "locked.json").write_bytes(_completion("x"))
    seen = _Seen()
    with Store(tmp_path / "s.db") as store, _watcher(store, d, tmp_path, seen) as w:
        (d / "2024-09-30.json").write_bytes(_completion("a"))
        _wait(lambda: store.count_captures() == 1)
        time.sleep(0.7)  # two rescans: the unreadable file is not reported again
        assert w.error is None
    assert [s.rejected for _, s, _ in seen.calls if s.rejected] == [1]
    rej = json.loads((tmp_path / "rejects.jsonl").read_text(encoding="utf-8"))
    assert rej["reason"] == "cannot read: Permission denied" and rej["file"].endswith("locked.json")


def test_watch_folders_runs_until_stop_on_the_callers_thread(tmp_path: Path) -> None:
    from replay.importers.watch import watch_folders

    d = tmp_path / "events"
    d.mkdir()
    stop = threading.Event()
    result: list[ImportSummary] = []
    with Store(tmp_path / "s.db") as store:
        t = threading.Thread(target=lambda: result.append(watch_folders(
            store, [d], stop=stop.is_set, rejects=Rejects(tmp_path / "r.jsonl"), check_s=0.05)), daemon=True)
        t.start()
        try:
            (d / "2024-09-30.json").write_bytes(_completion("a") + _select("a"))
            _wait(lambda: store.count_captures() == 1)
        finally:  # the watch stops even when the wait failed
            stop.set()
            t.join(timeout=10)
        assert not t.is_alive()
    assert (result[0].imported, result[0].outcomes) == (1, 1)


def test_watch_cli_stops_on_sigterm(tmp_path: Path, home: Path) -> None:
    d = tmp_path / "events"
    d.mkdir()
    (d / "2024-09-30.json").write_bytes(_completion("a"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), FIMREPLAY_HOME=str(home))
    with spawned([sys.executable, "-m", "replay", "watch", str(d), "--db", str(tmp_path / "s.db")],
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT) as proc:
        assert "imported 1" in proc.stdout.readline()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0 and "watching" in err


def test_a_first_line_still_being_written_is_not_rejected(tmp_path: Path) -> None:
    """A Continue dev data line flushed in two writes: the head alone names no known key."""
    d = tmp_path / "dev_data"
    d.mkdir()
    line = json.dumps({"timestamp": "2025-02-20T09:15:02.114Z", "userAgent": "x" * 80, "prefix": "a", "suffix": "",
                       "prompt": "a", "completion": "b", "completionId": "id-1", "eventName": "autocomplete"}).encode() + b"\n"
    seen = _Seen()
    with Store(tmp_path / "s.db") as store, _watcher(store, d, tmp_path, seen):
        f = d / "autocomplete.jsonl"
        with open(f, "ab") as fh:
            fh.write(line[:100])
            fh.flush()
            time.sleep(0.5)
            fh.write(line[100:])
        _wait(lambda: store.count_captures() == 1)
    assert sum(s.rejected for _, s, _ in seen.calls) == 0


def test_a_file_rewritten_past_the_old_offset_is_read_again(tmp_path: Path) -> None:
    """Truncated and rewritten between two polls to a larger size with the same first line:
    the bytes before the old offset changed, so nothing is skipped."""
    d = tmp_path / "events"
    d.mkdir()
    f = d / "2024-09-30.json"
    f.write_bytes(_completion("a") + _completion("b"))
    with Store(tmp_path / "s.db") as store:
        w = _watcher(store, d, tmp_path)
        w.poll(f)
        f.write_bytes(_completion("a") + _completion("c", text="42") + _completion("d"))  # same inode, longer
        s = w.poll(f)
        assert (s.imported, s.duplicates) == (2, 1)
        assert sorted(_ids(store)) == ["a", "b", "c", "d"]
        assert w.poll(f) is not None and w.poll(f).imported == 0


def test_a_copytruncate_between_the_check_and_the_read_loses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """logrotate's copytruncate lands after poll found the file unchanged and before it read
    on from the old offset, and the new content is as long as the old: nothing is past the old
    offset, and the marks taken at the end of that read are the new file's. The record must
    still be read (it was lost before: a test under load met this once)."""
    d = tmp_path / "events"
    d.mkdir()
    f = d / "events.json"
    f.write_bytes(_completion("r3"))
    with Store(tmp_path / "s.db") as store:
        w = _watcher(store, d, tmp_path)
        w.poll(f)
        tail = w.importer.tail_lines

        def rotated_first(path: Path, fmt: str, offset: int, line: int, at_end: Callable | None = None) -> tuple:
            if offset:
                (d / "events.json.1").write_bytes(f.read_bytes())
                with open(f, "r+b") as fh:
                    fh.truncate(0)
                with open(f, "ab") as fh:
                    fh.write(_completion("r4"))
            return tail(path, fmt, offset, line, at_end)

        monkeypatch.setattr(w.importer, "tail_lines", rotated_first)
        with open(f, "ab") as fh:
            fh.write(b"")  # an event; the file is as it was
        w.poll(f)
        assert sorted(_ids(store)) == ["r3", "r4"]
        assert w.poll(f) is None or w.poll(f).imported == 0


def test_rotation_by_rename_and_copytruncate_add_nothing_twice(tmp_path: Path) -> None:
    """logrotate's two ways: the file renamed aside and a new one opened, or copied aside and
    truncated in place; either way every record is stored once."""
    d = tmp_path / "events"
    d.mkdir()
    f = d / "events.json"
    f.write_bytes(_completion("r1") + _completion("r2"))
    with Store(tmp_path / "s.db") as store, _watcher(store, d, tmp_path) as w:
        _wait(lambda: store.count_captures() == 2)
        f.rename(d / "events.json.1")  # rename rotation
        f.write_bytes(_completion("r3"))
        _wait(lambda: store.count_captures() == 3)
        (d / "events.json.2").write_bytes(f.read_bytes())  # copytruncate rotation
        with open(f, "r+b") as fh:
            fh.truncate(0)
        with open(f, "ab") as fh:
            fh.write(_completion("r4"))
        _wait(lambda: store.count_captures() == 4)
        time.sleep(0.7)  # two rescans more: nothing read twice
        assert w.error is None
        assert sorted(_ids(store)) == ["r1", "r2", "r3", "r4"]


def test_a_nul_run_and_deep_json_do_not_stop_the_watch(tmp_path: Path) -> None:
    d = tmp_path / "events"
    d.mkdir()
    f = d / "2024-09-30.json"
    deep = b'{"a":' * 50_000 + b"1" + b"}" * 50_000
    with Store(tmp_path / "s.db") as store, _watcher(store, d, tmp_path) as w:
        f.write_bytes(b"\x00" * 8192)  # a crash left the start of the log unwritten
        time.sleep(0.5)
        with open(f, "ab") as fh:
            fh.write(_completion("n1") + b'{"ts":1,"event":' + deep + b"}\n" + _completion("n2"))
        _wait(lambda: store.count_captures() == 2)
        with open(f, "ab") as fh:
            fh.write(b"\x00" * 300 + b"\n" + _completion("n3"))
        _wait(lambda: store.count_captures() == 3)
        assert w.error is None and sorted(_ids(store)) == ["n1", "n2", "n3"]
    reasons = [json.loads(x)["reason"] for x in (tmp_path / "rejects.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(reasons) == 2 and "nested too deeply" in reasons[0] and "NUL" in reasons[1]


def test_an_unreadable_subfolder_is_reported_by_the_watch(tmp_path: Path, monkeypatch) -> None:
    """An unreadable folder (tests.conftest.refuse_folders) is named and counted, not skipped."""
    d = tmp_path / "events"
    (d / "locked").mkdir(parents=True)
    refuse_folders(monkeypatch, "locked")
    seen = _Seen()
    with Store(tmp_path / "s.db") as store, _watcher(store, d, tmp_path, seen) as w:
        (d / "2024-09-30.json").write_bytes(_completion("a"))
        _wait(lambda: store.count_captures() == 1)
        time.sleep(0.7)
        assert w.error is None
    assert [s.rejected for _, s, _ in seen.calls if s.rejected] == [1]  # once, not every rescan
    rej = json.loads((tmp_path / "rejects.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert rej["file"].endswith("locked") and "cannot read folder" in rej["reason"]


def test_the_watch_does_not_read_again_what_only_its_own_reads_touched(tmp_path: Path) -> None:
    """The worker's reads open and close the file (inotify IN_OPEN and IN_CLOSE_NOWRITE): they
    must not bring it back to the file (each read caused the next: a core busy while idle), nor
    may a rescan open a file unchanged since its last read. Counted in reads over rescans."""
    d = tmp_path / "events"
    d.mkdir()
    (d / "2024-09-30.json").write_bytes(_completion("a"))
    with Store(tmp_path / "s.db") as store:
        w = Watcher(store, [d], rejects=Rejects(tmp_path / "rejects.jsonl"), rescan_s=0.05)
        reads: list[Path] = []
        scans: list[int] = []
        poll, scan = w.poll, w._scan
        w.poll = lambda p: (reads.append(p), poll(p))[1]  # type: ignore[method-assign]
        w._scan = lambda: (scans.append(1), scan())[1]  # type: ignore[method-assign]
        with w:
            _wait(lambda: store.count_captures() == 1)
            _wait(lambda: len(scans) >= 12 or len(reads) >= 12)
            assert w.error is None
        assert len(reads) == 1, f"{len(reads)} reads of a file written once, over {len(scans)} scans"


def test_writes_after_an_idle_spell_are_read(tmp_path: Path) -> None:
    """Rescans that only stat: a line appended after some of them is still read, at once."""
    d = tmp_path / "events"
    d.mkdir()
    f = d / "2024-09-30.json"
    f.write_bytes(_completion("a"))
    with Store(tmp_path / "s.db") as store:
        w = Watcher(store, [d], rejects=Rejects(tmp_path / "rejects.jsonl"), rescan_s=0.05)
        scans: list[int] = []
        scan = w._scan
        w._scan = lambda: (scans.append(1), scan())[1]  # type: ignore[method-assign]
        with w:
            _wait(lambda: store.count_captures() == 1 and len(scans) >= 5)
            with open(f, "ab") as fh:
                fh.write(_completion("b"))
            _wait(lambda: store.count_captures() == 2)
        assert _ids(store) == ["a", "b"]


def test_a_store_locked_past_the_lock_wait_is_said_once_and_the_watch_goes_on(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Another program holds the store longer than the lock wait: one line naming the store and
    what to do (not once per rescan), the watch goes on, and the file is read once the lock goes."""
    import sqlite3

    monkeypatch.setenv("FIMREPLAY_LOCK_WAIT", "0.2")
    d = tmp_path / "events"
    d.mkdir()
    (d / "2024-09-30.json").write_bytes(_completion("a"))
    db = tmp_path / "s.db"
    said: list[str] = []
    with Store(db) as store:
        holder = sqlite3.connect(db, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        w = Watcher(store, [d], rejects=Rejects(tmp_path / "rejects.jsonl"), rescan_s=0.05, warn=said.append)
        scans: list[int] = []
        scan = w._scan
        w._scan = lambda: (scans.append(1), scan())[1]  # type: ignore[method-assign]
        try:
            with w:
                _wait(lambda: len(scans) >= 6)  # rescans while the store is held
                holder.execute("COMMIT")
                _wait(lambda: store.count_captures() == 1)
        finally:
            holder.close()
        assert w.error is None
    assert len(said) == 1 and "\n" not in said[0], said
    assert said[0].startswith(f"{db}: the store is locked by another program writing to it: wait for it to finish")
