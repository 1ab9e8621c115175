"""The long fuzz of every line reader: 100,000+ real lines with byte-level damage through each
importer (Tabby events, Continue dev data; Continue's output channel and JetBrains prompt.log
copies with damaged lines) and each line command (render, postprocess --received, score FILE),
each run as a user runs it (its own process, `--keep-going` where the command has it).

The lines and their damage are tests/support/mutations.py's, as in the fuzz suite
(tests/faults/test_fuzz_lines.py): what a reader must take is decided from UTF-8 and JSON alone.
A credential is planted in every damaged line a reader must reject (an `sk-` key under
`api_key`, a bearer token in an `Authorization:` line), and every file the command wrote (store,
rejects file, output) and what it printed are searched for it.

    .venv/bin/python -m bench.faults.fuzz_lines [--lines 150000] [--per-file 4000] [--seed 11]

Prints one row per reader and the totals: lines tried, mutated (a line written twice counts
twice), rejected, taken (imported, rendered,
post-processed, scored), lost (a line that must be taken and was not; for the text logs, a
capture of the undamaged copy missing beyond the entries the damaged lines touch), taken that
must have been rejected, tracebacks, exception names on stderr, exit codes outside 0/1/2,
secrets found. Exits 1 unless lost, wrongly taken, tracebacks, exception names, bad exit codes
and secrets are all 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

from bench.support import ROOT
from tests.support import mutations
from tests.support.mutations import CAPTURES, EXCEPTION_NAME, MUTATIONS, SECRETS, Built, build_file

ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))

# How often each damage is drawn for a line (none: a line left as it was). Huge lines (64 KiB to
# 1 MiB) are rarer so that a run stays within minutes; each file still gets its share.
WEIGHTS = {"": 30, "cut_mid_character": 8, "invalid_utf8": 10, "lone_surrogate_escaped": 8, "lone_surrogate_raw": 6,
           "bom": 6, "crlf": 8, "nul": 8, "truncate": 10, "duplicate": 5, "huge": 1}


class Reader(NamedTuple):
    """A reader of lines: the seed kind its file is made of and the command line (SRC, DB, OUT
    and REJ stand for the input, a store, the output and the rejects file)."""

    name: str
    kind: str
    args: tuple[str, ...]


READERS = (
    Reader("import tabby", "tabby", ("import", "SRC", "--format", "tabby", "--json", "--db", "DB", "--rejects", "REJ")),
    Reader("import continue-devdata", "continue-devdata",
           ("import", "SRC", "--format", "continue-devdata", "--json", "--db", "DB", "--rejects", "REJ")),
    Reader("render", "render", ("render", "SRC", "--editor", "standard", "--model", "qwen2.5-coder", "--keep-going", "--json",
                                "-o", "OUT")),
    Reader("postprocess", "postprocess", ("postprocess", "SRC", "--editor", "tabby", "--received", "--keep-going", "--json",
                                          "-o", "OUT")),
    Reader("score", "score", ("score", "SRC", "--json", "--db", "DB")),
)


def fimreplay(args: list[str]) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "replay", *args], capture_output=True, env=ENV, cwd=str(ROOT))
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


def secrets_in(paths: list[Path], *texts: str) -> int:
    """How many of the files and texts hold a planted credential."""
    found = sum(any(s in t for s in SECRETS) for t in texts)
    for p in paths:
        if p.is_file():
            data = p.read_bytes()
            found += any(s.encode() in data for s in SECRETS)
    return found


def stderr_faults(err: str) -> tuple[int, int, bool]:
    """(tracebacks, exception names, every line a `fimreplay: ` line) of a command's stderr."""
    lines = err.splitlines()
    return err.count("Traceback"), sum(len(EXCEPTION_NAME.findall(ln)) for ln in lines), all(ln.startswith("fimreplay: ") for ln in lines)


def _rejected_lines(path: Path) -> list[int]:
    if not path.is_file():
        return []
    return [json.loads(x)["line"] for x in path.read_text(encoding="utf-8").splitlines()]


def _taken(reader: Reader, summary: dict[str, Any], out: Path, db: Path) -> tuple[int, int]:
    """(lines taken, records stored twice) as the command reports them and its files hold."""
    if reader.args[0] == "import":
        taken = summary["imported"] + summary["outcomes"] + summary["ignored"] + summary["duplicates"]
        with sqlite3.connect(db) as con:
            rows = con.execute("SELECT count(*), count(DISTINCT hash) FROM captures").fetchone()
        return taken, rows[0] - rows[1]
    if reader.args[0] == "score":
        return summary.get("n_items", 0), 0
    ids = [json.loads(x).get("id") for x in out.read_text(encoding="utf-8").splitlines()] if out.is_file() else []
    return len(ids), 0


def run_file(reader: Reader, built: Built, work: Path, n: int) -> dict[str, Any]:
    src = work / f"{reader.kind}-{n}.jsonl"
    src.write_bytes(built.data)
    db, out = work / f"s-{reader.kind}-{n}.db", work / f"out-{reader.kind}-{n}.jsonl"
    rej = {"import": work / f"rej-{reader.kind}-{n}.jsonl", "score": src.with_name(src.name + ".rejects.jsonl")}.get(
        reader.args[0], out.with_name(out.name + ".rejects.jsonl"))
    names = {"SRC": str(src), "DB": str(db), "OUT": str(out), "REJ": str(rej)}
    code, stdout, err = fimreplay([names.get(a, a) for a in reader.args])
    summary = json.loads(stdout.splitlines()[-1]) if stdout.strip().startswith("{") else {}
    taken, twice = _taken(reader, summary, out, db) if summary else (0, 0)
    must_reject = {n for n, ok in built.valid.items() if not ok}
    rejected = _rejected_lines(rej)
    tracebacks, names_on_stderr, one_line = stderr_faults(err)
    valid = len(built.valid) - len(must_reject)
    row = {"tried": len(built.valid), "mutated": sum(bool(m) for m in built.mutation.values()),
           "rejected": len(rejected), "taken": taken,
           "lost": max(0, valid - taken) + len(set(rejected) - must_reject),
           "wrongly_taken": len(must_reject - set(rejected)), "twice": twice, "tracebacks": tracebacks,
           "exception_names": names_on_stderr, "bad_exit": int(code not in (0, 1, 2) or not summary),
           "secrets": secrets_in([db, rej, out, src.with_name(src.name + ".out")], stdout, err),
           "planted": len(built.planted), "one_line_messages": one_line}
    for p in (src, db, out, rej):
        p.unlink(missing_ok=True)
    return row


def run_text_logs(work: Path, rng: random.Random, copies: int) -> dict[str, Any]:
    """Copies of each console and prompt.log capture with a few lines damaged: a damaged line
    costs the entries it touches, never the rest."""
    logs = sorted([*(CAPTURES / "continue" / "console").iterdir(), *(CAPTURES / "jetbrains").iterdir()])
    names = [m for m in MUTATIONS if m != "duplicate"]
    row = dict.fromkeys(("tried", "mutated", "rejected", "taken", "lost", "wrongly_taken", "twice", "tracebacks", "exception_names",
                         "bad_exit", "secrets", "planted"), 0)
    row["one_line_messages"] = True
    clean: dict[Path, int] = {}
    for log in logs:
        code, stdout, err = fimreplay(["import", str(log), "--json", "--db", str(work / "clean.db")])
        clean[log] = json.loads(stdout)["imported"] + json.loads(stdout)["duplicates"]
    for n in range(copies):
        log = logs[n % len(logs)]
        lines = log.read_bytes().split(b"\n")
        hit = rng.sample(range(len(lines)), min(3, len(lines)))
        for i in hit:
            line = lines[i] if len(lines[i]) > 1 else lines[i] + b"x = 1"
            lines[i] = MUTATIONS[rng.choice(names)](line, rng)
        damaged = work / log.name
        damaged.write_bytes(b"\n".join(lines))
        db, rej = work / f"text-{n}.db", work / f"text-{n}.rejects.jsonl"
        code, stdout, err = fimreplay(["import", str(damaged), "--json", "--db", str(db), "--rejects", str(rej)])
        summary = json.loads(stdout) if stdout.strip() else {}
        tracebacks, names_on_stderr, one_line = stderr_faults(err)
        row["tried"] += len(lines)
        row["mutated"] += len(hit)
        row["rejected"] += summary.get("rejected", 0)
        row["taken"] += summary.get("imported", 0)
        row["lost"] += max(0, clean[log] - summary.get("imported", 0) - 2 * len(hit))
        row["tracebacks"] += tracebacks
        row["exception_names"] += names_on_stderr
        row["bad_exit"] += int(code not in (0, 1, 2) or not summary)
        row["secrets"] += secrets_in([db, rej], stdout, err)
        row["one_line_messages"] = row["one_line_messages"] and one_line
        for p in (damaged, db, rej):
            p.unlink(missing_ok=True)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=150_000, help="lines in all, shared among the line readers")
    ap.add_argument("--per-file", type=int, default=4_000, help="lines in one input file (one command run)")
    ap.add_argument("--text-copies", type=int, default=40, help="damaged copies of the text logs")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    mutations.HUGE_BYTES = (64 * 1024, 256 * 1024, 1024 * 1024)  # the long lines the fast suite leaves out
    rng = random.Random(args.seed)
    names, weights = list(WEIGHTS), list(WEIGHTS.values())
    rows: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fimreplay-fuzz-") as tmp:
        work = Path(tmp)
        per_reader = args.lines // len(READERS)
        for reader in READERS:
            total: dict[str, Any] = {}
            for n in range(max(1, per_reader // args.per_file)):
                picks = [(rng.randrange(1000), name) for name in rng.choices(names, weights, k=args.per_file)]
                built = build_file(reader.kind, picks, rng, start=n * args.per_file, plant=lambda i, m: True)
                row = run_file(reader, built, work, n)
                for key, value in row.items():
                    total[key] = (total.get(key, True) and value) if key == "one_line_messages" else total.get(key, 0) + value
            rows[reader.name] = total
            print(json.dumps({"reader": reader.name, **total}), flush=True)
        rows["import text logs"] = run_text_logs(work, rng, args.text_copies)
        print(json.dumps({"reader": "import text logs", **rows["import text logs"]}), flush=True)
    keys = ("tried", "mutated", "rejected", "taken", "lost", "wrongly_taken", "twice", "tracebacks", "exception_names", "bad_exit",
            "secrets", "planted")
    totals = {k: sum(r[k] for r in rows.values()) for k in keys}
    totals["one_line_messages"] = all(r["one_line_messages"] for r in rows.values())
    totals["seconds"] = round(time.perf_counter() - t0)
    print(json.dumps({"totals": totals}))
    held = all(totals[k] == 0 for k in ("lost", "wrongly_taken", "twice", "tracebacks", "exception_names", "bad_exit", "secrets"))
    return 0 if held and totals["one_line_messages"] else 1


if __name__ == "__main__":
    sys.exit(main())
