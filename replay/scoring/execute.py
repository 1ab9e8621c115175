"""The `pass@1` metric: does the benchmark's own test pass with the completion in place of the middle?

A public benchmark's item carries its checker (FimItem.test, .entry_point; evalgen --from). The
program run is the one its harness runs (openai/human-eval-infilling,
human_eval_infilling/execution.py, unsafe_execute): prefix + completion + suffix, a newline, the
test, a newline and `check(entry_point)` for Python; for JavaScript prefix + completion + suffix,
a newline and the test, which calls its own checks (MultiPL-E's layout); for Java the same, but
the closing braces of the method and the class that a FIM program ends with are left to the
test, which writes them (MultiPL-E's Java layout: the test opens by closing the method, then
main's asserts, run with -ea). Each program runs in a
process of its own, contained and limited as replay.scoring.sandbox says (the harness's 3 s
timeout), and passes when it runs to its end.

The completion run is the one the other metrics score: cut to the same line window (`--lines`;
the default, as many lines as the middle, is the single-line benchmarks' own cut of a longer
generation), each kept line with its line end; `--lines all` runs the whole text shown.

pass@1 of an item is 1.0 or 0.0 per completion; where a file of completions holds n samples of
an item, pass@k is the unbiased estimator of the Codex paper as the harness computes it
(evaluation.py, estimate_pass_at_k): 1 - C(n - c, k) / C(n, k), c the samples that pass, averaged
over items, for each k no item has fewer samples than.

Results are cached by content (the language, the program, the limits and the containment) in
`<data dir>/executions.sqlite`, so a program is run once; a program that timed out is not kept
(a loaded machine may time out what passes on an idle one) and runs again next time.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import msgspec
import numpy as np

from replay.cores import usable_cores
from replay.paths import data_dir
from replay.reading import RunReader
from replay.records import FimItem
from replay.rejects import Reject
from replay.scoring.aggregate import ScoredItem
from replay.scoring.metrics import Lines, window
from replay.scoring.pairs_file import object_lines
from replay.scoring.sandbox import Limits, Outcome, Program, interpreter, isolation, run_programs
from replay.store.executions import ExecutionResults

PASS = "pass@1"  # the metric's name in METRICS and in a row's values
COMPLETION_MARK = "{{completion}}"  # where SAFIM's exec_utils.py run_test puts the completion in eval_prompt


# The end MultiPL-E's FIM prompts give a Java program (nuprl/MultiPL-E
# dataset_builder/prepare_fim_prompt.py appends "\n    }\n}" to a Java body: the method's and
# the class's closing braces), which its Java test suite writes itself (humaneval_to_java.py
# test_suite_prefix_lines opens with the method's "    }", test_suite_suffix_lines closes main and
# the class): taken off before the test is added.
_JAVA_FIM_END = re.compile(r"\n[ \t]*\}[ \t]*\n\}\s*\Z")


def program(language: str, prefix: str, completion: str, suffix: str, test: str, entry_point: str) -> str:
    """The test program of one completion, laid out as the benchmark's harness lays it out."""
    code = prefix + completion + suffix
    if language == "java" and test.lstrip(" \t").startswith("}"):
        code = _JAVA_FIM_END.sub("", code)
    code += "\n" + test
    if language == "python" and entry_point:
        return code + "\n" + f"check({entry_point})"
    return code


def executed_text(reference: str, completion: str, lines: Lines) -> str:
    """The completion cut to the reference's line window, each kept line with its "\n"."""
    n = window(reference, lines)
    if n is None:
        return completion
    ends = [m.end() for m in re.finditer("\n", completion)]
    return completion[: ends[n - 1]] if len(ends) >= n else completion


def runnable(language: str) -> bool:
    """Whether this machine can run a test program of the language (replay.scoring.sandbox.interpreter)."""
    return interpreter(language) is not None


def _key(program: Program, limits: Limits, how: str) -> str:
    language, source, *case = program
    fed = (case[0].input, list(case[0].output)) if case else ()
    value = (language, source, limits.seconds, limits.memory_mb, how, *fed)
    return hashlib.sha256(msgspec.msgpack.encode(value)).hexdigest()


def execute_many(programs: Sequence[Program], limits: Limits = Limits(), workers: int | None = None,
                 cache: Path | None = None) -> list[Outcome]:
    """The outcome of each (language, program[, unit test]): a distinct one once, one the results
    file holds not again. `workers`: programs running at once (None: every core). `cache`: the
    results file (default `<data dir>/executions.sqlite`)."""
    how = isolation()
    keys = [_key(p, limits, how) for p in programs]
    results = ExecutionResults(cache or data_dir() / "executions.sqlite")
    try:
        found: dict[str, Outcome] = {}
        todo: dict[str, Program] = {}
        for key, case in zip(keys, programs):
            if key in found or key in todo:
                continue
            kept = results.get(key)
            if kept is None:
                todo[key] = case
            else:
                found[key] = Outcome(kept[0], kept[1])  # type: ignore[arg-type]
        ran = run_programs(list(todo.values()), limits, workers or usable_cores())
        found.update(zip(todo, ran))
        results.put_many([(key, o.status, o.detail) for key, o in zip(todo, ran) if o.status != "timed out"])
    finally:
        results.close()
    return [found[key] for key in keys]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k for n samples of which c pass: 1 - C(n-c, k) / C(n, k),
    as the product the harness uses (stable for large n)."""
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def pass_at_ks(passed_by_item: dict[str, list[bool]], ks: Sequence[int] = (1, 10, 100)) -> dict[str, float]:
    """pass@k averaged over items, for each k that no item has fewer samples than."""
    if not passed_by_item:
        return {}
    fewest = min(len(v) for v in passed_by_item.values())
    return {f"pass@{k}": float(np.mean([pass_at_k(len(v), sum(v), k) for v in passed_by_item.values()]))
            for k in ks if k <= fewest}


class Case(FimItem, frozen=True, kw_only=True, omit_defaults=True):
    """One line of a file of completions to execute: an item, with the fields `evalgen` writes
    (its checker's among them), and the completion. `file` defaults to the id, `language` to
    python, `mode` to none."""

    file: str = ""
    mode: str = ""
    language: str = "python"
    completion: str


# The checker of an item that names no benchmark: the fields it carries say which it is.
_TEST_PROGRAM, _WHOLE_PROGRAM = ("test",), ("eval_prompt", "unit_tests")


def _checker_fields(it: FimItem, checkers: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The fields of an item its checker runs a completion with: those its benchmark's format
    declares (`checkers`, by name), else SAFIM's when it carries a program, else a test program."""
    if it.benchmark:
        return checkers[it.benchmark]
    return _WHOLE_PROGRAM if it.eval_prompt else _TEST_PROGRAM


def _unfit(it: FimItem, checkers: Mapping[str, tuple[str, ...]]) -> str | None:
    """Why an item's completion cannot be run by its checker, or None."""
    if it.benchmark and it.benchmark not in checkers:
        return f"unknown benchmark {it.benchmark!r} (one of {', '.join(checkers)})"
    needs = _checker_fields(it, checkers)
    if not needs:
        return f"{it.benchmark} has no checker that runs a completion"
    missing = [name for name in needs if not getattr(it, name)]
    if missing:
        whose = f"{it.benchmark}'s checker" if it.benchmark else "its checker"
        return f"missing or empty: {', '.join(missing)} ({whose} runs the completion with {' and '.join(needs)})"
    if it.eval_prompt and COMPLETION_MARK not in it.eval_prompt:
        return f"eval_prompt has no {COMPLETION_MARK!r} (where the completion goes)"
    if not runnable(it.language):
        return f"no interpreter for {it.language} on this machine"
    return None


def jsonl_cases(path: Path, checkers: Mapping[str, tuple[str, ...]]) -> tuple[list[Case], list[Reject]]:
    """The cases of a JSONL file of items with a `completion` (Case: the item's fields as
    `evalgen --from` writes them), each judged by the checker `checkers` names for its
    benchmark; a line that is not one, lacks a field its checker needs, or whose language this
    machine cannot run, is rejected with file:line and why."""

    cases, rejects = [], []
    required = [f.name for f in msgspec.structs.fields(Case) if f.required]
    for no, line, obj in object_lines(path, rejects):
        absent = [name for name in required if name not in obj]
        if absent:
            rejects.append(Reject.at(path, no, f"not an item with a completion: no {', '.join(absent)}", line))
            continue
        try:
            case = msgspec.convert(obj, Case)
        except msgspec.ValidationError as exc:
            rejects.append(Reject.at(path, no, f"not an item with a completion: {exc}", line))
            continue
        why = _unfit(case, checkers)
        if why is not None:
            rejects.append(Reject.at(path, no, why, line))
            continue
        cases.append(msgspec.structs.replace(case, file=case.file or case.id))
    return cases, rejects


def item_checks(it: FimItem, completion: str, lines: Lines) -> list[Program] | None:
    """What is run to judge one completion of an item: its test program (HumanEval, MultiPL-E),
    or its whole program fed each of its unit tests (SAFIM: gonglinyuan/safim exec_utils.py
    run_test puts the completion in eval_prompt's "{{completion}}"; ExecEval turns CRLF into LF;
    the completion passes when every unit test does). SAFIM's evaluate.py counts a completion
    equal to the ground truth as passed without running it: no check. None: the item has no
    checker, or its language cannot run here."""
    if not runnable(it.language):
        return None
    text = executed_text(it.middle, completion, lines)
    if it.test:
        prefix, text = _santacoder_lines(it, text) if it.benchmark == "santacoder-fim" else (it.prefix, text)
        return [(it.language, program(it.language, prefix, text, it.suffix, it.test, it.entry_point))]
    if it.eval_prompt and it.unit_tests:
        if text == it.middle:
            return []
        source = it.eval_prompt.replace(COMPLETION_MARK, text).replace("\r\n", "\n")
        return [(it.language, source, case) for case in it.unit_tests]
    return None


def _santacoder_lines(it: FimItem, text: str) -> tuple[str, str]:
    """SantaCoder-FIM's rows hold a program's lines without the breaks around the middle line
    (nuprl/MultiPL-E prepare_fim_prompt.py keeps a body as lines; the task's prompt, middle and
    suffix are those lines joined, bigcode-evaluation-harness santacoder_fim.py sends them as
    they are): the program run puts a line break after the prefix and after the middle's line."""
    prefix = it.prefix if it.prefix.endswith("\n") or not it.prefix else it.prefix + "\n"
    return prefix, text.rstrip("\n") + "\n"


def verdicts(judged: Sequence[tuple[FimItem, str]], lines: Lines, limits: Limits = Limits(),
             workers: int | None = None) -> list[bool | None]:
    """Whether each (item, completion) passes the item's checker (item_checks), every program of
    it run; None where the item has no checker or its language cannot run here."""
    checks = [item_checks(it, completion, lines) for it, completion in judged]
    outcomes = iter(execute_many([p for c in checks if c for p in c], limits, workers))
    return [None if c is None else all([next(outcomes).passed for _ in c]) for c in checks]


def add_execution(store: RunReader, rows: Sequence[ScoredItem], lines: Lines, workers: int | None = None) -> None:
    """Add pass@1 to the values of scored rows of benchmark items with a checker; rows of
    captures and of items without one get none (the mean is over the items run)."""
    wanted = {r.item_id for r in rows}
    items = {it.id: it for it in store.items() if it.id in wanted}
    mine = [row for row in rows if row.item_id in items]
    for row, passed in zip(mine, verdicts([(items[r.item_id], r.completion) for r in mine], lines, workers=workers)):
        if passed is not None:
            row.values[PASS] = 1.0 if passed else 0.0


def case_rows(cases: Sequence[Case], lines: Lines, workers: int | None = None, limits: Limits = Limits()
              ) -> tuple[list[ScoredItem], dict[str, float], dict[str, dict[str, float]]]:
    """Each case scored (the pair metrics of its completion against its middle, cut to the line
    window, and pass@1 of its whole completion run), pass@k over its items' samples, and pass@k
    over each file's items (the same k for every file: those no item of the whole file has
    fewer samples than)."""
    from replay.scoring.pool import score_rows

    rows = score_rows([(c.id, c.file, c.language, c.middle, c.completion) for c in cases], lines, workers)
    passed: dict[str, list[bool]] = {}
    file_of: dict[str, str] = {}
    for row, case, verdict in zip(rows, cases, verdicts([(c, c.completion) for c in cases], lines, limits, workers)):
        row.values[PASS] = 1.0 if verdict else 0.0
        passed.setdefault(case.id, []).append(bool(verdict))
        file_of[case.id] = case.file
    overall = pass_at_ks(passed)
    ks = [int(k.removeprefix("pass@")) for k in overall]
    per_file: dict[str, dict[str, list[bool]]] = {}
    for item, samples in passed.items():
        per_file.setdefault(file_of[item], {})[item] = samples
    return rows, overall, {f: pass_at_ks(by_item, ks) for f, by_item in sorted(per_file.items())}
