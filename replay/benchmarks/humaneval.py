"""openai/human-eval-infilling: the HumanEval infilling benchmarks of the InCoder and FIM papers.

Files (commit 88062ff9859c875d04db115b698ed4b0f0395170, data/): HumanEval-SingleLineInfilling
(1,033 rows), -MultiLineInfilling (5,815), -RandomSpanInfilling (1,640), -RandomSpanInfillingLight
(164), each .jsonl.gz. A row: task_id ("SingleLineInfilling/HumanEval/0/L0"), entry_point, prompt,
suffix, canonical_solution, test. Its checker (human_eval_infilling/execution.py
check_correctness) runs prompt + completion + suffix + "\\n" + test + "\\n" + "check(<entry_point>)":
the prompt is the prefix, canonical_solution the middle, and `test` and `entry_point` are kept
with the item. The per-file unit is the HumanEval problem ("HumanEval/0"), whose spots are the
rows; the mode is the benchmark's name as human_eval_infilling/data.py read_problems takes it.
"""

from __future__ import annotations

from replay.benchmarks.rows import BadRow, Row, item
from replay.records import FimItem

FORMAT = "humaneval-infilling"
REQUIRED = ("task_id", "prompt", "suffix", "canonical_solution", "test", "entry_point")
CHECKER = ("test", "entry_point")  # execution.py runs test, then check(entry_point)

# task_id's first part -> read_problems' benchmark_name
MODES = {"SingleLineInfilling": "single-line", "MultiLineInfilling": "multi-line",
         "RandomSpanInfilling": "random-span", "RandomSpanInfillingLight": "random-span-light"}


def parse(row: Row) -> FimItem:
    task_id = row.text("task_id")
    parts = task_id.split("/")
    if len(parts) != 4 or parts[0] not in MODES or parts[1] != "HumanEval":
        raise BadRow(f"task_id {task_id!r} is not <benchmark>/HumanEval/<problem>/<spot>"
                     f" (benchmark one of {', '.join(MODES)})")
    return item(task_id, f"{parts[1]}/{parts[2]}", row.text("prompt"), row.text("canonical_solution"), row.text("suffix"),
                benchmark=FORMAT, mode=MODES[parts[0]], language="python", test=row.text("test"),
                entry_point=row.text("entry_point"))
