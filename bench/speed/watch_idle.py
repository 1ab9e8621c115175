"""`fimreplay watch` at rest: the CPU seconds the watching process takes over idle seconds once it
has imported its folder's files (nothing written meanwhile). An idle watch should only stat its
files once a second; a watch that answers its own reads (inotify's open and close-without-write
events) reads them again and again, a core busy for as long as it runs.

Copies the Tabby event logs and Continue dev data of captures/ into a fresh folder, starts
`fimreplay watch FOLDER --json` as its own process, waits for every file's first import line,
then reads the process's CPU time (user + system, /proc/PID/stat) before and after `--idle`
seconds. `--checkout` measures another checkout of fimreplay (its code first on PYTHONPATH), to
compare with the code before a change.

    .venv/bin/python -m bench.speed.watch_idle [--idle 10] [--checkout DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.support import ROOT

_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--idle", type=float, default=10.0, help="idle seconds measured")
    ap.add_argument("--checkout", type=Path, default=ROOT, help="the fimreplay checkout to run (default: this one)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="fimreplay-watch-idle-") as tmp:
        folder = Path(tmp) / "captures"
        for sub in ("tabby/events", "continue/dev_data"):
            shutil.copytree(ROOT / "captures" / sub, folder / sub)
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        env = dict(os.environ, PYTHONPATH=str(args.checkout.resolve()), FIMREPLAY_HOME=str(Path(tmp) / "home"))
        proc = subprocess.Popen([sys.executable, "-m", "replay", "watch", str(folder), "--db", str(Path(tmp) / "s.db"),
                                 "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env,
                                cwd=tmp)
        try:
            assert proc.stdout is not None
            seen: set[str] = set()
            while len(seen) < len(files):
                line = proc.stdout.readline()
                if not line:
                    raise SystemExit("the watch ended before it imported every file")
                seen.add(json.loads(line)["file"])
            time.sleep(1.0)  # the last import's own tail (its commit, the first rescan)
            before, t0 = cpu_seconds(proc.pid), time.monotonic()
            time.sleep(args.idle)
            used, wall = cpu_seconds(proc.pid) - before, time.monotonic() - t0
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    print(json.dumps({"checkout": str(args.checkout.resolve()), "files": len(files), "idle_s": round(wall, 1),
                      "cpu_s": round(used, 2), "cpu_share": round(used / wall, 3), "load_average": os.getloadavg()[0]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
