"""A published HumanEval single-line infilling row reproduced, and the editor effect beside it.

The row: Qwen2.5-Coder's own FIM harness (QwenLM/Qwen2.5-Coder,
qwencoder-eval/base/benchmarks/fim-bench/hm_fim/humaneval_fim.py and utils.py, commit 3cf0bba):
the bare `<|fim_prefix|>P<|fim_suffix|>S<|fim_middle|>` prompt (the standard profile's Qwen
template), greedy, 64 new tokens, EM of the first non-blank line stripped
(replay.benchmarks.published). The same items are then replayed under Continue's, Tabby's and
Copilot's prompts, budgets and completion stages (newest releases), and every run is scored by EM
and by running the benchmark's test with the shown line in place (score --execute).

The 1,033 problems are taken in a seeded random order (`random.Random(seed).sample`) and replayed
in chunks, every profile on a chunk before the next chunk, so that whatever is done when
`--until` (UTC, HH:MM) comes is a seeded random subset every profile has: its first N items.
One model process at a time (`nice -n 10`), each run resumable and the completions cached, so a
second call only scores.

Run: FIMREPLAY_HOME=DIR python -m bench.humaneval_published [DATA.jsonl.gz] --model NAME
     [--chunk 20] [--seed 0] [--until 15:45] [--editor-chunks K] [--report-only]
NAME is a model as `fimreplay run --model` takes it: a model asset's name (the demo model is
`qwen2.5-coder-0.5b-instruct-q4_k_m`, also `default`), or a GGUF file's path (a name ending in
`.gguf` is a path, not the asset).
With --editor-chunks K the editors replay the first K chunks and the standard profile alone the
chunks after them, until --until: the authors' method on more items than the editor comparison.
Prints the Markdown table docs/figures.md holds.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
from itertools import takewhile
from pathlib import Path

from bench.humaneval_table import EDITORS, LONG, table
from bench.support import ROOT
from replay.benchmarks.published import line_settled
from replay.store import open_store

DATA = ROOT / "tests" / "data" / "benchmarks" / "HumanEval-SingleLineInfilling.jsonl.gz"
AUTHORS_NEW_TOKENS = 64  # humaneval_fim.py: --gen_length default 64
FIRST_BUDGET = 24  # the standard run's first pass: most kept lines are settled within it
ENGINE_CTX = 2048  # humaneval_fim.py: --max_seq_length default 2048


def fimreplay(*args: str, nice: bool = False) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "replay", *args]
    return subprocess.run((["nice", "-n", "10"] if nice else []) + cmd, capture_output=True, text=True)


def chunks(home: Path, data: Path, seed: int, size: int) -> list[Path]:
    """The benchmark's items (evalgen --from humaneval-infilling) in the seeded order, cut in chunk files."""
    items = home / "he-single.jsonl"
    done = fimreplay("evalgen", str(data), "--from", "humaneval-infilling", "-o", str(items))
    if done.returncode != 0:
        sys.exit(done.stderr.strip())
    lines = items.read_text(encoding="utf-8").splitlines(keepends=True)
    order = random.Random(seed).sample(range(len(lines)), len(lines))
    out = []
    for k in range(0, len(order), size):
        path = home / f"single{size}-s{seed}-c{k // size:03d}.jsonl"
        path.write_text("".join(lines[i] for i in order[k:k + size]), encoding="utf-8")
        out.append(path)
    return out


def run_id(chunk: Path, editor: str) -> str:
    return f"{chunk.stem}-{editor}"


def replay(chunk: Path, run: str, model: str, threads: int, editor: str, *extra: str) -> bool:
    done = fimreplay("run", str(chunk), "--model", model, "--editor", editor, "--run-id", run,
                     "--ctx", str(ENGINE_CTX), "--threads", str(threads), *extra, nice=True)
    said = done.stderr.strip().splitlines()
    print(f"{run}: {said[0] if said else done.returncode}", file=sys.stderr, flush=True)
    return done.returncode == 0


def unsettled(chunk: Path, run: str) -> Path | None:
    """The chunk's items whose first-pass generation hit its budget before the harness's kept
    line ended (replay.benchmarks.published.line_settled), as a file; None when there are none."""
    store = open_store()
    try:
        short = {c.item_id for c in store.completions(run)
                 if c.finish_reason == "length" and not line_settled(c.text)}
    finally:
        store.close()
    lines = [line for line in chunk.read_text(encoding="utf-8").splitlines(keepends=True)
             if json.loads(line)["id"] in short]
    if not lines:
        return None
    path = chunk.with_name(chunk.stem + "-long.jsonl")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def replay_standard(chunk: Path, model: str, threads: int) -> bool:
    """The standard profile on one chunk: the authors' 64 new tokens in two passes that read the
    same, FIRST_BUDGET tokens for every item, then 64 for the items whose kept line was not yet
    ended (greedy decoding: a shorter budget gives the first tokens of the longer generation)."""
    first = run_id(chunk, "standard")
    if not replay(chunk, first, model, threads, "standard", "--max-new-tokens", str(FIRST_BUDGET)):
        return False
    long = unsettled(chunk, first)
    return long is None or replay(long, run_id(chunk, LONG), model, threads, "standard",
                                  "--max-new-tokens", str(AUTHORS_NEW_TOKENS))


def replay_chunk(chunk: Path, model: str, threads: int, editors: bool) -> bool:
    """The standard profile on one chunk, then (`editors`) every editor profile, one model
    process after another; False when one failed."""
    if not replay_standard(chunk, model, threads):
        return False
    return not editors or all(replay(chunk, run_id(chunk, e), model, threads, e) for e in EDITORS[1:])


def replayed(chunk: Path, profile: str) -> bool:
    """Whether the chunk's run of this profile holds every item of the chunk."""
    done = fimreplay("score", run_id(chunk, profile), "--json")
    wanted = len(chunk.read_text(encoding="utf-8").splitlines())
    return done.returncode == 0 and json.loads(done.stdout).get("n_items") == wanted


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path, nargs="?", default=DATA)
    ap.add_argument("--model", default="default")
    ap.add_argument("--chunk", type=int, default=20, help="Items a chunk (every profile runs a chunk before the next).")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--until", default="", help="UTC HH:MM after which no new chunk starts (default: all chunks).")
    ap.add_argument("--editor-chunks", type=int, default=0,
                    help="Chunks every profile replays; the standard profile alone goes on with the next (0: all profiles always).")
    ap.add_argument("--report-only", action="store_true", help="Score the chunks already replayed, start none.")
    args = ap.parse_args()
    if not os.environ.get("FIMREPLAY_HOME"):
        sys.exit("set FIMREPLAY_HOME to the folder whose store keeps the runs")
    parts = chunks(Path(os.environ["FIMREPLAY_HOME"]), args.data, args.seed, args.chunk)
    stop = dt.time.fromisoformat(args.until) if args.until else None
    for n, chunk in enumerate(parts):
        if args.report_only or (stop is not None and dt.datetime.now(dt.timezone.utc).time() >= stop):
            break
        if not replay_chunk(chunk, args.model, args.threads, editors=not args.editor_chunks or n < args.editor_chunks):
            break
    every = list(takewhile(lambda c: replayed(c, EDITORS[-1]), parts))  # chunks are replayed in order
    standard = list(takewhile(lambda c: replayed(c, "standard"), parts))
    print(table({e: [run_id(c, e) for c in every] for e in (*EDITORS, LONG)}, seed=args.seed))
    print("\nThe standard profile alone, the authors' method, on every chunk it replayed:\n")
    print(table({e: [run_id(c, e) for c in standard] for e in ("standard", LONG)}, seed=args.seed, editors=("standard",)))


if __name__ == "__main__":
    main()
