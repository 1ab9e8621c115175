"""The leaderboard's time: p50/p90 and the share in time as columns, the in-time mean, the models
not beaten on both quality and latency named, and quality drawn against latency (SVG in the HTML
page, plotext text in the terminal)."""

from __future__ import annotations

import json
import re

from replay.cutoffs import Overlap
from replay.latency import LatencySummary
from replay.reports.frontier import Point, frontier, on_frontier, svg_quality_latency, text_quality_latency
from replay.reports.leaderboard import Leaderboard, Standing, to_html, to_json, to_text


def _latency(p50: float, budget_ms: float | None = None) -> LatencySummary:
    return LatencySummary(n=4, ttft_p50_s=p50 / 2, ttft_p90_s=p50, total_p50_s=p50, total_p90_s=p50 * 2,
                          prompt_tokens_mean=100.0, gen_tokens_mean=10.0, in_time=3, late=1, timed_out=0, unknown=0,
                          shown_in_time=0.75, budget_ms=budget_ms)


def _board(budget_ms: float | None = None) -> Leaderboard:
    overlap = Overlap(cutoff=None, n_items=4, n_dated=0, n_not_newer=0)
    standings = [Standing(rank=n + 1, model=m, name=m, run_id=f"run-{m}", mean=q, ci95=(q - 0.1, q + 0.1), n_items=4,
                          n_files=2, overlap=overlap, wall_s=1.0, latency=_latency(t, budget_ms))
                 for n, (m, q, t) in enumerate([("big", 0.8, 0.9), ("small", 0.6, 0.2), ("slow-small", 0.5, 0.5)])]
    return Leaderboard(items="items.jsonl", n_items=4, editor="standard", metric="indel", lines="auto",
                       standings=standings, wall_s=3.0)


POINTS = [Point("big", 0.8, 0.9, 1.8), Point("small", 0.6, 0.2, 0.4), Point("slow-small", 0.5, 0.5, 1.0)]


def test_frontier_keeps_the_points_no_other_beats_on_both() -> None:
    assert frontier([(0.8, 0.9), (0.6, 0.2), (0.5, 0.5), (0.6, 0.2)]) == [0, 1, 3]
    assert frontier([]) == []
    assert frontier([(0.5, 1.0)]) == [0]
    # equal on one, better on the other: the worse is beaten; equal on both: neither is
    assert frontier([(0.5, 1.0), (0.5, 0.9)]) == [1]
    assert frontier([(0.5, 1.0), (0.6, 1.0)]) == [1]
    assert frontier([(0.5, 1.0), (0.5, 1.0)]) == [0, 1]
    # faster and better at once beats every other
    assert frontier([(0.4, 2.0), (0.9, 0.1), (0.7, 0.5)]) == [1]


def test_on_frontier_orders_the_path_by_time() -> None:
    assert on_frontier(POINTS) == [1, 0]
    assert on_frontier([]) == []


def test_the_leaderboard_puts_time_beside_quality() -> None:
    board = _board()
    text = to_text(board)
    head = text.splitlines()[2]
    assert head.endswith("p50 ms  p90 ms  in time   in-time mean [95%]")
    assert "900     1800    75% of 4  -" in text
    assert "quality vs p50 latency, not beaten on both: small, big" in text
    assert "in time: judged by the editor's timing rules against the user's next keystroke" in text
    assert "* big" in text and "* small" in text and "o slow-small" in text
    out = json.loads(to_json(board))
    assert out["standings"][1]["latency"]["total_p50_s"] == 0.2 and out["standings"][1]["in_time"] is None
    page = to_html(board)
    assert "<h2>Quality and time</h2>" in page and page.count("<circle") == 3 and 'fill="none"' in page
    assert 'class="frontier"' in page and page.count('class="p90"') == 3


def test_a_budget_is_named_where_time_is_judged() -> None:
    board = _board(budget_ms=300)
    assert "judged by a 300 ms budget on the whole answer (instead of the editor's timing rules)" in to_text(board)
    assert "a 300 ms budget" in to_html(board)
    assert json.loads(to_json(board))["standings"][0]["latency"]["budget_ms"] == 300


def test_svg_draws_points_whiskers_the_frontier_and_axis_labels() -> None:
    svg = svg_quality_latency(POINTS, "indel")
    assert svg.startswith("<svg") and svg.endswith("</svg>") and "<script" not in svg
    assert svg.count("<circle") == 3
    assert svg.count('fill="#4e79a7" stroke') == 2 and svg.count('fill="none" stroke="#4e79a7">') == 1
    # the frontier joins small (faster) then big, in that order
    path = re.search(r'class="frontier" points="([^"]+)"', svg).group(1).split()
    xs = [float(p.split(",")[0]) for p in path]
    assert len(xs) == 2 and xs[0] < xs[1]
    # one whisker per point, from its p50 to its p90 (to the right)
    whiskers = re.findall(r'class="p90" x1="([\d.]+)" y1="[\d.]+" x2="([\d.]+)"', svg)
    assert len(whiskers) == 3 and all(float(a) < float(b) for a, b in whiskers)
    assert "ms to the whole answer: p50 (dot), p90 (whisker)" in svg and ">indel mean</text>" in svg
    assert "<title>big: indel 0.8000, p50 900 ms, p90 1800 ms</title>" in svg
    assert ">0</text>" in svg and ">1</text>" in svg  # the axes' ends
    assert svg_quality_latency([], "indel") == ""
    one = svg_quality_latency(POINTS[:1], "indel")
    assert 'class="frontier"' not in one and one.count("<circle") == 1


def test_text_plot_is_the_same_text_for_the_same_figures() -> None:
    page = text_quality_latency(POINTS, "indel", width=72, height=18)
    lines = page.splitlines()
    assert len(lines) == 18 and max(len(line) for line in lines) <= 72
    assert "\x1b[" not in page  # no colour codes
    assert lines[0].strip() == "indel mean against latency (* not beaten on both, joined by dots)"
    assert "* big---" in page and "* small" in page and "o slow-small---" in page
    assert page.count(".") >= 10  # the frontier's path of dots from small to big
    assert "seconds to the whole answer: p50 at the mark, p90 at the dashes' end" in lines[-1]
    # quality from 0 to 1, time from 0 to past the largest p90 (1.8 s: 2 s)
    assert "1.00┤" in page and "0.00┤" in page and lines[-2].split()[0] == "0.00" and lines[-2].split()[-1] == "2.00"
    # the big model's mark sits right of the small one's, and higher
    row_big = next(i for i, line in enumerate(lines) if "* big" in line)
    row_small = next(i for i, line in enumerate(lines) if "* small" in line)
    assert row_big < row_small and lines[row_big].index("* big") > lines[row_small].index("* small")
    assert text_quality_latency(POINTS, "indel", width=72, height=18) == page
    assert text_quality_latency([], "indel") == ""


def test_a_label_right_of_the_middle_ends_at_its_mark() -> None:
    page = text_quality_latency([Point("qwen2.5-coder-good", 1.0, 0.41, 0.42), Point("fast", 0.6, 0.01, 0.012)], "indel")
    assert "qwen2.5-coder-good *--" in page and "* fast" in page
