"""Two writers and a watcher on one store under repeated kill -9: two `fimreplay import`
processes importing overlapping sets of Tabby event logs, and a `fimreplay watch` of a folder
whose log grows while they run, each killed with SIGKILL (its whole session: the import's reader
process too) at random moments and started again, `--kills` times in all. Then each command runs
once more to its end, as a user would after a crash, and the store is checked:

- every completion of every log present exactly once (lost, duplicated, extra counted): imports
  are idempotent by line identity (replay.store.encoding.line_digest) and the watch goes on from
  the offset its last commit kept;
- `PRAGMA integrity_check` ok;
- what the commands said: no traceback, and each line about a locked store one line naming the
  store and what to do (`--lock-wait` seconds, short so that locks do happen).

    .venv/bin/python -m bench.faults.kills [--kills 60] [--events 60000] [--lock-wait 1] [--seed 5]

Prints the kills by target, the time, and the totals. Exits 1 when anything did not hold.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from bench.faults.imports import good_ids
from bench.speed.import_log import generate
from bench.support import ROOT


class Command:
    """One fimreplay command, started again whenever it ended or was killed."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], logs: Path) -> None:
        self.name, self.args, self.env, self.logs = name, args, env, logs
        self.proc: subprocess.Popen[bytes] | None = None
        self.runs = 0
        self.exits: Counter[int] = Counter()

    def start(self) -> None:
        self.runs += 1
        err = open(self.logs / f"{self.name}-{self.runs}.err", "wb")  # noqa: SIM115 - the child holds it
        self.proc = subprocess.Popen([sys.executable, "-m", "replay", *self.args], stdout=subprocess.DEVNULL, stderr=err,
                                     env=self.env, cwd=str(self.logs), start_new_session=True)
        err.close()

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        assert self.proc is not None
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.exits[self.proc.wait()] += 1

    def reap(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            self.exits[self.proc.returncode] += 1
            self.proc = None


def grow(log: Path, source: Path, stop: threading.Event) -> None:
    """Append `source`'s lines to `log` a few at a time, as an editor's server writes its log."""
    with open(source, "rb") as src, open(log, "ab") as out:
        lines = src.readlines()
        i = 0
        while i < len(lines) and not stop.is_set():
            out.writelines(lines[i:i + 300])
            out.flush()
            i += 300
            time.sleep(0.05)
        out.writelines(lines[i:])


def stored(db: Path) -> list[str]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as con:
        return [r[0] for r in con.execute("SELECT completion_id FROM captures")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=60)
    ap.add_argument("--events", type=int, default=60_000, help="event lines per log (a third are completions)")
    ap.add_argument("--lock-wait", type=float, default=1.0, help="FIMREPLAY_LOCK_WAIT of every command")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="fimreplay-kills-") as tmp:
        work = Path(tmp)
        logs, inputs, watched = work / "logs", work / "in", work / "watched"
        for d in (logs, inputs, watched):
            d.mkdir()
        files = []
        for i in range(6):
            files.append(inputs / f"2024-10-{i + 1:02d}.json")
            generate(files[-1], args.events, seed=100 + i)
        growing_source = work / "source.json"
        generate(growing_source, args.events, seed=200)
        growing = watched / "2024-10-10.json"
        expected = [cid for f in (*files, growing_source) for cid in good_ids(f)]
        db = work / "s.db"
        env = dict(os.environ, PYTHONPATH=str(ROOT), FIMREPLAY_HOME=str(work / "home"), FIMREPLAY_LOCK_WAIT=str(args.lock_wait))
        commands = [
            Command("import-a", ["import", *map(str, files[:4]), "--db", str(db)], env, logs),
            Command("import-b", ["import", *map(str, files[2:]), "--db", str(db)], env, logs),
            Command("watch", ["watch", str(watched), "--db", str(db)], env, logs),
        ]
        stop = threading.Event()
        writer = threading.Thread(target=grow, args=(growing, growing_source, stop))
        t0 = time.monotonic()
        writer.start()
        killed: Counter[str] = Counter()
        at_kills: list[int] = []  # captures in the store as each kill landed: the writers got on between kills
        try:
            for c in commands:
                c.start()
            while sum(killed.values()) < args.kills:
                time.sleep(rng.uniform(0.2, 1.5))
                for c in commands:
                    c.reap()
                    if not c.running():
                        c.start()
                target = rng.choice(commands)
                if target.running():
                    target.kill()
                    at_kills.append(len(stored(db)) if db.exists() else 0)
                    killed[target.name] += 1
                    target.proc = None
                    target.start()
        finally:
            stop.set()
            writer.join()
            for c in commands:
                if c.running():
                    c.kill()
        kill_s = time.monotonic() - t0
        # After the crashes: each command once more, to its end.
        final = {}
        for c in commands[:2]:
            c.start()
            assert c.proc is not None
            final[c.name] = c.proc.wait(timeout=600)
        watch = commands[2]
        watch.start()
        deadline = time.monotonic() + 300
        want = set(good_ids(growing_source))
        while time.monotonic() < deadline and not want <= set(stored(db)):
            time.sleep(0.5)
        assert watch.proc is not None
        watch.proc.send_signal(signal.SIGINT)
        final["watch"] = watch.proc.wait(timeout=60)
        got = stored(db)
        with sqlite3.connect(db) as con:
            integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        said = [line for f in sorted(logs.glob("*.err")) for line in f.read_text(encoding="utf-8", errors="replace").splitlines()]
    locked = [line for line in said if "locked" in line]
    for name, n in sorted(killed.items()):
        print(json.dumps({"target": name, "kills": n, "runs": next(c.runs for c in commands if c.name == name)}))
    totals = {
        "kills": sum(killed.values()), "kill_phase_s": round(kill_s, 1), "captures_expected": len(expected),
        "stored_at_kills": [at_kills[0], at_kills[len(at_kills) // 2], at_kills[-1]] if at_kills else [],
        "stored": len(got), "lost": len(set(expected) - set(got)), "duplicated": len(got) - len(set(got)),
        "extra": len(set(got) - set(expected)), "integrity_check": integrity, "final_exit_codes": final,
        "tracebacks": sum("Traceback" in line for line in said), "locked_lines": len(locked),
        "locked_lines_one_line_naming_the_store": sum(line.startswith(f"fimreplay: {db}: the store is locked") for line in locked),
        "locked_sample": locked[:1],
    }
    print(json.dumps(totals))
    held = (totals["lost"] == totals["duplicated"] == totals["extra"] == totals["tracebacks"] == 0 and integrity == "ok"
            and totals["locked_lines"] == totals["locked_lines_one_line_naming_the_store"]
            and all(code == 0 for code in final.values()) and totals["kills"] >= args.kills)
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
