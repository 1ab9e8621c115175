"""The long import faults: kill -9 in the middle of an import, a 1,000,000-line log, a 200 MB line
(from a file and from a pipe). Each case runs `fimreplay import` as a user would (its own
process) and checks what the fast suite (tests/faults/test_import.py) checks: every good record
stored once (lost and duplicated counted), exit code and one-line messages, a planted key in no
file written. Peak RSS is the largest resident size of the command and its reader process
(getrusage of the children of a wrapper that runs only that command).

    .venv/bin/python -m bench.faults.imports [--lines 1000000] [--huge-mb 200] [--rss-limit-mb 300]

Prints one row per case and the totals: cases, held, records lost, duplicated, secrets found.
Exits 1 when a case does not hold.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.speed.import_log import generate
from bench.support import ROOT

SECRET = "sk-planted0123456789abcdefghijklmn"
ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))

# Runs one command (its stdin a pipe from `cat FILE` when a file is given) and prints its exit
# code and the peak RSS (KiB) of it and its descendants.
_WRAPPER = """
import resource, subprocess, sys
cat = subprocess.Popen(["cat", sys.argv[1]], stdout=subprocess.PIPE) if sys.argv[1] != "-" else None
p = subprocess.run(sys.argv[2:], stdin=cat.stdout if cat else None, capture_output=True)
if cat:
    cat.wait()
sys.stdout.write(f"{p.returncode} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n")
sys.stdout.flush()
sys.stderr.buffer.write(p.stdout + b"\\x00" + p.stderr)
"""


def fimreplay(*args: str, stdin: str = "-") -> tuple[int, int, dict, list[str], float]:
    """(exit code, peak RSS in MiB, --json summary, stderr lines, seconds) of one import."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, stdin, sys.executable, "-m", "replay", *args],
                          capture_output=True, env=ENV, cwd=str(ROOT))
    seconds = time.perf_counter() - t0
    code, rss = proc.stdout.decode().split()
    out, _, err = proc.stderr.partition(b"\x00")
    summary = json.loads(out) if out.strip() else {}
    return int(code), int(rss) // 1024, summary, err.decode("utf-8", "replace").strip().splitlines(), seconds


def stored_ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as con:
        return [r[0] for r in con.execute("SELECT completion_id FROM captures")]


def good_ids(log: Path) -> list[str]:
    """The completion ids of the log's good lines (the expected content of the store)."""
    ids = []
    with open(log, "rb") as f:
        for line in f:
            if len(line) < 1_000_000 and b'"completion":{' in line:
                try:
                    ids.append(json.loads(line)["event"]["completion"]["completion_id"])
                except ValueError:
                    continue
    return ids


def secrets_in(folder: Path, skip: set[Path]) -> int:
    found = 0
    for f in folder.rglob("*"):
        if f.is_file() and f not in skip:
            with open(f, "rb") as fh:
                tail = b""
                while chunk := fh.read(8 * 1024 * 1024):
                    if SECRET.encode() in tail + chunk:
                        found += 1
                        break
                    tail = chunk[-len(SECRET):]
    return found


def check(name: str, db: Path, expected: list[str], code: int, lines: list[str], rss: int, seconds: float,
          work: Path, inputs: set[Path], rss_limit: int) -> dict:
    got = stored_ids(db)
    want = set(expected)
    row = {"case": name, "records": len(expected), "lost": len(want - set(got)), "duplicated": len(got) - len(set(got)),
           "extra": len(set(got) - want), "exit": code, "one_line_messages": all(line.startswith("fimreplay: ") for line in lines),
           "secrets": secrets_in(work, inputs), "peak_rss_mb": rss, "seconds": round(seconds, 1)}
    row["held"] = (row["lost"] == row["duplicated"] == row["extra"] == row["secrets"] == 0 and code == 0
                   and row["one_line_messages"] and rss <= rss_limit)
    return row


def case_kill9(work: Path, rss_limit: int) -> dict:
    log = work / "in" / "2024-09-30.json"
    generate(log, 300_000)
    db = work / "kill9.db"
    proc = subprocess.Popen([sys.executable, "-m", "replay", "import", str(log), "--db", str(db), "--json"],
                            env=ENV, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:  # kill once some batches are committed
        time.sleep(0.2)
        if db.exists() and _count(db) > 0:
            break
    killed_at = _count(db) if db.exists() else 0
    os.killpg(proc.pid, signal.SIGKILL)  # the command and its reader process, as a crash would
    proc.wait()
    code, rss, summary, lines, seconds = fimreplay("import", str(log), "--db", str(db), "--json")
    row = check("kill -9 mid-import, then import again", db, good_ids(log), code, lines, rss, seconds, work, {log}, rss_limit)
    row["stored_when_killed"] = killed_at
    return row


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
            return con.execute("SELECT count(*) FROM captures").fetchone()[0]
    except sqlite3.Error:
        return 0


def case_million(work: Path, lines: int, rss_limit: int) -> dict:
    log = work / "in" / "2024-10-01.json"
    generate(log, lines)
    db = work / "million.db"
    code, rss, summary, msgs, seconds = fimreplay("import", str(log), "--db", str(db), "--json")
    row = check(f"{lines:,}-line log", db, good_ids(log), code, msgs, rss, seconds, work, {log}, rss_limit)
    row["mb"] = round(log.stat().st_size / 1e6)
    return row


def _huge(work: Path, mb: int) -> Path:
    """A good line, a line of `mb` MB that starts with a planted key, a good line."""
    log = work / "in" / "2024-10-02.json"
    good = '{"user":null,"ts":1,"event":{"completion":{"completion_id":"%s","language":"python","prompt":"x","choices":[{"index":0,"text":"1"}]}}}\n'
    with open(log, "w", encoding="utf-8") as f:
        f.write(good % "before")
        f.write('{"api_key":"' + SECRET + '","pad":"')
        block = "x" * (1024 * 1024)
        for _ in range(mb):
            f.write(block)
        f.write('"}\n')
        f.write(good % "after")
    return log


def case_huge(work: Path, mb: int, rss_limit: int, pipe: bool) -> dict:
    log = _huge(work, mb)
    db = work / ("huge-pipe.db" if pipe else "huge.db")
    rejects = work / ("huge-pipe.rejects.jsonl" if pipe else "huge.rejects.jsonl")
    args = ["import", "/dev/stdin" if pipe else str(log), "--db", str(db), "--json", "--rejects", str(rejects)]
    code, rss, summary, msgs, seconds = fimreplay(*args, stdin=str(log) if pipe else "-")
    name = f"{mb} MB line" + (" from a pipe" if pipe else "")
    row = check(name, db, ["before", "after"], code, msgs, rss, seconds, work, {log}, rss_limit)
    row["rejected"] = summary.get("rejected")
    row["held"] = row["held"] and summary.get("rejected") == 1 and len(msgs) == 1
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--huge-mb", type=int, default=200)
    ap.add_argument("--rss-limit-mb", type=int, default=300, help="the memory bound each case must stay within")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="fimreplay-faults-") as tmp:
        for run in (lambda w: case_kill9(w, args.rss_limit_mb),
                    lambda w: case_million(w, args.lines, args.rss_limit_mb),
                    lambda w: case_huge(w, args.huge_mb, args.rss_limit_mb, pipe=False),
                    lambda w: case_huge(w, args.huge_mb, args.rss_limit_mb, pipe=True)):
            work = Path(tempfile.mkdtemp(dir=tmp))
            (work / "in").mkdir()
            row = run(work)
            rows.append(row)
            print(json.dumps(row), flush=True)
    totals = {"cases": len(rows), "held": sum(r["held"] for r in rows), "records_lost": sum(r["lost"] for r in rows),
              "duplicated": sum(r["duplicated"] for r in rows), "secrets_found": sum(r["secrets"] for r in rows),
              "max_peak_rss_mb": max(r["peak_rss_mb"] for r in rows), "rss_limit_mb": args.rss_limit_mb}
    print(json.dumps(totals))
    return 0 if totals["held"] == totals["cases"] else 1


if __name__ == "__main__":
    sys.exit(main())
