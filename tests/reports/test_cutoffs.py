"""Training-data cutoffs: the table's sources, matching by model name or GGUF general.name,
`--cutoff` winning, and the flag `run` and `report` print."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from replay.cutoffs import Cutoff, find_cutoff, item_date, known, overlap
from replay.errors import UsageError
from tests.cli.test_score_report import make_store


def test_every_row_cites_a_card_or_paper_and_specific_rows_come_first() -> None:
    rows = known()
    assert rows and all(c.source.startswith("https://") and c.basis for _, c in rows)
    names = [c.model for _, c in rows]
    assert names.index("DeepSeek-Coder-V2") < names.index("DeepSeek-Coder")


@pytest.mark.parametrize(("names", "model"), [
    (["Qwen2.5 Coder 0.5B Instruct AWQ"], "Qwen2.5-Coder"),  # the demo GGUF's general.name
    (["default", "Qwen2.5 Coder 1.5B Instruct GGUF"], "Qwen2.5-Coder"),
    (["Qwen/Qwen2.5-Coder-7B"], "Qwen2.5-Coder"),
    (["deepseek-ai/DeepSeek-Coder-V2-Lite-Base"], "DeepSeek-Coder-V2"),
    (["deepseek-coder-6.7b-base.Q4_K_M.gguf"], "DeepSeek-Coder"),
    (["starcoder2-3b"], None),
    ([None, ""], None),
])
def test_matching_by_name(names: list, model: str | None) -> None:
    found = find_cutoff(names)
    assert (found.model if found else None) == model


def test_a_given_cutoff_wins_and_a_bad_one_is_usage() -> None:
    given = find_cutoff(["Qwen2.5-Coder-1.5B"], "2025-06-30")
    assert given is not None and given.date == dt.date(2025, 6, 30) and given.model == "given"
    with pytest.raises(UsageError, match="not a date"):
        find_cutoff([], "June 2025")


def test_overlap_messages() -> None:
    cut = Cutoff("m", dt.date(2024, 1, 31), "b", "https://x")
    d = dt.date.fromisoformat
    assert overlap([None, None], cut).message == "item dates unknown (model cutoff 2024-01-31)"
    assert not overlap([None], cut).flagged
    mixed = overlap([d("2023-05-01"), d("2024-01-31"), d("2024-02-01"), None], cut)
    assert mixed.flagged and mixed.message == "items may be in the training data: 2 of 4 (model cutoff 2024-01-31; 1 undated)"
    newer = overlap([d("2025-01-01"), d("2024-02-01")], cut)
    assert not newer.flagged and newer.message == "all 2 dated items are newer than the model cutoff 2024-01-31"
    assert overlap([d("2020-01-01")], None).message == "model cutoff unknown (give --cutoff DATE)"


def test_item_dates_come_from_the_dated_corpus() -> None:
    # New code: written after the older version's day; a whole file of a dated version: any day.
    assert item_date(SimpleNamespace(new_code=True, since_date="2024-06-01", published="2026-03-29")) == dt.date(2024, 6, 1)
    assert item_date(SimpleNamespace(new_code=False, since_date="", published="2026-03-29")) == dt.date.min
    assert item_date(SimpleNamespace(new_code=True, since_date="soon", published="")) is None
    assert item_date(SimpleNamespace()) is None


def test_report_and_its_cutoff_flag(cli, tmp_path: Path) -> None:
    db, items = make_store(tmp_path)
    out = json.loads(cli("report", "good", "--format", "json", "--db", str(db)).stdout)
    # The run's model ("qwen2.5-coder-0.5b") is in the table; its items carry no date.
    flag = out["runs"][0]["training_overlap"]
    assert flag["message"] == "item dates unknown (model cutoff 2024-01-31)" and flag["cutoff"]["model"] == "Qwen2.5-Coder"
    given = json.loads(cli("report", "half", "--cutoff", "2020-01-01", "--format", "json", "--db", str(db)).stdout)
    assert given["runs"][0]["training_overlap"]["cutoff"]["date"] == "2020-01-01"
    unknown = json.loads(cli("report", "half", "--format", "json", "--db", str(db)).stdout)  # model "tiny"
    assert unknown["runs"][0]["training_overlap"]["message"] == "model cutoff unknown (give --cutoff DATE)"
    md = cli("report", "good", "half", "--db", str(db)).stdout
    assert "Training data: good: item dates unknown (model cutoff 2024-01-31); half: model cutoff unknown" in md
    bad = cli("report", "good", "--cutoff", "yesterday", "--db", str(db))
    assert bad.returncode == 2 and "--cutoff: 'yesterday' is not a date" in bad.stderr
