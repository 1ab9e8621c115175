"""HumanEval single-line infilling (openai/human-eval-infilling, tests/data/benchmarks: its README names the commit) as
the items `score --execute` reads: the benchmark's record turned into an item's fields."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import ROOT

SINGLE_LINE = ROOT / "tests" / "data" / "benchmarks" / "HumanEval-SingleLineInfilling.jsonl.gz"


def problems(path: Path = SINGLE_LINE) -> list[dict[str, Any]]:
    """The file's records as the benchmark has them (task_id, prompt, suffix, canonical_solution,
    test, entry_point)."""
    return [json.loads(line) for line in gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()]


def item(record: dict[str, Any]) -> dict[str, Any]:
    """One record as an item: prompt is the prefix, canonical_solution the middle; the problem
    (HumanEval/N.py) is the file the per-file average uses and the editors see."""
    return {"id": record["task_id"], "file": record["task_id"].split("/", 1)[1].rpartition("/")[0] + ".py", "mode": "line",
            "language": "python", "prefix": record["prompt"], "middle": record["canonical_solution"],
            "suffix": record["suffix"], "test": record["test"], "entry_point": record["entry_point"]}


def cases(completion: Callable[[dict[str, Any]], str], path: Path = SINGLE_LINE) -> list[dict[str, Any]]:
    """Every item with the completion `completion(record)`."""
    return [{**item(r), "completion": completion(r)} for r in problems(path)]
