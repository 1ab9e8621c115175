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
