"""SAFIM, Syntax-Aware Fill-in-the-Middle (gonglinyuan/safim, commit 95432865d458): algorithmic
blocks, control-flow expressions and API calls in Python, Java, C++ and C#.

Only on a model hub (gonglinyuan/safim, configs block, control, api), exported as JSON Lines.
A row (data_utils.py load_dataset, prompt_utils.py, exec_utils.py run_test): task_id, lang
(python | java | cpp | csharp), prompt (the program with the language's placeholder where the
middle goes: prompt_utils.py COMPLETION_PLACEHOLDER, split by get_infilling_parts into exactly
prefix and suffix), ground_truth (the middle), eval_prompt (the program the checker runs, with
"{{completion}}" in the middle's place) and unit_tests (stdin/stdout cases, a JSON string on the
hub that load_dataset decodes; a list is taken too). An empty unit_tests means the checker
compares the completion with ground_truth (evaluate.py syntax_match). Each task is its own
program, so the per-file unit is the task.
"""

from __future__ import annotations

import json
from typing import Any

from replay.benchmarks.rows import BadRow, Row, item
from replay.records import FimItem, UnitTest

FORMAT = "safim"
REQUIRED = ("task_id", "lang", "prompt", "ground_truth", "eval_prompt")
CHECKER = ("eval_prompt", "unit_tests")  # exec_utils.py run_test: the program fed each unit test

PLACEHOLDERS = {"python": "# TODO: Your code here", "java": "/* TODO: Your code here */",
                "cpp": "/* TODO: Your code here */", "csharp": "/* TODO: Your code here */"}
COMPLETION_MARK = "{{completion}}"  # where evaluate.py / exec_utils.py put the completion in eval_prompt


def parse(row: Row) -> FimItem:
    task_id, lang = row.text("task_id"), row.text("lang")
    if lang not in PLACEHOLDERS:
        raise BadRow(f"lang {lang!r} is not one of {', '.join(PLACEHOLDERS)}")
    parts = row.text("prompt").split(PLACEHOLDERS[lang])
    if len(parts) != 2:
        raise BadRow(f"prompt holds the placeholder {PLACEHOLDERS[lang]!r} {len(parts) - 1} times, not once")
    eval_prompt = row.text("eval_prompt")
    if COMPLETION_MARK not in eval_prompt:
        raise BadRow(f"eval_prompt has no {COMPLETION_MARK!r}")
    return item(task_id, task_id, parts[0], row.text("ground_truth"), parts[1], benchmark=FORMAT, mode="span",
                language=lang, eval_prompt=eval_prompt, unit_tests=_unit_tests(row.obj.get("unit_tests")))


def _unit_tests(value: Any) -> tuple[UnitTest, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise BadRow("unit_tests is a string that is not JSON") from None
    if not isinstance(value, list):
        raise BadRow(f"unit_tests must be a list, got {type(value).__name__}")
    tests = []
    for n, case in enumerate(value):
        output = case.get("output", []) if isinstance(case, dict) else None
        if isinstance(output, str):
            output = [output]
        if not isinstance(case, dict) or not isinstance(case.get("input"), str) or not isinstance(output, list) \
                or not all(isinstance(o, str) for o in output):
            raise BadRow(f"unit_tests[{n}] must be an object with a string 'input' and a list of string 'output'")
        tests.append(UnitTest(input=case["input"], output=tuple(output)))
    return tuple(tests)
