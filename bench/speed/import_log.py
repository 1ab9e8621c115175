"""Import speed: `fimreplay import` machinery vs a bare msgspec line loop, same file, same run.

Generates a Tabby event log of N events (default 200,000: one completion with segments and a
logged prompt, then view and select/dismiss events, the mix a real log has), then times
  bare:   for line in f: msgspec.json.decode(line)
  import: Importer(store, ...).import_file(path)  (detect, typed decode, identities, lz4 of
          each capture line, SQLite inserts in WAL mode, outcome join)
  floor:  the same lines inserted as blobs into one SQLite table (WAL), no parsing
and prints MB/s of each and their ratios: where the import stands between decoding alone and
writing the bytes alone. The target (>= 50 MB/s as a whole `fimreplay import` process) is
measured by bench/speed/all.py.

    .venv/bin/python -m bench.speed.import_log [--events 200000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path

import msgspec

from replay.rejects import Rejects
from replay.importers.importer import Importer
from replay.store import Store

_WORDS = ["balance", "amount", "owner", "token", "require", "msg.sender", "uint256", "address", "mapping", "emit",
          "return", "function", "external", "view", "public", "internal", "storage", "memory", "revert", "event"]


def _code(rng: random.Random, lines: int) -> str:
    return "".join("    " * rng.randint(0, 3) + " ".join(rng.choices(_WORDS, k=rng.randint(2, 9))) + ";\n" for _ in range(lines))


def generate(path: Path, events: int, seed: int = 7) -> int:
    """Write `events` Tabby event lines (1 completion : 2 outcome events); return the byte size."""
    rng = random.Random(seed)
    ts = 1727740790000
    with open(path, "w", encoding="utf-8") as f:
        n = 0
        while n < events:
            cid = f"cmpl-{rng.getrandbits(128):032x}"
            prefix, suffix = _code(rng, 20), _code(rng, 12)
            decl = {"filepath": "contracts/IERC20.sol", "body": _code(rng, 4)}
            prompt = f"// Path: {decl['filepath']}\n" + "".join(f"// {ln}\n" for ln in decl["body"].splitlines()) + prefix
            line = {"user": "alice@example.org", "ts": ts, "event": {"completion": {
                "completion_id": cid, "language": "solidity",
                "prompt": f"<|fim_prefix|>{prompt}<|fim_suffix|>{suffix}<|fim_middle|>",
                "segments": {"prefix": prefix, "suffix": suffix, "declarations": [decl], "filepath": "contracts/Vault.sol"},
                "choices": [{"index": 0, "text": _code(rng, 2)}], "user_agent": "tabby-agent/1.7.0 vscode/1.92.2"}}}
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
            f.write(json.dumps({"user": "alice@example.org", "ts": ts + 400, "event": {"view": {"completion_id": cid, "choice_index": 0, "view_id": f"view-{cid}-1"}}}, separators=(",", ":")) + "\n")
            kind = "select" if rng.random() < 0.3 else "dismiss"
            f.write(json.dumps({"user": "alice@example.org", "ts": ts + 1500, "event": {kind: {"completion_id": cid, "choice_index": 0, "view_id": f"view-{cid}-1", "elapsed": 1100}}}, separators=(",", ":")) + "\n")
            n += 3
            ts += 2000
    return path.stat().st_size


def bare(path: Path) -> float:
    start = time.perf_counter()
    decode = msgspec.json.decode
    with open(path, "rb") as f:
        for line in f:
            decode(line)
    return time.perf_counter() - start


def sqlite_floor(path: Path, workdir: Path) -> float:
    """The bytes alone: every line inserted as it is, as a blob, into one table of a WAL store
    with the store's page size, in transactions of the import's size, with no parsing. What
    keeping the log in SQLite costs before any work on it (the import stores capture lines
    lz4-compressed, so it writes fewer bytes than this)."""
    db = workdir / f"floor-{time.monotonic_ns()}.db"
    con = sqlite3.connect(db, isolation_level=None)
    con.execute("PRAGMA page_size=8192")
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE TABLE lines (id INTEGER PRIMARY KEY, line BLOB NOT NULL)")
    start = time.perf_counter()
    with open(path, "rb") as f:
        while batch := [(line,) for line in itertools.islice(f, 20_000)]:
            con.execute("BEGIN")
            con.executemany("INSERT INTO lines (line) VALUES (?)", batch)
            con.execute("COMMIT")
    elapsed = time.perf_counter() - start
    con.close()
    return elapsed


def machinery(path: Path, workdir: Path) -> tuple[float, dict[str, object]]:
    db = workdir / f"bench-{time.monotonic_ns()}.db"
    store = Store(db)
    rejects = Rejects(workdir / "rejects.jsonl")
    start = time.perf_counter()
    importer = Importer(store, rejects)
    summary = importer.import_file(path)
    elapsed = time.perf_counter() - start
    store.close()
    return elapsed, summary.to_json()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs each")
    ap.add_argument("--keep", type=Path, default=None, help="keep the generated log and stores in this folder")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        log = work / "2024-09-30.json"
        size = generate(log, args.events)
        mb = size / 1e6
        t_bare = min(bare(log) for _ in range(args.repeat))
        t_floor = min(sqlite_floor(log, work) for _ in range(args.repeat))
        runs = [machinery(log, work) for _ in range(args.repeat)]
        t_imp, summary = min(runs, key=lambda r: r[0])
        print(f"log: {args.events} events, {mb:.1f} MB; import result: {summary['imported']} captures, "
              f"{summary['outcomes']} outcomes, {summary['rejected']} rejected")
        print(f"bare msgspec loop : {mb / t_bare:8.1f} MB/s ({t_bare:.2f} s)")
        print(f"fimreplay import  : {mb / t_imp:8.1f} MB/s ({t_imp:.2f} s)")
        print(f"sqlite floor      : {mb / t_floor:8.1f} MB/s ({t_floor:.2f} s)  the lines as blobs, no parsing")
        print(f"ratio import/bare : {t_bare / t_imp:8.2f}x")
        print(f"ratio floor/bare  : {t_bare / t_floor:8.2f}x   (writing the log's bytes to SQLite, nothing else)")
        print(f"ratio import/floor: {t_floor / t_imp:8.2f}x")


if __name__ == "__main__":
    main()
