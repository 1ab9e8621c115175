"""Time beside quality in a report: each run's latency (median and p90 to the whole answer and to
the first token, the tokens read and generated) and the share of its answers the editor would
have shown in time (replay.latency), as a Markdown section, an HTML table and JSON fields."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any, Protocol

from replay.latency import LatencySummary
from replay.latency.summary import columns

HEADERS = ("run", "answers", "p50 ms", "p90 ms", "first token p50 ms", "prompt tokens", "generated tokens", "in time",
           "late", "timed out", "unknown")


class Timed(Protocol):
    """A run in a report, as far as its time goes."""

    run_id: str
    latency: LatencySummary | None


def time_json(latency: LatencySummary | None) -> dict[str, Any] | None:
    """The `latency` field of a run in `--json` output (None when the run was not timed)."""
    if latency is None:
        return None
    return {f: getattr(latency, f) for f in latency.__struct_fields__}


def _row(run_id: str, s: LatencySummary) -> list[str]:
    cells = columns(s)
    ms = (lambda x: "-" if x is None else f"{x * 1000:.0f}")  # noqa: E731
    num = (lambda x: "-" if x is None else f"{x:g}")  # noqa: E731
    return [run_id, str(s.n), cells["p50 ms"], cells["p90 ms"], ms(s.ttft_p50_s), num(s.prompt_tokens_mean),
            num(s.gen_tokens_mean), cells["in time"], str(s.late), str(s.timed_out), str(s.unknown)]


def _speeds(reports: Sequence[Timed]) -> str:
    speeds = {r.latency.speed for r in reports if r.latency is not None}
    return "measured in the run" if speeds <= {""} else "projected at " + ", ".join(sorted(s for s in speeds if s))


def time_markdown(reports: Sequence[Timed]) -> list[str]:
    """The report's Time section: one row per timed run, then why verdicts are unknown."""
    timed = [(r.run_id, r.latency) for r in reports if r.latency is not None and r.latency.n]
    if not timed:
        return []
    out = ["", f"## Time ({_speeds(reports)}; in time: of the answers judged against the user's next keystroke)", "",
           "| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    out += ["| " + " | ".join(_row(run_id, s)) + " |" for run_id, s in timed]
    reasons = [(run_id, why, n) for run_id, s in timed for why, n in s.unknown_reasons.items()]
    if reasons:
        out += ["", "Unknown verdicts: " + "; ".join(f"{run_id}: {n} × {why}" for run_id, why, n in reasons) + "."]
    return out


def time_html(reports: Sequence[Timed]) -> str:
    """The report's time table as HTML ("" when no run was timed)."""
    timed = [(r.run_id, r.latency) for r in reports if r.latency is not None and r.latency.n]
    if not timed:
        return ""
    head = "".join(f"<th>{h}</th>" for h in HEADERS)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in _row(run_id, s)) + "</tr>" for run_id, s in timed)
    return f"<h2>Time ({html.escape(_speeds(reports))})</h2>\n<table><tr>{head}</tr>{rows}</table>\n"


def frontier(points: Sequence[tuple[float, float]]) -> list[int]:
    """The indexes of the (quality, seconds) points no other beats: none has at least their
    quality in at most their time and is better in one of the two."""
    return [i for i, (q, t) in enumerate(points)
            if not any(q2 >= q and t2 <= t and (q2 > q or t2 < t) for q2, t2 in points)]


def svg_quality_latency(named: Sequence[tuple[str, float, float]], metric: str) -> str:
    """Quality (`metric` mean) against the median time to the whole answer, one dot per model,
    the frontier's dots filled and joined (inline SVG, no script)."""
    if not named:
        return ""
    w, h, pad = 420, 260, 44
    top_t = max(t for _, _, t in named) * 1.1 or 1.0
    x = (lambda t: pad + (w - 2 * pad) * t / top_t)  # noqa: E731
    y = (lambda q: h - pad - (h - 2 * pad) * max(0.0, min(1.0, q)))  # noqa: E731
    best = frontier([(q, t) for _, q, t in named])
    line = " ".join(f"{x(named[i][2]):.1f},{y(named[i][1]):.1f}" for i in sorted(best, key=lambda i: named[i][2]))
    dots = "".join(
        f'<circle cx="{x(t):.1f}" cy="{y(q):.1f}" r="4" fill="{"#4e79a7" if i in best else "none"}" stroke="#4e79a7"/>'
        f'<text x="{x(t) + 6:.1f}" y="{y(q) - 6:.1f}" font-size="11">{html.escape(label)}</text>'
        for i, (label, q, t) in enumerate(named))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img">'
            f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#888"/>'
            f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{h - pad}" stroke="#888"/>'
            f'<text x="{w / 2:.0f}" y="{h - 10}" font-size="11" text-anchor="middle">p50 ms to the whole answer '
            f'(0 to {top_t * 1000:.0f})</text>'
            f'<text x="12" y="{h / 2:.0f}" font-size="11" transform="rotate(-90 12 {h / 2:.0f})" text-anchor="middle">'
            f'{html.escape(metric)} mean (0 to 1)</text>'
            f'<polyline points="{line}" fill="none" stroke="#4e79a7" stroke-dasharray="4 3"/>{dots}</svg>')
