"""Paired comparison: the statistics against a case computed by hand, `compare` end to end on
`score` JSONL inputs and on stored runs, and `report A B` showing the same figures."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from replay.reports.compare import paired
from replay.scoring import ScoredItem
from tests.cli.test_score_report import make_store

# Five paired items in three files, one item only in A, one only in B (indel values).
A = [("i1", "f1", 0.5), ("i2", "f1", 0.4), ("i3", "f2", 0.9), ("i4", "f3", 0.2), ("i5", "f3", 0.0), ("i6", "f3", 1.0)]
B = [("i1", "f1", 0.7), ("i2", "f1", 0.4), ("i3", "f2", 0.6), ("i4", "f3", 0.5), ("i5", "f3", 0.3), ("i7", "f2", 0.0)]


def rows(spec: list[tuple[str, str, float]]) -> list[ScoredItem]:
    return [ScoredItem(item_id=i, file=f, values={"indel": v}) for i, f, v in spec]


def test_the_statistics_of_a_hand_computed_case() -> None:
    p = paired(rows(A), rows(B), "indel", seed=0)
    # Per file over the paired items: f1 A 0.45 B 0.55 (diff +0.1), f2 A 0.9 B 0.6 (-0.3),
    # f3 A 0.1 B 0.4 (+0.3); i6 and i7 have no partner.
    assert p.per_file == pytest.approx({"f1": 0.1, "f2": -0.3, "f3": 0.3})
    assert p.mean_a == pytest.approx((0.45 + 0.9 + 0.1) / 3)
    assert p.mean_b == pytest.approx((0.55 + 0.6 + 0.4) / 3)
    assert p.mean_diff == pytest.approx(0.1 / 3)
    assert (p.wins, p.ties, p.losses) == (3, 1, 1)  # B higher on i1, i4, i5; equal on i2; lower on i3
    assert (p.n_items, p.n_files, p.only_a, p.only_b) == (5, 3, ("i6",), ("i7",))
    # Three files: the 27 equally likely resamples put 1/27 (3.7%) on each extreme, all -0.3 or
    # all +0.3, so the 2.5th and 97.5th percentiles are those extremes.
    assert p.ci95 == pytest.approx((-0.3, 0.3))
    assert p.verdict == "within noise"
    # Items needed: ((z 97.5% + z 80%) * sd / |mean diff|)^2 files, sd of (0.1, -0.3, 0.3) with n-1,
    # times 2 items per file (5 items in 3 files, rounded up).
    sd = math.sqrt(((0.1 - 0.1 / 3) ** 2 + (-0.3 - 0.1 / 3) ** 2 + (0.3 - 0.1 / 3) ** 2) / 2)
    assert p.items_needed == math.ceil(((1.959964 + 0.841621) * sd / (0.1 / 3)) ** 2) * 2 == 1320


def test_verdicts_follow_the_interval_and_swap_with_the_sides() -> None:
    a = rows([("x1", "f1", 0.2), ("x2", "f2", 0.3), ("x3", "f3", 0.1)])
    b = rows([("x1", "f1", 0.3), ("x2", "f2", 0.5), ("x3", "f3", 0.4)])  # B better by 0.1, 0.2, 0.3
    forward, backward = paired(a, b), paired(b, a)
    assert forward.verdict == "B better" and forward.ci95[0] >= 0.1 - 1e-12 and forward.ci95[1] <= 0.3 + 1e-12
    assert backward.verdict == "A better" and backward.mean_diff == pytest.approx(-0.2)
    assert (backward.wins, backward.losses) == (forward.losses, forward.wins)
    same = paired(a, a)
    assert same.ci95 == (0.0, 0.0) and same.verdict == "within noise" and same.ties == 3 and same.items_needed is None
    assert paired(a, b, seed=5).ci95 == paired(a, b, seed=5).ci95  # the seed makes it repeatable


def write_pairs(path: Path, rows_: list[tuple[str, str, float]], bad: bool = False) -> Path:
    """A `score` JSONL whose completion scores the given indel against a 10-character reference
    ("0123456789"): the first round(10 * v) characters kept, which gives Indel 2k / (10 + k)."""
    lines = [json.dumps({"id": i, "file": f, "reference": "0123456789", "completion": "0123456789"[: round(10 * v)]})
             for i, f, v in rows_]
    if bad:
        lines.append("{broken")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_compare_json_on_score_files(cli, tmp_path: Path) -> None:
    a = write_pairs(tmp_path / "a.jsonl", A)
    b = write_pairs(tmp_path / "b.jsonl", B, bad=True)
    res = cli("compare", str(a), str(b), "--json", "--db", str(tmp_path / "s.db"))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    required = ["mean_a", "mean_b", "mean_diff", "ci95", "wins", "ties", "losses", "n_items", "n_files", "verdict"]
    assert list(out)[: len(required)] == required
    assert (out["wins"], out["ties"], out["losses"], out["n_items"], out["n_files"]) == (3, 1, 1, 5, 3)
    assert (out["n_only_a"], out["only_a"], out["n_only_b"], out["only_b"]) == (1, ["i6"], 1, ["i7"])
    assert out["verdict"] in ("A better", "B better", "within noise") and out["text"] == "given"

    def indel(v: float) -> float:  # Indel of the first k of 10 characters against all 10
        k = round(10 * v)
        return 2 * k / (10 + k)

    f1 = (indel(0.7) + indel(0.4)) / 2 - (indel(0.5) + indel(0.4)) / 2
    f2 = indel(0.6) - indel(0.9)
    f3 = (indel(0.5) + indel(0.3)) / 2 - (indel(0.2) + indel(0.0)) / 2
    assert out["mean_diff"] == pytest.approx((f1 + f2 + f3) / 3)
    assert f"{b}:7: not JSON" in res.stderr  # the bad line is told and kept beside the file
    assert Path(str(b) + ".rejects.jsonl").is_file()
    text = cli("compare", str(a), str(b), "--db", str(tmp_path / "s.db"))
    assert text.returncode == 0 and "unpaired: 1 only in" in text.stdout and "wins 3, ties 1, loses 1" in text.stdout


def test_compare_runs_and_report_a_b(cli, tmp_path: Path) -> None:
    db, items = make_store(tmp_path)
    res = cli("compare", "good", "half", "--json", "--db", str(db))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    # "half" cut every middle in half: it never beats the perfect run, and loses clearly.
    assert out["wins"] == 0 and out["losses"] + out["ties"] == len(items) and out["verdict"] == "A better"
    assert out["n_only_b"] == 0  # the "ghost" completion has no item: not scored on either side
    assert out["ci95"][1] < 0 and out["text"] == "shown" and out["lines"] == "auto"
    exact = json.loads(cli("compare", "good", "half", "--metric", "exact", "--json", "--db", str(db)).stdout)
    assert exact["mean_a"] == 1.0 and exact["metric"] == "exact"
    report = json.loads(cli("report", "good", "half", "--format", "json", "--db", str(db)).stdout)
    assert {k: report["paired"][k] for k in ("mean_diff", "ci95", "wins", "verdict")} == \
        {k: out[k] for k in ("mean_diff", "ci95", "wins", "verdict")}
    md = cli("report", "good", "half", "--db", str(db)).stdout
    assert "## Paired: half − good" in md and "good better" in md
    page = cli("report", "good", "half", "--format", "html", "--db", str(db)).stdout
    assert "Paired: half − good" in page and 'aria-label="half − good per file"' in page
    assert page.count("<rect") >= len(report["paired"]["per_file_diff"])
    bad = cli("compare", "good", "nope", "--db", str(db))
    assert bad.returncode == 2 and "nope: neither a JSONL file nor a run" in bad.stderr


@pytest.mark.anyio
async def test_the_runs_screen_shows_two_marked_runs_pair_by_pair(tmp_path: Path) -> None:
    from textual.widgets import Static

    from replay.usecases.compare import compare
    from tests.support.tui_data import add_runs, settle
    from tests.support.tui_data import make_store as tui_store
    from tui.app import create_app

    with tui_store(tmp_path / "s.db", 10) as store:
        add_runs(store)
        expected = compare(store, "run-a", "run-b").summary()
        app = create_app(store=store)
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot)
            await pilot.press("3")
            await settle(pilot)
            await pilot.press("space", "down", "space", "c")
            await settle(pilot)
            shown = str(app.screen.query_one("#runs-paired", Static).render())
            assert shown == expected and "run-b − run-a" in shown and "run-a better" in shown
            await pilot.press("space", "c")  # one run left marked: nothing to pair
            await settle(pilot)
            assert str(app.screen.query_one("#runs-paired", Static).render()) == "Mark two runs for a paired comparison."
