"""`score --execute FILE`: a JSONL file of items as `evalgen --from FORMAT` writes them, each with a
`completion`, judged by its benchmark's own checker exactly as a stored run's items are
(replay.scoring.execute.item_checks): SAFIM's program fed its unit tests on real rows of the
published data (Python, Java, C++; tests/data/benchmarks/README.md), SantaCoder-FIM's real rows
(Python, JavaScript on node) with their lines joined, HumanEval's check(entry_point); a line
missing a field its checker needs is one reject naming the line and the field."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
import pytest

from replay.benchmarks.formats import FORMATS, checkers
from replay.records import FimItem
from replay.scoring import execute
from tests.benchmarks.test_formats import DATA, SAMPLES, read

needs_toolchains = pytest.mark.skipif(
    not (shutil.which("node") and shutil.which("java") and shutil.which("javac") and shutil.which("g++")),
    reason="needs node, a JDK and g++")


def _safim(tmp_path: Path) -> list[FimItem]:
    items: list[FimItem] = []
    for config in ("block", "control"):
        got, rejects = read(DATA / f"safim-231b148-{config}.jsonl", "safim", tmp_path)
        assert rejects.count == 0
        items += got
    return items


def _write(path: Path, samples: Sequence[tuple[FimItem, str]]) -> Path:
    """Each item as evalgen writes it (its JSON line) with the completion added."""
    path.write_text("".join(json.dumps({**msgspec.to_builtins(it), "completion": c}) + "\n" for it, c in samples),
                    encoding="utf-8")
    return path


def _samples(items: Sequence[FimItem], *completions: Callable[[FimItem], str]) -> list[tuple[FimItem, str]]:
    return [(it, completion(it)) for completion in completions for it in items]


def test_every_format_names_fields_of_an_item_and_the_runnable_ones_name_some() -> None:
    fields = set(FimItem.__struct_fields__)
    assert all(set(f.checker) <= fields for f in FORMATS.values())
    assert {name for name, needs in checkers().items() if needs} == {"humaneval-infilling", "santacoder-fim", "safim"}


@needs_toolchains
def test_safim_rows_from_a_file_pass_with_their_ground_truth_and_fail_empty(tmp_path: Path, home: Path) -> None:
    items = _safim(tmp_path)
    # The ground truth as it is (passed without running, as evaluate.py does), the ground truth
    # run (a trailing space keeps the shortcut off), and nothing.
    path = _write(tmp_path / "safim.jsonl", _samples(items, lambda it: it.middle, lambda it: it.middle + " ", lambda it: ""))
    cases, rejects = execute.jsonl_cases(path, checkers())
    assert [r.reason for r in rejects] == ["no interpreter for csharp on this machine"] * 12
    assert len(cases) == 36 and {c.language for c in cases} == {"python", "java", "cpp"}
    rows, pass_at, per_file = execute.case_rows(cases, "all", workers=2)
    got = {(c.language, c.completion == c.middle, c.completion == ""): [] for c in cases}
    for c, row in zip(cases, rows):
        got[(c.language, c.completion == c.middle, c.completion == "")].append(row.values["pass@1"])
    for language in ("python", "java", "cpp"):
        assert got[(language, True, False)] == [1.0] * 4, language
        assert got[(language, False, False)] == [1.0] * 4, language  # every unit test run, and passed
        assert got[(language, False, True)] == [0.0] * 4, language
    assert pass_at == pytest.approx({"pass@1": 2 / 3}) and len(per_file) == 12


@needs_toolchains
def test_santacoder_rows_from_a_file_run_with_their_lines_joined_in_python_and_javascript(tmp_path: Path, home: Path) -> None:
    items, _ = read(DATA / "santacoder-fim-qwen-3cf0bba.jsonl", "santacoder-fim", tmp_path)
    items = [it for it in items if it.language in ("python", "javascript")]
    path = _write(tmp_path / "sc.jsonl", _samples(items, lambda it: it.middle, lambda it: ""))
    cases, rejects = execute.jsonl_cases(path, checkers())
    assert not rejects and len(cases) == 12 and {c.benchmark for c in cases} == {"santacoder-fim"}
    rows, _, _ = execute.case_rows(cases, "auto", workers=2)
    assert [r.values["pass@1"] for r in rows] == [1.0] * 6 + [0.0] * 6


def test_humaneval_items_from_a_file_run_their_check(tmp_path: Path, home: Path) -> None:
    items, _ = read(SAMPLES["humaneval-infilling"], "humaneval-infilling", tmp_path)
    path = _write(tmp_path / "he.jsonl", _samples(items[:3], lambda it: it.middle, lambda it: "    pass\n"))
    cases, rejects = execute.jsonl_cases(path, checkers())
    assert not rejects and all(c.entry_point and c.file == it.file for c, (it, _) in zip(cases, _samples(items[:3], str, str)))
    rows, pass_at, _ = execute.case_rows(cases, "auto", workers=2)
    assert [r.values["pass@1"] for r in rows] == [1.0] * 3 + [0.0] * 3 and pass_at == {"pass@1": 0.5}


def _one_of_each(tmp_path: Path) -> dict[str, FimItem]:
    out = {}
    for name in FORMATS:
        items, _ = read(SAMPLES[name], name, tmp_path)
        out[name] = next(it for it in items if it.language == "python" and (it.unit_tests or name != "safim"))
    return out


@pytest.mark.parametrize(("name", "field"), [(name, field) for name, f in FORMATS.items() for field in f.checker])
def test_a_line_missing_a_field_its_checker_needs_is_one_reject_and_the_rest_are_scored(
        name: str, field: str, tmp_path: Path) -> None:
    it = _one_of_each(tmp_path)[name]
    line = {**msgspec.to_builtins(it), "completion": it.middle}
    del line[field]
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({**msgspec.to_builtins(it), "completion": it.middle}) + "\n" + json.dumps(line) + "\n")
    cases, rejects = execute.jsonl_cases(path, checkers())
    assert len(cases) == 1 and cases[0].completion == it.middle
    assert [r.text() for r in rejects] == [
        f"{path}:2: missing or empty: {field} ({name}'s checker runs the completion with {' and '.join(FORMATS[name].checker)})"]


def test_lines_that_cannot_be_judged_say_why(tmp_path: Path) -> None:
    items = _one_of_each(tmp_path)
    safim = msgspec.to_builtins(items["safim"])
    lines = [{**msgspec.to_builtins(items["crosscodeeval"]), "completion": "x"},
             {**safim, "benchmark": "nope", "completion": "x"},
             {**safim, "eval_prompt": "print(1)", "completion": "x"},
             {**safim, "unit_tests": [{"input": 1}], "completion": "x"},
             {"id": "a", "prefix": "", "middle": "", "suffix": "", "completion": ""},
             {"id": "a", "middle": "", "completion": ""}]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    cases, rejects = execute.jsonl_cases(path, checkers())
    assert not cases
    assert [r.text() for r in rejects] == [
        f"{path}:1: crosscodeeval has no checker that runs a completion",
        f"{path}:2: unknown benchmark 'nope' (one of {', '.join(FORMATS)})",
        f"{path}:3: eval_prompt has no '{{{{completion}}}}' (where the completion goes)",
        f"{path}:4: not an item with a completion: Expected `str`, got `int` - at `$.unit_tests[0].input`",
        f"{path}:5: missing or empty: test (its checker runs the completion with test)",
        f"{path}:6: not an item with a completion: no prefix, suffix"]


@needs_toolchains
def test_score_execute_reads_what_evalgen_writes(tmp_path: Path, cli) -> None:
    items = tmp_path / "safim.jsonl"
    done = cli("evalgen", str(DATA / "safim-231b148-block.jsonl"), "--from", "safim", "-o", str(items), "--json")
    assert done.returncode == 0, done.stderr
    written = [json.loads(line) for line in items.read_text().splitlines()]
    assert [it["language"] for it in written] == ["java", "java", "cpp", "cpp", "python", "python", "csharp", "csharp"]
    # The first of each language with its ground truth run, the second with nothing in place.
    completed = tmp_path / "completed.jsonl"
    completed.write_text("".join(json.dumps({**it, "completion": it["middle"] + " " if n % 2 == 0 else ""}) + "\n"
                                 for n, it in enumerate(written)))
    res = cli("score", str(completed), "--execute", "--json", "--workers", "2")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert (out["n_items"], out["n_rejects"], out["mean"]["pass@1"], out["pass_at_k"]) == (6, 2, 0.5, {"pass@1": 0.5})
    assert [line for line in res.stderr.splitlines() if "csharp" in line] == [
        f"fimreplay: {completed}:{n}: no interpreter for csharp on this machine" for n in (7, 8)]
    kept = [json.loads(line) for line in Path(out["rejects_file"]).read_text().splitlines()]
    assert len(kept) == 2
