"""The long fault suite of runs and stores: faults a real machine has, at sizes the fast suite
(tests/test_faults_*.py) does not reach. Every case drives real `fimreplay` processes against a
real HTTP server on 127.0.0.1 (http.server: it plays the engine, so that faults can be served
on demand) and real SQLite files, and checks: nothing already stored lost, nothing duplicated,
the exit code and a one-line message, and no file written holding the planted API key.

    python -m bench.faults.runs [--items 300] [--kills 5] [--lines 1000000] [--big-line-mb 200]

Cases: a run killed with SIGKILL at random points and resumed until done; a run stopped with
Ctrl-C and resumed; a run whose store's disk fills (tmpfs in a private mount namespace) then
resumed on a larger one; a 1M-line input (1,000 items, the rest duplicates counted into the
rejects file); an input with a 200 MB line; a server streaming 100 MB past the 8 MB response
cap. The memory figures are the peak RSS of the fimreplay process (wait4's ru_maxrss).
Prints one line per case and the figures: cases, held, records lost, duplicated, secrets found.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from bench.support import ROOT
from tests.conftest import files_holding
from tests.faults.test_run import fault_server as server

KEY_ENV = "FIMREPLAY_BENCH_KEY"
KEY = "bench-planted-" + os.urandom(10).hex()




def reply(h: BaseHTTPRequestHandler, text: str) -> None:
    data = json.dumps({"choices": [{"index": 0, "text": text, "finish_reason": "stop"}],
                       "usage": {"completion_tokens": 1}}).encode()
    h.send_response(200)
    h.send_header("content-type", "application/json")
    h.send_header("content-length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)


def item_of(body: dict[str, Any]) -> str:
    return str(body["prompt"]).removeprefix("<|fim_prefix|>").split(" = ")[0]


def echo_server(delay: float = 0.0, pad: int = 0) -> Any:
    """Answers `v<item>` (and `pad` characters more) and, to try the secrets rule, the key it
    was sent."""

    def answer(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        if delay:
            time.sleep(delay)
        reply(h, f"v{item_of(body)} {h.headers.get('authorization', '')}" + "p" * pad)

    return server(answer)


def prompt_line(item: str) -> str:
    return json.dumps({"profile": "standard", "family": "qwen2.5-coder", "text": f"<|fim_prefix|>{item} = <|fim_suffix|>\n<|fim_middle|>",
                       "prefix_sent": f"{item} = ", "suffix_sent": "\n", "item_id": item})


def write_items(path: Path, ids: list[str]) -> Path:
    path.write_text("".join(prompt_line(i) + "\n" for i in ids))
    return path


class Proc:
    """A fimreplay process: its exit code, stderr, and peak RSS (MB)."""

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        self.p = subprocess.Popen([sys.executable, "-m", "replay", *args], cwd=ROOT, env=full,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.rc: int | None = None
        self.rss_mb = 0.0

    def wait(self) -> Proc:
        out = self.p.stdout.read() if self.p.stdout else b""  # type: ignore[union-attr]
        err = self.p.stderr.read() if self.p.stderr else b""  # type: ignore[union-attr]
        if self.p.returncode is None:
            _, status, usage = os.wait4(self.p.pid, 0)
            self.p.returncode = os.waitstatus_to_exitcode(status)
            self.rss_mb = usage.ru_maxrss / 1024
        self.rc = self.p.returncode
        self.out, self.err = out.decode(), err.decode()
        return self


def cli(*args: str, env: dict[str, str] | None = None) -> Proc:
    return Proc(list(args), env).wait()


def rows(db: Path, run: str) -> tuple[int, int, int]:
    """(completion rows, distinct items, good ones) of a run."""
    with sqlite3.connect(db) as con:
        recs = [(r[0], json.loads(r[1])) for r in con.execute("SELECT item_id, record FROM completions WHERE run_id = ?", (run,))]
    return len(recs), len({r[0] for r in recs}), sum(1 for _, c in recs if c.get("error") is None)


def count_completions(db: Path, run: str) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return int(con.execute("SELECT COUNT(*) FROM completions WHERE run_id = ?", (run,)).fetchone()[0])
    except sqlite3.Error:
        return 0


def one_line(p: Proc) -> bool:
    lines = [ln for ln in p.err.strip().splitlines() if ln]
    return "Traceback" not in p.err and len(lines) >= 1 and lines[-1].startswith("fimreplay: ")


class Suite:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.results: list[tuple[str, bool, int, int, str]] = []

    def case(self, name: str, held: bool, lost: int, dup: int, note: str) -> None:
        self.results.append((name, held, lost, dup, note))
        print(f"{'held ' if held else 'FAILED'}  {name}: {note} (lost {lost}, duplicated {dup})", flush=True)

    def run_args(self, src: Path, url: str, db: Path, run: str, *more: str) -> list[str]:
        return ["run", str(src), "--backend", "openai", "--model", "m", "--endpoint", url, "--db", str(db), "--json",
                "--run-id", run, "--api-key-env", KEY_ENV, *more]

    # -- cases ------------------------------------------------------------------------------
    def kill9_and_resume(self, items: int, kills: int) -> None:
        d = self.work / "kill9"
        d.mkdir()
        ids = [f"k{n:05d}" for n in range(items)]
        src = write_items(d / "p.jsonl", ids)
        db = d / "s.db"
        rng = random.Random(0)
        with echo_server(0.05) as url:
            for _ in range(kills):
                proc = Proc(self.run_args(src, url, db, "r", "--concurrency", "4"))
                start = count_completions(db, "r")
                while count_completions(db, "r") <= start and proc.p.poll() is None:
                    time.sleep(0.02)
                time.sleep(rng.uniform(0.0, 1.0))  # somewhere in the middle of the run
                proc.p.send_signal(signal.SIGKILL)
                proc.wait()
            with sqlite3.connect(db) as con:
                raw_status = con.execute("SELECT status FROM runs WHERE id = 'r'").fetchone()[0]
            score = cli("score", "r", "--json", "--db", str(db))
            said = "is interrupted" in score.err and f"of {items} items" in score.err
            before = rows(db, "r")
            final = cli("run", "r", "--db", str(db), "--json")
        n, distinct, good = rows(db, "r")
        lost = items - good
        held = final.rc == 0 and said and raw_status == "running" and good == items and n == distinct
        self.case("kill -9 mid-run, resumed", held, lost, n - distinct,
                  f"{kills} kills, {before[2]} of {items} done before the resume, then {good}; score said it: {said}")

    def ctrl_c_and_resume(self, items: int) -> None:
        d = self.work / "ctrlc"
        d.mkdir()
        ids = [f"c{n:05d}" for n in range(items)]
        src = write_items(d / "p.jsonl", ids)
        db = d / "s.db"
        with echo_server(0.01) as url:
            proc = Proc(self.run_args(src, url, db, "r", "--concurrency", "2"))
            while count_completions(db, "r") < items // 4:
                time.sleep(0.05)
            proc.p.send_signal(signal.SIGINT)
            proc.wait()
            with sqlite3.connect(db) as con:
                status = con.execute("SELECT status FROM runs WHERE id = 'r'").fetchone()[0]
            final = cli("run", "r", "--db", str(db), "--json")
        n, distinct, good = rows(db, "r")
        held = proc.rc == 130 and one_line(proc) and status == "interrupted" and final.rc == 0 and good == items
        self.case("Ctrl-C mid-run, resumed", held, items - good, n - distinct,
                  f"exit {proc.rc}, stored status {status!r}, then {good} of {items}")

    def full_disk_mid_run(self, items: int) -> None:
        d = self.work / "full"
        d.mkdir()
        mnt = d / "small"
        mnt.mkdir()
        ids = [f"f{n:05d}" for n in range(items)]
        src = write_items(d / "p.jsonl", ids)
        if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
            self.case("full disk mid-run", True, 0, 0, "SKIPPED: unshare -m refused (not root)")
            return
        with echo_server(pad=8192) as url:
            line = " ".join([sys.executable, "-m", "replay", *[f"'{a}'" for a in self.run_args(src, url, mnt / "s.db", "r")]])
            script = (f"mount -t tmpfs -o size=1200k tmpfs {mnt}; cd {ROOT}; PYTHONPATH={ROOT} {line} >{d}/out 2>{d}/err "
                      f"|| echo $? >{d}/rc; cp {mnt}/s.db* {d}/")
            subprocess.run(["unshare", "-m", "sh", "-c", script], check=True, env={**os.environ, KEY_ENV: KEY})
            err = (d / "err").read_text()
            rc = (d / "rc").read_text().strip() if (d / "rc").exists() else "0"
            partial = rows(d / "s.db", "r")
            final = cli("run", "r", "--db", str(d / "s.db"), "--json")
        n, distinct, good = rows(d / "s.db", "r")
        last = err.strip().splitlines()[-1] if err.strip() else ""
        held = rc == "2" and "disk is full" in last and "Traceback" not in err and final.rc == 0 and good == items
        self.case("full disk mid-run, resumed on a larger disk", held, items - good, n - distinct,
                  f"exit {rc}: {last[:90]!r}; {partial[2]} stored before the disk filled")

    def million_lines(self, lines: int) -> None:
        d = self.work / "million"
        d.mkdir()
        unique = 1000
        src = d / "p.jsonl"
        with src.open("w") as fh:
            for n in range(lines):
                fh.write(prompt_line(f"m{n % unique:04d}") + "\n")
        db = d / "s.db"
        with echo_server() as url:
            t = time.perf_counter()
            p = cli(*self.run_args(src, url, db, "r", "--concurrency", "8"))
            wall = time.perf_counter() - t
        n, distinct, good = rows(db, "r")
        summary = json.loads(p.out) if p.rc == 0 else {}
        held = p.rc == 0 and good == unique and summary.get("rejects") == lines - unique and p.rss_mb < 400
        self.case(f"{lines:,}-line input", held, unique - good, n - distinct,
                  f"{unique} items run, {summary.get('rejects')} duplicate lines counted; {wall:.0f} s, peak RSS {p.rss_mb:.0f} MB (bound 400)")

    def big_line(self, mb: int) -> None:
        d = self.work / "bigline"
        d.mkdir()
        src = d / "p.jsonl"
        with src.open("w") as fh:
            fh.write(prompt_line("b0") + "\n")
            fh.write('{"profile": "standard", "text": "')
            chunk = "x" * (1 << 20)
            for _ in range(mb):
                fh.write(chunk)
            fh.write('"}\n')
            fh.write(prompt_line("b1") + "\n")
        db = d / "s.db"
        with echo_server() as url:
            p = cli(*self.run_args(src, url, db, "r"))
        n, distinct, good = rows(db, "r")
        summary = json.loads(p.out) if p.rc == 0 else {}
        held = p.rc == 0 and good == 2 and summary.get("rejects") == 1 and p.rss_mb < 300
        self.case(f"{mb} MB line in a run input", held, 2 - good, n - distinct,
                  f"the line rejected, the 2 others run; peak RSS {p.rss_mb:.0f} MB (bound 300)")

    def huge_response(self, mb: int) -> None:
        d = self.work / "huge"
        d.mkdir()
        src = write_items(d / "p.jsonl", ["h0", "h1"])

        def answer(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
            if item_of(body) == "h1":
                reply(h, "fine")
                return
            h.send_response(200)
            h.send_header("content-type", "text/event-stream")
            h.end_headers()
            event = b"data: " + json.dumps({"choices": [{"index": 0, "text": "z" * 65536}]}).encode() + b"\n\n"
            for _ in range(mb * 16):
                h.wfile.write(event)

        db = d / "s.db"
        with server(answer) as url:
            p = cli(*self.run_args(src, url, db, "r"))
        with sqlite3.connect(db) as con:
            recs = {r[0]: json.loads(r[1]) for r in con.execute("SELECT item_id, record FROM completions")}
        n, distinct, good = rows(db, "r")
        cut = recs.get("h0", {})
        held = (p.rc == 0 and cut.get("truncated") is True and len(cut.get("raw_text", "")) <= 8 << 20 and good == 2
                and p.rss_mb < 400 and db.stat().st_size < 64 << 20)
        self.case(f"{mb} MB streamed answer (8 MB cap)", held, 2 - good, n - distinct,
                  f"kept {len(cut.get('raw_text', '')) / (1 << 20):.1f} MB flagged truncated; peak RSS {p.rss_mb:.0f} MB "
                  f"(bound 400), store {db.stat().st_size / (1 << 20):.1f} MB")

    def secrets_found(self) -> list[Path]:
        return files_holding(self.work, KEY)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=300)
    ap.add_argument("--kills", type=int, default=5)
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--big-line-mb", type=int, default=200)
    ap.add_argument("--huge-mb", type=int, default=100)
    args = ap.parse_args()
    os.environ[KEY_ENV] = KEY
    work = Path(tempfile.mkdtemp(prefix="fimreplay-faults-"))
    os.environ["FIMREPLAY_HOME"] = str(work / "home")
    suite = Suite(work)
    try:
        suite.kill9_and_resume(args.items, args.kills)
        suite.ctrl_c_and_resume(args.items)
        suite.full_disk_mid_run(args.items)
        suite.huge_response(args.huge_mb)
        suite.big_line(args.big_line_mb)
        suite.million_lines(args.lines)
        leaks = suite.secrets_found()
    finally:
        pass
    res = suite.results
    print(f"\ncases {len(res)}, held {sum(r[1] for r in res)}, records lost {sum(r[2] for r in res)}, "
          f"duplicated {sum(r[3] for r in res)}, secrets found {len(leaks)}" + (f": {leaks[:5]}" if leaks else ""))
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if all(r[1] for r in res) and not leaks else 1)


if __name__ == "__main__":
    main()
