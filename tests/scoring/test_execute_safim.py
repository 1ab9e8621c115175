"""SAFIM's completions judged as its harness judges them (gonglinyuan/safim evaluate.py, exec_utils.py
and ExecEval): the whole program with the completion in place, fed each unit test, on real rows
of the published data (tests/data/benchmarks/safim-231b148-*.jsonl) in Python, Java and C++."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from replay.records import FimItem
from replay.scoring import execute
from replay.scoring.sandbox import Limits
from tests.benchmarks.test_formats import DATA, read

pytestmark = pytest.mark.skipif(not (shutil.which("java") and shutil.which("javac") and shutil.which("g++")),
                                reason="needs a JDK and g++")


def _items(tmp_path: Path) -> list[FimItem]:
    items = []
    for config in ("block", "control"):
        got, rejects = read(DATA / f"safim-231b148-{config}.jsonl", "safim", tmp_path)
        assert rejects.count == 0
        items += got
    return items


def _judge(items: list[FimItem], completion, tmp_path: Path, seconds: float = 3.0) -> dict[str, list[str]]:
    checks = [execute.item_checks(it, completion(it), "all") for it in items]
    outcomes = iter(execute.execute_many([p for c in checks if c for p in c], Limits(seconds=seconds), workers=2,
                                         cache=tmp_path / "x.sqlite"))
    return {it.id: [next(outcomes).status for _ in c] for it, c in zip(items, checks) if c is not None}


def test_the_real_rows_have_unit_tests_in_three_runnable_languages(tmp_path: Path) -> None:
    items = _items(tmp_path)
    assert len(items) == 16 and all(it.unit_tests and "{{completion}}" in it.eval_prompt for it in items)
    assert {it.language for it in items} == {"python", "java", "cpp", "csharp"}
    assert not execute.runnable("csharp")  # no C# compiler here: those items get no pass@1
    assert [execute.item_checks(it, "", "all") for it in items if it.language == "csharp"] == [None] * 4


def test_the_ground_truth_passes_without_running(tmp_path: Path) -> None:
    # evaluate.py: a completion equal to ground_truth is PASSED before any execution.
    items = [it for it in _items(tmp_path) if execute.runnable(it.language)]
    assert [execute.item_checks(it, it.middle, "all") for it in items] == [[]] * len(items)


def test_the_ground_truth_run_passes_every_unit_test(tmp_path: Path) -> None:
    # The same text run anyway (a trailing space keeps the shortcut off; the programs are the same).
    items = [it for it in _items(tmp_path) if execute.runnable(it.language)]
    judged = _judge(items, lambda it: it.middle + " ", tmp_path)
    assert len(judged) == 12 and all(statuses and set(statuses) == {"passed"} for statuses in judged.values()), judged


def test_an_empty_completion_fails(tmp_path: Path) -> None:
    items = [it for it in _items(tmp_path) if execute.runnable(it.language)]
    judged = _judge(items, lambda it: "", tmp_path)
    assert all("failed" in statuses or "timed out" in statuses for statuses in judged.values()), judged


def test_a_runaway_completion_is_timed_out(tmp_path: Path) -> None:
    items = [it for it in _items(tmp_path) if it.language in ("python", "java") and it.id.startswith("block")]
    loop = {"python": "while True: pass", "java": "while (true) {}"}
    judged = _judge(items, lambda it: loop[it.language], tmp_path, seconds=0.5)
    # A unit test whose input never reaches the block passes; the item fails on the others.
    assert all("timed out" in statuses for statuses in judged.values()), judged
