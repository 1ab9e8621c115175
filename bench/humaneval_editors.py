"""HumanEval single-line infilling through the editors' eyes: the same items replayed against
one model under the standard profile (the benchmark authors' bare FIM prompt) and under
Continue's, Tabby's and Copilot's, each scored by exact match and by running the benchmark's
tests (score --execute): the editor effect on a published kind of number, measured.

Run: python -m bench.humaneval_editors [DATA.jsonl.gz] [--items N] [--seed S] [--model NAME]
NAME is a model as `fimreplay run --model` takes it: a model asset's name (the demo model is
`qwen2.5-coder-0.5b-instruct-q4_k_m`, also `default`), or a GGUF file's path (a name ending in
`.gguf` is a path, not the asset).
With --items N a seeded sample of N problems is replayed (the whole file is 1,033 items, at
several seconds an item per editor on this CPU). Runs are named humaneval-N-sS-EDITOR in the store
of FIMREPLAY_HOME (set it), resumed when there, so a second call only scores. Prints the Markdown
table docs/figures.md holds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

from tests.support.humaneval import SINGLE_LINE, item, problems

EDITORS = ("standard", "continue", "tabby", "copilot")


def fimreplay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "replay", *args], capture_output=True, text=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", type=Path, nargs="?", default=SINGLE_LINE)
    ap.add_argument("--items", type=int, default=0, help="A seeded sample of this many items (0: all).")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", default="default")
    ap.add_argument("--threads", type=int, default=1, help="Threads of each editor's run (the runs go side by side).")
    args = ap.parse_args()
    if not os.environ.get("FIMREPLAY_HOME"):
        sys.exit("set FIMREPLAY_HOME to the folder whose store keeps the runs")
    records = problems(args.data)
    picked = sorted(random.Random(args.seed).sample(range(len(records)), args.items)) if args.items else range(len(records))
    items = Path(os.environ["FIMREPLAY_HOME"]) / f"humaneval-{len(picked)}-s{args.seed}.jsonl"
    # Each item its own file (HumanEval/N/Lk.py), so that the mean over files is the mean over
    # items, as the benchmark's authors average.
    rows = [{**item(records[i]), "file": records[i]["task_id"].split("/", 1)[1] + ".py"} for i in picked]
    items.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    runs = {editor: f"humaneval-{len(picked)}-s{args.seed}-{editor}" for editor in EDITORS}
    started = [subprocess.Popen([sys.executable, "-m", "replay", "run", str(items), "--model", args.model, "--editor", editor,
                                 "--run-id", run, "--threads", str(args.threads)], stdout=subprocess.DEVNULL)
               for editor, run in runs.items()]
    for proc in started:
        proc.wait()
    print(f"HumanEval single-line infilling, {len(picked)} items (seed {args.seed}), model {args.model}\n")
    print("| editor profile | items | EM | pass@1 | Indel | shown nothing |")
    print("|---|---|---|---|---|---|")
    for editor, run in runs.items():
        done = fimreplay("score", run, "--execute", "--json")
        if done.returncode != 0:
            print(f"| {editor} | {done.stderr.strip()} | | | | |")
            continue
        result = json.loads(done.stdout)
        mean = result["mean"]
        print(f"| {editor} | {result['n_items']} | {mean['exact']:.3f} | {mean.get('pass@1', 0):.3f} | {mean['indel']:.3f}"
              f" | {result['n_nothing_shown']} |")


if __name__ == "__main__":
    main()
