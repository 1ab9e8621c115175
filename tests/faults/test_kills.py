"""Writers killed with SIGKILL (a crash, an OOM kill) and started again: what they committed
stays, what they had not is written by the next run, nothing twice. The long run of the same,
two writers and a watcher killed 50 times and more, is bench/faults/kills.py."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT, run_cli
from tests.faults.test_import import tabby_line
from tests.support.processes import spawned

ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _ids(db: Path) -> list[str]:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as con:
            return [r[0] for r in con.execute("SELECT completion_id FROM captures")]
    except sqlite3.OperationalError:  # not made yet
        return []


def _log(path: Path, prefix: str, n: int) -> list[str]:
    ids = [f"{prefix}{i}" for i in range(n)]
    path.write_bytes(b"".join(tabby_line(c, prompt="y" * 600) + b"\n" for c in ids))
    return ids


def _kill_when(proc: subprocess.Popen[bytes], db: Path, least: int, timeout: float = 120) -> int:
    """SIGKILL the command's session (its reader process too) once `least` captures are in."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None and len(_ids(db)) < least:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    return len(_ids(db))


def test_import_killed_mid_file_then_run_again_stores_each_record_once(tmp_path: Path, home: Path) -> None:
    log = tmp_path / "in" / "2024-09-30.json"
    log.parent.mkdir()
    ids = _log(log, "k", 60_000)
    db = tmp_path / "s.db"
    with spawned([sys.executable, "-m", "replay", "import", str(log), "--db", str(db)], stdout=subprocess.DEVNULL,
                 stderr=subprocess.DEVNULL, env=ENV, start_new_session=True) as proc:
        at_kill = _kill_when(proc, db, 1)
    assert at_kill < len(ids), "the import finished before the kill: nothing was tested"
    again = run_cli("import", str(log), "--db", str(db), "--json")
    assert again.returncode == 0, again.stderr
    stored = _ids(db)
    assert sorted(stored) == sorted(ids)  # each once: none lost, none twice
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_watch_killed_then_started_again_goes_on_without_duplicates(tmp_path: Path, home: Path) -> None:
    d = tmp_path / "events"
    d.mkdir()
    first = _log(d / "2024-09-30.json", "w", 40_000)
    db = tmp_path / "s.db"
    args = [sys.executable, "-m", "replay", "watch", str(d), "--db", str(db)]
    with spawned(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, start_new_session=True) as proc:
        _kill_when(proc, db, 1)
    more = [f"m{i}" for i in range(50)]
    with open(d / "2024-09-30.json", "ab") as fh:  # written while no watch ran
        fh.write(b"".join(tabby_line(c) + b"\n" for c in more))
    with spawned(args, sig=signal.SIGINT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, text=True) as proc:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(_ids(db)) < len(first) + len(more):
            time.sleep(0.1)
        time.sleep(1.5)  # a rescan more: nothing may be read twice
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err
    assert sorted(_ids(db)) == sorted(first + more)
