"""Time beside quality in a report: each run's latency (median and p90 to the whole answer and to
the first token, the tokens read and generated), the share of its answers the editor would
have shown in time (replay.latency), and its in-time score: the score counting an answer not
shown in time as nothing shown, as a Markdown section, an HTML table and JSON fields."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from replay.latency import LatencySummary, Speed, not_shown
from replay.latency.summary import columns
from replay.reading import TimedCompletion
from replay.scoring import HEADLINE, Lines, ScoredItem, Summary, aggregate, nothing_shown

HEADERS = ("run", "answers", "p50 ms", "p90 ms", "first token p50 ms", "prompt tokens", "generated tokens", "in time",
           "late", "timed out", "unknown", f"in-time {HEADLINE} [95%]")
IN_TIME_MEANS = "counting an answer not shown in time as nothing shown"


@dataclass(frozen=True)
class InTime:
    """A run's in-time score: its scored items as the user saw them in time (each answer judged
    late or timed out scored as an empty text, replay.scoring.nothing_shown), their aggregate,
    how many were counted as nothing shown and what judged them."""

    rows: list[ScoredItem]
    summary: Summary
    n_not_shown: int
    judged_by: str

    def to_json(self) -> dict[str, Any]:
        s = self.summary
        return {"means": IN_TIME_MEANS, "judged_by": self.judged_by, "n_not_shown": self.n_not_shown,
                "n_items": s.n_items, "n_files": s.n_files, "mean": s.mean, "ci95": {k: list(v) for k, v in s.ci95.items()},
                "total": s.total}

    def cell(self, metric: str = HEADLINE) -> str:
        """The in-time mean of `metric` and its interval, as a table cell."""
        mean, (low, high) = self.summary.mean.get(metric), self.summary.ci95.get(metric, (0.0, 0.0))
        return "-" if mean is None else f"{mean:.4f} [{low:.4f}, {high:.4f}]"

    def line(self) -> str:
        """The in-time score in one line, as `score` and `compare` print it."""
        means = ", ".join(f"{m} {v:.4f}" for m, v in self.summary.mean.items())
        return (f"in-time score ({IN_TIME_MEANS}: {self.n_not_shown} of {self.summary.n_items}; judged by "
                f"{self.judged_by}): {means or '-'}")


def in_time(rows: Sequence[ScoredItem], timed: Sequence[TimedCompletion], latency: LatencySummary, lines: Lines,
            seed: int = 0, speed: Speed | None = None, workers: int | None = None, summary: Summary | None = None) -> InTime:
    """The in-time score of a run's scored `rows`, its answers judged as `latency` was (at `speed`,
    by its budget or its editor's rules). `summary`, the rows' own aggregate with `seed`, is taken
    as it is when every answer was shown in time and the rows hold only pair metrics (the same
    rows aggregate the same), instead of bootstrapping again."""
    hidden = not_shown(timed, speed, latency.budget_ms)
    seen = nothing_shown(rows, hidden, lines, workers)
    n_hidden = sum(r.item_id in hidden for r in rows)
    same = summary is not None and not n_hidden and all(a.values == b.values for a, b in zip(rows, seen))
    return InTime(seen, summary if same and summary is not None else aggregate(seen, seed=seed), n_hidden, latency.judged_by)


class Timed(Protocol):
    """A run in a report, as far as its time goes."""

    run_id: str
    latency: LatencySummary | None
    in_time: InTime | None


def time_json(latency: LatencySummary | None) -> dict[str, Any] | None:
    """The `latency` field of a run in `--json` output (None when the run was not timed)."""
    if latency is None:
        return None
    return {f: getattr(latency, f) for f in latency.__struct_fields__}


def _row(r: Timed) -> list[str]:
    s = r.latency
    assert s is not None
    cells = columns(s)
    ms = (lambda x: "-" if x is None else f"{x * 1000:.0f}")  # noqa: E731
    num = (lambda x: "-" if x is None else f"{x:g}")  # noqa: E731
    return [r.run_id, str(s.n), cells["p50 ms"], cells["p90 ms"], ms(s.ttft_p50_s), num(s.prompt_tokens_mean),
            num(s.gen_tokens_mean), cells["in time"], str(s.late), str(s.timed_out), str(s.unknown),
            r.in_time.cell() if r.in_time is not None else "-"]


def _timed(reports: Sequence[Timed]) -> list[Timed]:
    return [r for r in reports if r.latency is not None and r.latency.n]


def _speeds(reports: Sequence[Timed]) -> str:
    speeds = {r.latency.speed for r in reports if r.latency is not None}
    return "measured in the run" if speeds <= {""} else "projected at " + ", ".join(sorted(s for s in speeds if s))


def _judged_by(reports: Sequence[Timed]) -> str:
    return "; ".join(sorted({r.latency.judged_by for r in _timed(reports) if r.latency is not None}))


def time_markdown(reports: Sequence[Timed]) -> list[str]:
    """The report's Time section: one row per timed run, then why verdicts are unknown."""
    timed = _timed(reports)
    if not timed:
        return []
    out = ["", f"## Time ({_speeds(reports)}; in time: judged by {_judged_by(reports)}; in-time {HEADLINE}: "
               f"{IN_TIME_MEANS})", "", "| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    out += ["| " + " | ".join(_row(r)) + " |" for r in timed]
    reasons = [(r.run_id, why, n) for r in timed for why, n in r.latency.unknown_reasons.items()]  # type: ignore[union-attr]
    if reasons:
        out += ["", "Unknown verdicts: " + "; ".join(f"{run_id}: {n} × {why}" for run_id, why, n in reasons) + "."]
    return out


def time_html(reports: Sequence[Timed]) -> str:
    """The report's time table as HTML ("" when no run was timed)."""
    timed = _timed(reports)
    if not timed:
        return ""
    head = "".join(f"<th>{h}</th>" for h in HEADERS)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in _row(r)) + "</tr>" for r in timed)
    return (f"<h2>Time ({html.escape(_speeds(reports))})</h2>\n<p>In time: judged by {html.escape(_judged_by(reports))}; "
            f"in-time {HEADLINE}: {IN_TIME_MEANS}.</p>\n<table><tr>{head}</tr>{rows}</table>\n")
