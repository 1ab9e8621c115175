"""Public benchmark files read as items: counts, the benchmark's own ids, and prefix + middle +
suffix byte for byte what each benchmark's harness puts together (tests/data/benchmarks/README.md
says which files are the published data and which are built from a documented schema)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from replay.benchmarks.formats import FORMATS, benchmark_format
from replay.benchmarks.reader import WrongFormat, read_benchmark
from replay.corpus.evalgen import iter_jsonl
from replay.records import FimItem, Snippet, UnitTest
from replay.rejects import Rejects
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "benchmarks"
SINGLE_LINE = DATA / "HumanEval-SingleLineInfilling.jsonl.gz"
SAMPLES = {"humaneval-infilling": SINGLE_LINE, "santacoder-fim": DATA / "santacoder-fim.jsonl", "safim": DATA / "safim.jsonl",
           "crosscodeeval": DATA / "crosscodeeval-line_completion_rg1_bm25.jsonl", "repobench": DATA / "cross_file_first.jsonl"}


def rows(path: Path) -> list[dict[str, Any]]:
    data = path.read_bytes()
    text = gzip.decompress(data) if path.suffix == ".gz" else data
    return [json.loads(line) for line in text.decode().splitlines() if line.strip()]


def read(path: Path, fmt: str, tmp_path: Path) -> tuple[list[FimItem], Rejects]:
    with Rejects(tmp_path / "rejects.jsonl") as rejects:
        return read_benchmark(path, benchmark_format(fmt), rejects).items, rejects


def test_humaneval_single_line_is_the_published_file(tmp_path: Path) -> None:
    items, rejects = read(SINGLE_LINE, "humaneval-infilling", tmp_path)
    originals = rows(SINGLE_LINE)
    assert len(items) == len(originals) == 1033 and not rejects
    assert [it.id for it in items] == [r["task_id"] for r in originals]
    for it, r in zip(items, originals):
        assert (it.prefix + it.middle + it.suffix).encode() == (r["prompt"] + r["canonical_solution"] + r["suffix"]).encode()
        assert (it.prefix, it.middle, it.suffix) == (r["prompt"], r["canonical_solution"], r["suffix"])
        assert (it.test, it.entry_point) == (r["test"], r["entry_point"])
        assert it.file == "HumanEval/" + r["task_id"].split("/")[2]
        assert (it.language, it.mode, it.benchmark) == ("python", "single-line", "humaneval-infilling")
        assert (it.start, it.end) == (len(it.prefix), len(it.prefix) + len(it.middle))
    assert len({it.file for it in items}) == 164
    assert items[0].id == "SingleLineInfilling/HumanEval/0/L0" and items[-1].id == "SingleLineInfilling/HumanEval/163/L3"


@pytest.mark.parametrize("name, mode, count", [("HumanEval-RandomSpanInfillingLight.jsonl.gz", "random-span-light", 164),
                                               ("HumanEval-MultiLineInfilling.head40.jsonl", "multi-line", 40),
                                               ("HumanEval-RandomSpanInfilling.head20.jsonl", "random-span", 20)])
def test_humaneval_other_files_gzipped_or_not(tmp_path: Path, name: str, mode: str, count: int) -> None:
    items, rejects = read(DATA / name, "humaneval-infilling", tmp_path)
    originals = rows(DATA / name)
    assert len(items) == count and not rejects
    assert [it.id for it in items] == [r["task_id"] for r in originals]
    assert all(it.mode == mode for it in items)
    assert all(it.prefix + it.middle + it.suffix == r["prompt"] + r["canonical_solution"] + r["suffix"]
               for it, r in zip(items, originals))


def test_santacoder_fim_ids_number_the_rows_of_a_name(tmp_path: Path) -> None:
    items, _ = read(SAMPLES["santacoder-fim"], "santacoder-fim", tmp_path)
    originals = rows(SAMPLES["santacoder-fim"])
    assert [it.id for it in items] == ["py/HumanEval_0_has_close_elements/0", "py/HumanEval_0_has_close_elements/1",
                                       "py/HumanEval_0_has_close_elements/2", "js/HumanEval_23_strlen/0",
                                       "java/HumanEval_23_strlen/0"]
    assert [it.language for it in items] == ["python"] * 3 + ["javascript", "java"]
    assert [it.file for it in items] == ["py/HumanEval_0_has_close_elements"] * 3 + ["js/HumanEval_23_strlen",
                                                                                     "java/HumanEval_23_strlen"]
    for it, r in zip(items, originals):
        assert it.prefix + it.middle + it.suffix == r["prompt"] + r["canonical_solution"] + r["suffix"]
        assert it.test == r["tests"]


def test_safim_splits_the_prompt_at_its_placeholder(tmp_path: Path) -> None:
    items, _ = read(SAMPLES["safim"], "safim", tmp_path)
    originals = rows(SAMPLES["safim"])
    assert [it.id for it in items] == [r["task_id"] for r in originals]
    placeholder = {"python": "# TODO: Your code here", "java": "/* TODO: Your code here */", "cpp": "/* TODO: Your code here */"}
    for it, r in zip(items, originals):
        assert it.prefix + it.middle + it.suffix == r["prompt"].replace(placeholder[r["lang"]], r["ground_truth"])
        assert it.eval_prompt == r["eval_prompt"] and it.language == r["lang"] and it.file == r["task_id"]
    assert items[0].unit_tests == (UnitTest("2\n1 2\n3 4\n", ("3\n7\n",)), UnitTest("1\n-5 5\n", ("0\n",)))
    assert items[2].unit_tests == ()  # "[]": the checker matches ground_truth instead


def test_crosscodeeval_retrieved_chunks_become_snippets(tmp_path: Path) -> None:
    items, _ = read(SAMPLES["crosscodeeval"], "crosscodeeval", tmp_path)
    originals = rows(SAMPLES["crosscodeeval"])
    assert [it.id for it in items] == [r["metadata"]["task_id"] for r in originals]
    assert [it.language for it in items] == ["python", "typescript", "java"]
    assert (items[0].file, items[0].filepath) == ("acme-stats-0a1b2c3/stats/core.py", "stats/core.py")
    assert items[0].snippets == tuple(Snippet(c["filename"], c["retrieved_chunk"])
                                      for c in originals[0]["crossfile_context"]["list"])
    assert [s.filepath for s in items[0].snippets] == ["stats/utils.py", "stats/order.py"]
    assert items[2].snippets == ()  # a row without retrieval
    for it, r in zip(items, originals):
        assert it.prefix + it.middle + it.suffix == r["prompt"] + r["groundtruth"] + r["right_context"]


def test_repobench_prefix_is_the_in_file_prompt_and_context_the_snippets(tmp_path: Path) -> None:
    items, _ = read(SAMPLES["repobench"], "repobench", tmp_path)
    originals = rows(SAMPLES["repobench"])
    assert [it.id for it in items] == ["cross_file_first/0", "cross_file_first/1"]
    for it, r in zip(items, originals):
        assert it.prefix == f"{r['import_statement']}\n{r['cropped_code']}\n"
        assert (it.middle, it.suffix) == (r["next_line"], "")
        assert it.snippets == tuple(Snippet(c["path"], c["snippet"]) for c in r["context"])
        assert (it.file, it.filepath) == (f"{r['repo_name']}/{r['file_path']}", r["file_path"])
    assert [it.language for it in items] == ["python", "java"]


@pytest.mark.parametrize("asked, actual", [(a, b) for a in sorted(FORMATS) for b in sorted(SAMPLES) if a != b])
def test_a_file_of_another_layout_is_one_error_naming_file_and_line(tmp_path: Path, asked: str, actual: str) -> None:
    with pytest.raises(WrongFormat) as err:
        read(SAMPLES[actual], asked, tmp_path)
    message = str(err.value)
    assert message.startswith(f"{SAMPLES[actual]}:1: not a {asked} file") and "\n" not in message
    assert f"--from {actual}" in message


@pytest.mark.parametrize("content", [b"def f():\n    return 1\n", b"\x1f\x8b\x08\x00garbage", b"[1, 2]\n", b"\n\n"])
def test_what_is_not_a_benchmark_file_is_one_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(WrongFormat) as err:
        read(path, "safim", tmp_path)
    assert str(err.value).startswith(f"{path}") and "\n" not in str(err.value)


def test_bad_rows_are_rejected_with_file_and_line_and_the_rest_read(tmp_path: Path) -> None:
    good = rows(SAMPLES["safim"])
    lines = [json.dumps(good[0]), "{not json", json.dumps({**good[1], "ground_truth": 3}),
             json.dumps({k: v for k, v in good[1].items() if k != "prompt"}), json.dumps(good[0]),
             json.dumps({**good[1], "prompt": "no placeholder"}), json.dumps({**good[1], "unit_tests": "[{\"input\": 1}]"}),
             "", json.dumps(good[2])]
    path = tmp_path / "safim.jsonl"
    path.write_text("\n".join(lines) + "\n")
    items, rejects = read(path, "safim", tmp_path)
    assert [it.id for it in items] == [good[0]["task_id"], good[2]["task_id"]]
    assert len(rejects) == 6
    where = [(r.line, r.reason) for r in rejects]
    assert [line for line, _ in where] == [2, 3, 4, 5, 6, 7]
    assert "not JSON" in where[0][1] and "'ground_truth' must be a string" in where[1][1]
    assert "no 'prompt'" in where[2][1] and "duplicate id 'block_completion_000001' (first at line 1)" in where[3][1]
    assert "placeholder" in where[4][1] and "unit_tests[0]" in where[5][1]
    kept = [json.loads(line) for line in (tmp_path / "rejects.jsonl").read_text().splitlines()]
    assert [k["where"] for k in kept] == [f"{path}:{n}" for n in (2, 3, 4, 5, 6, 7)]


def test_items_written_and_read_back_are_the_same(tmp_path: Path) -> None:
    for fmt, path in SAMPLES.items():
        items, _ = read(path, fmt, tmp_path)
        back = [msgspec.json.decode(line, type=FimItem) for line in b"".join(iter_jsonl(items)).splitlines()]
        assert back == items


def test_items_cut_from_raw_code_are_written_without_the_benchmark_fields() -> None:
    item = FimItem(id="a", file="f.sol", prefix="p", middle="m", suffix="s", mode="line")
    written = json.loads(b"".join(iter_jsonl([item])))
    assert not {"benchmark", "filepath", "snippets", "test", "entry_point", "eval_prompt", "unit_tests"} & set(written)


def test_a_bad_row_does_not_shift_the_ids_numbered_by_row(tmp_path: Path) -> None:
    good = SAMPLES["repobench"].read_text().splitlines()
    path = tmp_path / "in_file.jsonl"
    path.write_text("\n".join([good[0], "{broken", good[1]]) + "\n")
    items, rejects = read(path, "repobench", tmp_path)
    assert [it.id for it in items] == ["in_file/0", "in_file/2"] and len(rejects) == 1


@pytest.mark.parametrize("config", ["block", "control", "api"])
def test_safim_real_rows_are_read_as_published(tmp_path: Path, config: str) -> None:
    # Real rows of gonglinyuan/safim's data/<config>_completion.jsonl.gz at 231b148 (the first two
    # of each language): unit_tests there is a list, the prompt opens with SAFIM's instruction.
    path = DATA / f"safim-231b148-{config}.jsonl"
    items, rejects = read(path, "safim", tmp_path)
    originals = rows(path)
    assert rejects.count == 0 and len(items) == 8 == len(originals)
    assert [it.id for it in items] == [r["task_id"] for r in originals]
    placeholder = {"python": "# TODO: Your code here", "java": "/* TODO: Your code here */", "cpp": "/* TODO: Your code here */",
                   "csharp": "/* TODO: Your code here */"}
    for it, r in zip(items, originals):
        assert it.prefix + it.middle + it.suffix == r["prompt"].replace(placeholder[r["lang"]], r["ground_truth"])
        assert it.unit_tests == tuple(UnitTest(u["input"], tuple(u["output"])) for u in r["unit_tests"])
    assert all(it.unit_tests for it in items) is (config != "api")  # API completions are matched, not run


def test_santacoder_fim_real_rows_are_read_as_published(tmp_path: Path) -> None:
    # Real rows of bigcode/santacoder-fim-task as QwenLM/Qwen2.5-Coder ships it (its HumanEval-FIM):
    # each row's name is a problem and a line, so each row is its own unit.
    path = DATA / "santacoder-fim-qwen-3cf0bba.jsonl"
    items, rejects = read(path, "santacoder-fim", tmp_path)
    originals = rows(path)
    assert rejects.count == 0 and len(items) == 9
    assert [it.id for it in items] == [f"{r['language']}/{r['name']}/0" for r in originals]
    assert [it.language for it in items] == [{"py": "python", "js": "javascript", "java": "java"}[r["language"]]
                                             for r in originals]
    for it, r in zip(items, originals):
        assert (it.prefix, it.middle, it.suffix, it.test) == (r["prompt"], r["canonical_solution"], r["suffix"], r["tests"])
