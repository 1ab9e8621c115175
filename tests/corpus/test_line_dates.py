"""Line dates: runs, the newest line of a middle, the lines newer than a day, porcelain parsing,
and how a dated item counts against a model's cutoff."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest

from replay import cutoffs
from replay.corpus.blame import parse_porcelain
from replay.corpus.evalgen import EvalgenOptions, SourceFile, generate, items_for_text
from replay.corpus.linedates import UNCOMMITTED, FileDates, intersect, newer_ranges, runs_of, utc_time
from replay.records import FimItem
from replay.usecases.benchmark import _newer_lines

A, B = "a" * 40, "b" * 40
OLD, NEW = "2023-03-01T10:00:00Z", "2024-06-01T10:00:00Z"
TEXT = "pragma solidity ^0.8.20;\ncontract C {\n    uint256 x;\n    uint256 y;\n}\n"
RUNS = [[2, OLD, A], [1, NEW, B], [2, OLD, A]]


def test_runs_and_newer_ranges() -> None:
    assert runs_of([(OLD, A), (OLD, A), (NEW, B), (OLD, A), (OLD, A)]) == RUNS
    assert newer_ranges(RUNS, dt.date(2024, 1, 31)) == [(2, 3)]
    assert newer_ranges(RUNS, dt.date(2024, 6, 1)) == []  # the same day is not newer
    assert newer_ranges([[1, OLD, UNCOMMITTED], [1, OLD, A]], dt.date(2030, 1, 1)) == [(0, 1)]
    assert intersect([(0, 3), (5, 9)], [(2, 6), (8, 20)]) == [(2, 3), (5, 6), (8, 9)]
    assert utc_time(0) == "1970-01-01T00:00:00Z"


def test_a_middle_is_as_new_as_its_newest_line() -> None:
    dates = FileDates(TEXT, RUNS)
    line = TEXT.index("    uint256 x;")
    assert dates.item_fields(line, line + len("    uint256 x;\n")) == {
        "middle_date": NEW, "middle_date_source": "blame", "middle_commit": B}
    assert dates.item_fields(0, TEXT.index("contract") + 3)["middle_date"] == OLD
    assert dates.item_fields(0, len(TEXT))["middle_commit"] == B
    assert FileDates(TEXT + "extra\n", RUNS).item_fields(0, 5) == {}  # the dates do not fit the text
    wip = FileDates(TEXT, [[5, "2026-01-01T00:00:00Z", UNCOMMITTED]]).item_fields(0, 5)
    assert wip["middle_date_source"] == "uncommitted" and wip["middle_commit"] == ""


def test_items_cut_with_dates_carry_them() -> None:
    made = items_for_text(TEXT, "C.sol", EvalgenOptions(per_file=5), dates=RUNS).items
    assert {it.middle: it.middle_date for it in made} == {"contract C {\n": OLD, "    uint256 x;\n": NEW, "    uint256 y;\n": OLD}


def test_porcelain_gives_each_line_its_commit_and_time() -> None:
    out = (f"{A} 1 1 2\nauthor x\ncommitter-time 1677664800\nsummary first\nboundary\nfilename f.sol\n\tline one\n"
           f"{A} 2 2\n\tline two\n{B} 3 3 1\ncommitter-time 1717236000\nprevious {A} f.sol\nfilename f.sol\n\t{A} 9 9\n").encode()
    assert parse_porcelain(out) == [(A, 1677664800), (A, 1677664800), (B, 1717236000)]


def test_a_line_dated_item_counts_by_its_newest_line() -> None:
    item = FimItem(id="i", file="f", prefix="p", middle="m", suffix="s", mode="line", middle_date=NEW,
                   middle_date_source="blame", published="2025-02-01", published_source="git")
    assert cutoffs.item_date(item) == dt.date(2024, 6, 1)
    qwen = cutoffs.find_cutoff(["qwen2.5-coder-1.5b"])
    old = FimItem(id="j", file="f", prefix="p", middle="m", suffix="s", mode="line", middle_date=OLD)
    got = cutoffs.overlap([cutoffs.item_date(item), cutoffs.item_date(old)], qwen)
    assert got.flagged and got.n_not_newer == 1 and got.n_dated == 2


@pytest.mark.parametrize("mode", ["line", "span"])
def test_newer_than_keeps_middles_inside_newer_lines_and_new_code(tmp_path: Path, mode: str) -> None:
    path = tmp_path / "C.sol"
    path.write_text(TEXT, encoding="utf-8")
    lines = [[1, OLD, A], [3, NEW, B], [1, OLD, A]]  # lines 1-3 written in 2024
    files = [SourceFile(path, "C.sol", dates=lines), SourceFile(path, "D.sol", dates=[[5, OLD, A]])]
    kept, left = _newer_lines(files, dt.date(2024, 1, 31))
    assert [f.rel for f in kept] == ["C.sol"] and left == {"n_files_not_newer": 1, "n_lines_not_newer": 7}
    assert kept[0].allowed == [(1, 4)]
    new_code = [dataclasses.replace(files[0], allowed=[(0, 2)])]  # new code of a version: lines 0-1
    assert _newer_lines(new_code, dt.date(2024, 1, 31))[0][0].allowed == [(1, 2)]
    made = generate(kept, EvalgenOptions(per_file=50, mode=mode), workers=1).items
    start, end = TEXT.index("contract"), TEXT.index("}\n")
    assert made and all(start <= it.start and it.end <= end and it.middle_date == NEW for it in made)
