"""A leaderboard: models ranked on the same items, each compared with the best by paired
differences (replay.reports.compare), as text, JSON or a self-contained HTML page.

A ranking by means alone says nothing about noise: two models 0.01 apart on 40 items may swap
places on the next 40. Each model below the best carries its paired difference to the best, its
95% interval and the verdict, so a reader sees which places the items can actually tell apart.

A leaderboard replayed until decided (replay.reports.sequential) ranks the best of the sequential
comparisons first; each other model carries its comparison with the model that was the best when
it was compared: the verdict, its confidence sequence, the items it used and the method. Means
are then over the items each run holds, which differ from run to run.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from replay.cutoffs import Overlap
from replay.latency import LatencySummary
from replay.latency.summary import columns
from replay.reports.compare import Paired
from replay.reports.sequential import Sequential
from replay.reports.report import svg_file_diffs
from replay.reports.frontier import Point, on_frontier, svg_quality_latency, text_quality_latency
from replay.reports.timing import IN_TIME_MEANS, InTime, time_json
from replay.scoring import Lines, scored_what


@dataclass(frozen=True)
class Standing:
    """One model's place: its run, its own mean and interval, and its paired difference to the
    best (None for the best itself)."""

    rank: int
    model: str  # as given (--model)
    name: str  # the model's own name (a GGUF's general.name)
    run_id: str
    mean: float
    ci95: tuple[float, float]
    n_items: int
    n_files: int
    overlap: Overlap
    wall_s: float
    vs_best: Paired | None = None
    n_replayed: int = 0  # items the model's run holds
    vs_model: str | None = None  # until decided: the best it was compared with
    sequential: Sequential | None = None  # until decided: that comparison (it is B)
    latency: LatencySummary | None = None  # its run's time (replay.latency)
    in_time: InTime | None = None  # its run's score counting an answer not shown in time as nothing shown

    def to_json(self) -> dict[str, Any]:
        out = {"rank": self.rank, "model": self.model, "name": self.name, "run": self.run_id, "mean": self.mean,
               "ci95": list(self.ci95), "n_items": self.n_items, "n_files": self.n_files,
               "vs_best": self.vs_best.to_json() if self.vs_best else None,
               "training_overlap": self.overlap.to_json(), "wall_s": self.wall_s, "n_replayed": self.n_replayed}
        if self.vs_model is not None and self.sequential is not None:
            out["sequential"] = {"vs": self.vs_model, **self.sequential.to_json()}
        out["latency"] = time_json(self.latency)
        out["in_time"] = self.in_time.to_json() if self.in_time else None
        return out


@dataclass(frozen=True)
class Leaderboard:
    items: str
    n_items: int  # items in the file
    editor: str
    metric: str
    lines: Lines
    standings: list[Standing]
    wall_s: float
    method: str | None = None  # until decided: the sequential comparisons' method

    @property
    def scored(self) -> str:
        return scored_what("shown", self.lines)

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "n_items": self.n_items, "editor": self.editor, "metric": self.metric,
                "text": "shown", "lines": self.lines, "scored": self.scored, "wall_s": self.wall_s,
                "until_decided": self.method is not None, "method": self.method,
                "standings": [s.to_json() for s in self.standings]}


def _vs(p: Paired | None) -> tuple[str, str, str]:
    """(difference [interval], wins/ties/losses, verdict) of a standing against the best."""
    if p is None:
        return "best", "", ""
    verdict = {"A better": "best is better", "B better": "better than best"}.get(p.verdict, "within noise")
    return f"{p.mean_diff:+.4f} [{p.ci95[0]:+.4f}, {p.ci95[1]:+.4f}]", f"{p.wins}/{p.ties}/{p.losses}", verdict


def _seq(s: Standing) -> tuple[str, str, str, str]:
    """(against whom, difference [confidence sequence], verdict, items used of all) of a standing
    replayed until decided."""
    q = s.sequential
    if q is None or s.vs_model is None:
        return "", "", "first best", ""
    return (s.vs_model, f"{q.mean_diff:+.4f} [{q.interval[0]:+.4f}, {q.interval[1]:+.4f}]", q.verdict_text(s.vs_model, s.model),
            f"{q.items_used} of {q.n_items} ({q.units_used} of {q.n_units} {q.unit}s)")


def _table(board: Leaderboard) -> tuple[list[str], list[list[str]]]:
    """The head and rows of the ranking: paired with the best, or the sequential comparisons."""
    mean = f"{board.metric} mean [95%]"
    if board.method is not None:
        head = ["rank", "model", "run", "items replayed", f"{board.metric} mean of those [95%]", "vs", "difference [95% conf. seq.]", "verdict", "items used"]
        return [*head, *TIME_HEAD], [[str(s.rank), s.model, s.run_id, str(s.n_replayed),
                                      f"{s.mean:.4f} [{s.ci95[0]:.4f}, {s.ci95[1]:.4f}]", *_seq(s), *_time(s, board.metric)]
                                     for s in board.standings]
    head = ["rank", "model", "run", mean, "vs best (paired) [95%]", "W/T/L", "verdict", *TIME_HEAD]
    return head, [[str(s.rank), s.model, s.run_id, f"{s.mean:.4f} [{s.ci95[0]:.4f}, {s.ci95[1]:.4f}]", *_vs(s.vs_best),
                   *_time(s, board.metric)] for s in board.standings]


TIME_HEAD = ("p50 ms", "p90 ms", "in time", "in-time mean [95%]")


def _time(s: Standing, metric: str) -> tuple[str, ...]:
    """The standing's time cells: the median and p90 to the whole answer, the share shown in
    time, and its in-time mean of `metric`."""
    if s.latency is None or not s.latency.n:
        return ("-",) * len(TIME_HEAD)
    cells = columns(s.latency)
    return (*(cells[h] for h in TIME_HEAD[:3]), s.in_time.cell(metric) if s.in_time else "-")


def _undecided(board: Leaderboard) -> list[str]:
    """Why each comparison replayed until decided that ended undecided did, by its method's bound."""
    return [f"{s.model}: undecided against {s.vs_model}: {s.sequential.shortfall.reason}"
            for s in board.standings if s.sequential is not None and s.sequential.shortfall is not None]


def to_text(board: Leaderboard) -> str:
    head, rows = _table(board)
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    out = [f"{board.n_items} items from {board.items}, editor {board.editor}; scored: {board.scored}", ""]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *rows]]
    out.append("")
    for s in board.standings:
        if s.vs_best is not None and s.vs_best.verdict == "within noise" and s.vs_best.items_needed:
            out.append(f"{s.model}: within noise of the best; about {s.vs_best.items_needed} items would tell them apart")
        if s.vs_best is not None and (s.vs_best.only_a or s.vs_best.only_b):
            out.append(f"{s.model}: {len(s.vs_best.only_a)} items only in the best's run, {len(s.vs_best.only_b)} only in its own")
        out.append(f"{s.model}: {s.overlap.message}")
    out += _undecided(board)
    out += _time_lines(board)
    if board.method is not None:
        out.append(f"replayed until decided, files in a seeded order: {board.method}")
    out.append(f"wall time {board.wall_s:.1f} s")
    return "\n".join(out) + "\n"


def _timed(board: Leaderboard) -> list[Standing]:
    """The standings whose run was timed (a median time to set against their quality)."""
    return [s for s in board.standings if s.latency is not None and s.latency.total_p50_s is not None]


def _points(timed: list[Standing]) -> list[Point]:
    return [Point(s.model, s.mean, s.latency.total_p50_s, s.latency.total_p90_s or s.latency.total_p50_s)  # type: ignore[union-attr,arg-type]
            for s in timed]


def _time_lines(board: Leaderboard) -> list[str]:
    """What the text says of time: what judged in time, the models on the frontier and the plot."""
    timed = _timed(board)
    if not timed:
        return []
    judged_by = timed[0].latency.judged_by  # type: ignore[union-attr]
    out = [f"in time: judged by {judged_by}; in-time mean: {board.metric} {IN_TIME_MEANS}"]
    if len(timed) > 1:
        points = _points(timed)
        out.append("quality vs p50 latency, not beaten on both: " + ", ".join(points[i].label for i in on_frontier(points)))
        out += ["", text_quality_latency(points, board.metric).rstrip("\n"), ""]
    return out


def to_json(board: Leaderboard) -> str:
    return json.dumps(board.to_json(), ensure_ascii=False, indent=1)


def to_html(board: Leaderboard) -> str:
    """The ranking as a table, and per model below the best its per-file differences to the best."""
    head, cells = _table(board)
    head = [*head[:2], "name", *head[2:], "training data"]
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in [*row[:2], s.name, *row[2:], s.overlap.message])
                   + "</tr>" for row, s in zip(cells, board.standings))
    method = "" if board.method is None else f" Replayed until decided, files in a seeded order: {html.escape(board.method)}."
    undecided = "".join(f"<p>{html.escape(line)}</p>" for line in _undecided(board))
    best = board.standings[0].model if board.standings else ""
    plots = "".join(f"<figure>{svg_file_diffs(s.vs_best.per_file, f'{s.model} − {best}')}<figcaption>{html.escape(s.model)} − "
                    f"{html.escape(best)}: {board.metric} difference per file</figcaption></figure>"
                    for s in board.standings if s.vs_best is not None)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fimreplay leaderboard</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 6px;font-size:13px}}figure{{display:inline-block;margin:0 1em 1em 0}}</style>
</head><body>
<h1>fimreplay leaderboard</h1>
<p>{board.n_items} items from <code>{html.escape(board.items)}</code>, editor {html.escape(board.editor)}. Scored: {html.escape(board.scored)}. Wall time {board.wall_s:.1f} s.{method}</p>
<table><tr>{"".join(f"<th>{html.escape(h)}</th>" for h in head)}</tr>{rows}</table>
{undecided}
{_html_time(board)}
<h2>Per-file differences to the best</h2>
{plots}
</body></html>
"""


def _html_time(board: Leaderboard) -> str:
    """Quality against latency, the frontier marked ("" when fewer than two runs were timed)."""
    timed = _timed(board)
    if len(timed) < 2:
        return ""
    svg = svg_quality_latency(_points(timed), board.metric)
    judged_by = html.escape(timed[0].latency.judged_by)  # type: ignore[union-attr]
    return (f"<h2>Quality and time</h2>\n<figure>{svg}<figcaption>{html.escape(board.metric)} mean against the median "
            "time to the whole answer (the whisker to the p90); filled and joined: not beaten on both</figcaption></figure>"
            f"<p>In time: judged by {judged_by}; the in-time mean counts an answer not shown in time as nothing shown.</p>")


RENDERERS = {"text": to_text, "json": to_json, "html": to_html}
