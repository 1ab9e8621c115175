"""The leaderboard's time: p50/p90 and the share in time as columns, the models not beaten on both
quality and latency named, and quality drawn against latency in the HTML page."""

from __future__ import annotations

import json

from replay.cutoffs import Overlap
from replay.latency import LatencySummary
from replay.reports.leaderboard import Leaderboard, Standing, to_html, to_json, to_text
from replay.reports.timing import frontier, svg_quality_latency


def _latency(p50: float) -> LatencySummary:
    return LatencySummary(n=4, ttft_p50_s=p50 / 2, ttft_p90_s=p50, total_p50_s=p50, total_p90_s=p50 * 2,
                          prompt_tokens_mean=100.0, gen_tokens_mean=10.0, in_time=3, late=1, timed_out=0, unknown=0,
                          shown_in_time=0.75)


def _board() -> Leaderboard:
    overlap = Overlap(cutoff=None, n_items=4, n_dated=0, n_not_newer=0)
    standings = [Standing(rank=n + 1, model=m, name=m, run_id=f"run-{m}", mean=q, ci95=(q - 0.1, q + 0.1), n_items=4,
                          n_files=2, overlap=overlap, wall_s=1.0, latency=_latency(t))
                 for n, (m, q, t) in enumerate([("big", 0.8, 0.9), ("small", 0.6, 0.2), ("slow-small", 0.5, 0.5)])]
    return Leaderboard(items="items.jsonl", n_items=4, editor="standard", metric="indel", lines="auto",
                       standings=standings, wall_s=3.0)


def test_frontier_keeps_the_points_no_other_beats_on_both() -> None:
    assert frontier([(0.8, 0.9), (0.6, 0.2), (0.5, 0.5), (0.6, 0.2)]) == [0, 1, 3]
    assert frontier([]) == []


def test_the_leaderboard_puts_time_beside_quality() -> None:
    board = _board()
    text = to_text(board)
    head = text.splitlines()[2]
    assert head.endswith("p50 ms  p90 ms  in time")
    assert "900     1800    75% of 4" in text
    assert "quality vs p50 latency, not beaten on both: big, small" in text
    assert json.loads(to_json(board))["standings"][1]["latency"]["total_p50_s"] == 0.2
    page = to_html(board)
    assert "<h2>Quality and time</h2>" in page and page.count("<circle") == 3 and 'fill="none"' in page


def test_svg_marks_the_frontier_filled() -> None:
    svg = svg_quality_latency([("a", 0.5, 1.0), ("b", 0.4, 2.0)], "indel")
    assert svg.count('fill="#4e79a7"') == 1 and svg.count('fill="none" stroke="#4e79a7"/>') == 1
