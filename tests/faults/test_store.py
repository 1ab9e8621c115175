"""Store faults, each named after the fault: a file that is not SQLite, a truncated store, a
read-only one, a full disk, a locked one, two commands migrating a new store at once, rows
tampered with or written by another program. Each asserts the exit code, a one-line message
naming the file, and that nothing already stored is lost or duplicated.

Real SQLite files and real fimreplay processes throughout. The read-only and full-disk cases
need a private mount namespace (`unshare -m`, root): a read-only bind mount and a small tmpfs
give the real EROFS / ENOSPC; where unshare is refused they are skipped, saying so.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from replay.reading import RunConfig
from replay.records import Completion
from replay.store import SCHEMA_VERSION, Store
from tests.conftest import CAPTURES, ROOT, run_cli
from tests.support.processes import start, stop

TABBY = CAPTURES / "tabby"


def counts(db: Path) -> dict[str, int]:
    """Rows per table that holds user data, and the distinct identities (duplicates show)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        return {
            "captures": con.execute("SELECT COUNT(*) FROM captures").fetchone()[0],
            "distinct_captures": con.execute("SELECT COUNT(DISTINCT hash) FROM captures").fetchone()[0],
            "events": con.execute("SELECT COUNT(*) FROM outcome_events").fetchone()[0],
            "completions": con.execute("SELECT COUNT(*) FROM completions").fetchone()[0],
        }


def one_line_error(out: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    """The command failed with `code` and exactly one line on stderr holding `words`, no traceback."""
    lines = [ln for ln in out.stderr.strip().splitlines() if ln and not ln.startswith(("Usage: ", "Try '"))]
    assert out.returncode == code, (out.returncode, out.stderr)
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr  # click's usage lines aside
    assert all(w in lines[0] for w in words), lines[0]
    return lines[0]


@pytest.fixture()
def good_store(tmp_path: Path, home: Path) -> Path:
    """A store holding the Tabby captures and one run's completions."""
    db = tmp_path / "good.db"
    assert run_cli("import", str(TABBY), "--db", str(db)).returncode == 0
    with Store(db) as store:
        store.create_run("r1", RunConfig(backend="openai", model="m"))
        for n in range(3):
            store.add_completion("r1", Completion(item_id=f"i{n}", text=f"t{n}", raw_text=f"t{n}", backend="openai", model="m"))
        store.set_run_status("r1", "done")
    return db


def many_tabby_lines(path: Path, n: int) -> Path:
    """A Tabby event log of `n` distinct completion events (a week of heavy use)."""
    prompt = "<|fim_prefix|>" + "x = 1\n" * 200 + "<|fim_suffix|>\n<|fim_middle|>"
    with path.open("w") as fh:
        for i in range(n):
            fh.write(json.dumps({"ts": 1685525400123 + i, "event": {"completion": {
                "completion_id": f"cmpl-fill-{i}", "language": "python", "prompt": prompt,
                "choices": [{"index": 0, "text": f"y = {i}"}]}}}) + "\n")
    return path


def test_store_that_is_not_sqlite(tmp_path: Path, home: Path) -> None:
    db = tmp_path / "notes.db"
    db.write_text("these are my notes, not a store\n")
    for args in (["captures"], ["import", str(TABBY)], ["report", "r1"], ["score", "r1"], ["verify"]):
        out = run_cli(*args, "--db", str(db))
        one_line_error(out, 2, str(db), "not a fimreplay store")
    assert db.read_text() == "these are my notes, not a store\n"


def test_store_truncated(good_store: Path, tmp_path: Path) -> None:
    db = tmp_path / "cut.db"
    data = good_store.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    out = run_cli("captures", "--db", str(db))
    one_line_error(out, 2, str(db), "damaged or truncated")
    out = run_cli("import", str(TABBY), "--db", str(db))
    one_line_error(out, 2, str(db))


def test_store_is_a_folder(tmp_path: Path, home: Path) -> None:
    out = run_cli("captures", "--db", str(tmp_path))
    one_line_error(out, 2, str(tmp_path), "folder")


def _in_namespace(script: str) -> subprocess.CompletedProcess[str]:
    """Run a shell script in a private mount namespace (its mounts vanish with it)."""
    if shutil.which("unshare") is None:
        pytest.skip("unshare is not installed: a private mount namespace is needed")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("unshare -m is refused here (not root): the read-only and full-disk mounts need it")
    return subprocess.run(["unshare", "-m", "sh", "-ec", script], capture_output=True, text=True, timeout=300)


def _cli_line(*args: str) -> str:
    return " ".join(["PYTHONPATH=" + str(ROOT), sys.executable, "-m", "replay", *[f"'{a}'" for a in args]])


def test_store_read_only(good_store: Path, tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    shutil.copy(good_store, ro / "s.db")
    before = counts(ro / "s.db")
    new_log = many_tabby_lines(tmp_path / "new.json", 20)
    res = _in_namespace(f"mount --bind {ro} {ro}; mount -o remount,ro,bind {ro}; "
                        f"{_cli_line('import', str(new_log), '--db', str(ro / 's.db'))} 2>{tmp_path}/err || echo rc=$? >{tmp_path}/rc")
    err = (tmp_path / "err").read_text()
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "rc").read_text().strip() == "rc=2", err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(ro / "s.db") in lines[0] and "cannot be written" in lines[0], err
    assert counts(ro / "s.db") == before


def test_store_full_disk(good_store: Path, tmp_path: Path) -> None:
    """A tmpfs a little larger than the store: the import fills it (ENOSPC, SQLITE_FULL)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    before = counts(good_store)
    log = many_tabby_lines(tmp_path / "big.json", 3000)
    size = good_store.stat().st_size + 256 * 1024
    res = _in_namespace(f"mount -t tmpfs -o size={size} tmpfs {mnt}; cp {good_store} {mnt}/s.db; "
                        f"{_cli_line('import', str(log), '--db', str(mnt / 's.db'))} 2>{out}/err || echo rc=$? >{out}/rc; "
                        f"cp {mnt}/s.db* {out}/")
    assert res.returncode == 0, res.stderr
    err = (out / "err").read_text()
    assert (out / "rc").read_text().strip() == "rc=1", err  # the work failed: the store given is fine
    lines = err.strip().splitlines()
    assert len(lines) == 1 and str(mnt / "s.db") in lines[0] and "disk is full" in lines[0], err
    after = counts(out / "s.db")
    # Whatever was committed before the disk filled is whole; what was stored before is all there.
    assert after["captures"] == after["distinct_captures"] and after["captures"] >= before["captures"]
    assert after["completions"] == before["completions"] and after["events"] == before["events"]
    with sqlite3.connect(out / "s.db") as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # Space freed, the same import finishes, without a duplicate.
    redo = run_cli("import", str(log), "--db", str(out / "s.db"), "--json")
    assert redo.returncode == 0, redo.stderr
    final = counts(out / "s.db")
    assert final["captures"] == final["distinct_captures"] == before["captures"] + 3000


def test_store_locked(good_store: Path, tmp_path: Path) -> None:
    holder = start([sys.executable, "-c", (
        "import sqlite3, sys, time\n"
        f"con = sqlite3.connect({str(good_store)!r}, isolation_level=None)\n"
        "con.execute('BEGIN EXCLUSIVE'); print('held', flush=True); time.sleep(60)\n")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        before = counts(good_store)
        started = time.monotonic()
        out = run_cli("import", str(many_tabby_lines(tmp_path / "n.json", 5)), "--db", str(good_store),
                      env={"FIMREPLAY_LOCK_WAIT": "1"})
        one_line_error(out, 1, str(good_store), "locked")  # another writer stopped the work
        assert time.monotonic() - started < 30
    finally:
        holder.kill()
        holder.wait()
    assert counts(good_store) == before


def test_new_store_migration_race(tmp_path: Path, home: Path) -> None:
    """Eight processes open one new store at the same instant: each sees schema 0 before any
    writes; every one must succeed and the store end at the current schema, made once."""
    db = tmp_path / "new.db"
    go = tmp_path / "go"
    code = ("import os, sys, time\n"
            f"while not os.path.exists({str(go)!r}): time.sleep(0.001)\n"
            "from replay.store import Store\n"
            f"Store({str(db)!r}).close()\n")
    procs = [start([sys.executable, "-c", "import replay.store\n" + code], cwd=ROOT, stderr=subprocess.PIPE, text=True)
             for _ in range(8)]
    try:
        time.sleep(1.5)  # all of them imported and waiting
        go.touch()
        results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in procs]
    finally:
        for p in procs:
            stop(p)
    assert all(rc == 0 for rc, _ in results), [err for rc, err in results if rc]
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert con.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'captures'").fetchone()[0] == 1


def test_tampered_and_foreign_rows(good_store: Path, home: Path) -> None:
    """Rows edited by hand or written by another program: each is named and skipped, and the
    command goes on with the rest."""
    with sqlite3.connect(good_store) as con:
        con.execute("UPDATE completions SET record = x'00ff' WHERE item_id = 'i0'")
        con.execute("UPDATE completions SET record = ? WHERE item_id = 'i1'",
                    (json.dumps({"item_id": "someone-else", "text": "", "raw_text": "", "backend": "b", "model": "m"}),))
        con.execute("INSERT INTO runs (id, created, status, config) VALUES ('foreign', 0, 'done', 'not json')")
        con.execute("INSERT INTO score_sets (run_id, scored, record) VALUES ('r1', 'shown:lines=auto', x'c1')")
        cid = con.execute("SELECT MIN(id) FROM captures").fetchone()[0]
        con.execute("UPDATE capture_records SET record = x'0102' WHERE id = ?", (cid,))
    before = counts(good_store)
    for args, names in ((["captures"], [f"captures row {cid}"]),
                        (["score", "r1", "--json"], ["completions row (run 'r1', item 'i0')", "item 'i1'",
                                                     "score_sets row (run 'r1', 'shown:lines=auto')"]),
                        (["report", "r1"], ["completions row (run 'r1', item 'i0')"])):
        out = run_cli(*args, "--db", str(good_store))
        # the store's run r1 is of prompts whose items it does not hold: a score or report of it
        # judges nothing once its rows are skipped, says so and exits 1; a listing exits 0
        judged = args[0] in ("score", "report")
        assert out.returncode == (1 if judged else 0) and "Traceback" not in out.stderr, out.stderr
        assert ("nothing scored" in out.stderr) == judged, out.stderr
        for name in names:
            assert name in out.stderr and "skipped" in out.stderr, (args, out.stderr)
    listed = [json.loads(line) for line in run_cli("captures", "--json", "--db", str(good_store)).stdout.splitlines() if line.startswith("{")]
    assert len(listed) == before["captures"] - 1
    assert counts(good_store) == before
