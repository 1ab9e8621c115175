"""Import speed: `fimreplay import` machinery vs a bare msgspec line loop, same file, same run.

Generates a Tabby event log of N events (default 200,000: one completion with segments and a
logged prompt, then view and select/dismiss events, the mix a real log has), then times
  bare:   for line in f: msgspec.json.decode(line)
  import: Importer(store, ...).import_file(path)  (detect, typed decode, records, content
          hashes, SQLite inserts in WAL mode, outcome join)
and prints MB/s of each and their ratio. Targets (issue 2): >= 50 MB/s and >= 0.5x bare.

    /work/main/.venv/bin/python bench/import_bench.py [--events 200000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from replay.importers.common import RejectLog  # noqa: E402
from replay.importers.importer import Importer  # noqa: E402
from replay.store import Store  # noqa: E402

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


def machinery(path: Path, workdir: Path) -> tuple[float, dict[str, object]]:
    db = workdir / f"bench-{time.monotonic_ns()}.db"
    store = Store(db)
    rejects = RejectLog(path=workdir / "rejects.jsonl")
    start = time.perf_counter()
    with Importer(store, rejects) as importer:
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
        runs = [machinery(log, work) for _ in range(args.repeat)]
        t_imp, summary = min(runs, key=lambda r: r[0])
        print(f"log: {args.events} events, {mb:.1f} MB; import result: {summary['imported']} captures, "
              f"{summary['outcomes']} outcomes, {summary['rejected']} rejected")
        print(f"bare msgspec loop : {mb / t_bare:8.1f} MB/s ({t_bare:.2f} s)")
        print(f"fimreplay import  : {mb / t_imp:8.1f} MB/s ({t_imp:.2f} s)")
        print(f"ratio import/bare : {t_bare / t_imp:8.2f}x   (targets: >= 50 MB/s, >= 0.5x)")


if __name__ == "__main__":
    main()
