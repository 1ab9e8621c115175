"""Side-by-side reports of scored runs: Markdown, CSV, JSON and a self-contained HTML page.

A run comes from the store (its config names backend, model and editor profile); its scores are
the stored ones where the store holds them, the rest are computed (and stored). The
HTML page draws its plots as inline SVG (no script, no CDN): mean per run with its bootstrap 95%
interval, the distribution of the headline score, and the score by middle length. Two runs are
also compared pair by pair (replay.reports.compare: B − A, the second run minus the first), and the page
plots their per-file differences. Each run says whether its items may be in its model's training
data (replay.cutoffs).
"""

from __future__ import annotations

import csv
import difflib
import html
import io
import json
from dataclasses import dataclass
from typing import Any

from replay.cutoffs import Overlap, run_overlap
from replay.latency import LatencySummary, Speed, summarize
from replay.reading import ScoreKeeper
from replay.reports.compare import Paired, paired
from replay.reports.timing import InTime, in_time, time_html, time_json, time_markdown
from replay.scoring import (HEADLINE, METRIC_NAMES, Lines, ReferenceKind, ScoredItem, Summary, Text, aggregate, nothing_scored,
                            scored_run, scored_what, unscored_reasons)

LENGTH_BINS = (0, 16, 32, 64, 128, 256, 10**9)  # middle length in characters


@dataclass
class RunReport:
    run_id: str
    backend: str
    model: str
    profile: str
    rows: list[ScoredItem]
    summary: Summary
    n_rejects: int = 0
    text: Text = "shown"
    lines: Lines = "auto"
    stage: dict[str, int] | None = None  # how shown and raw differ (run_pairs counts)
    overlap: Overlap | None = None  # items that may be in the model's training data
    status: str = "done"  # the run's (RunRecord.status)
    items_done: int = 0  # items with a completion that is not an error
    items_total: int = 0  # items the run was started with
    latency: LatencySummary | None = None  # its time (replay.latency), measured or at a stated speed
    unscored: dict[str, int] | None = None  # why items were not scored: each reason, its count
    in_time: InTime | None = None  # its score counting an answer not shown in time as nothing shown

    @property
    def nothing_scored(self) -> str | None:
        """The sentence a page says of a run with no scored item, instead of its figures."""
        return nothing_scored(self.summary.n_items, self.unscored or {})

    @property
    def label(self) -> str:
        return f"{self.model} · {self.profile} ({self.run_id})"

    @property
    def coverage(self) -> str | None:
        """"N of M items (interrupted)" for a run that was stopped before all its items (still
        running, killed, or stopped once its comparison was decided); None for a finished run."""
        if self.status not in PARTIAL:
            return None
        return f"{self.items_done} of {self.items_total} items ({PARTIAL[self.status]})"


# The statuses of a run that holds only part of its items (replay.store.runs), as a page says them.
PARTIAL = {"running": "still running", "interrupted": "interrupted", "decided": "stopped when its comparison was decided"}


def partial_notes(reports: list[RunReport]) -> list[str]:
    """One line per run that holds only part of its items: what every page says first."""
    return [f"run {r.run_id} holds {r.coverage}: its figures are of those" for r in reports if r.coverage]


def empty_notes(reports: list[RunReport]) -> list[str]:
    """One line per run with no scored item, saying why: what every page says beside the
    partial runs (a table of such a run holds no figure)."""
    return [f"run {r.run_id}: {r.nothing_scored}" for r in reports if r.nothing_scored]


def load_run(store: ScoreKeeper, run_id: str, lines: Lines = "auto", seed: int = 0, text: Text = "shown",
             workers: int | None = None, cutoff: str | None = None, speed: Speed | None = None,
             reference: ReferenceKind = "typed", budget_ms: float | None = None) -> RunReport:
    """Score one stored run (what the store holds is reused: a scored run is not scored again)
    and summarise it; `cutoff` is a training-data cutoff given now (else the run's own or the
    known table's); its time at `speed`, judged by `budget_ms` or the editor's rules."""
    scored = scored_run(store, run_id, text, lines, seed, workers, reference=reference)
    scores, stored, timed = scored.scores, store.run(run_id), store.timed_completions(run_id)
    latency = summarize(timed, speed, budget_ms)
    return RunReport(run_id=run_id, backend=scored.backend or "?", model=scored.model or "?", profile=scored.profile,
                     rows=scores.rows, summary=scored.summary, n_rejects=len(scores.rejects), text=text, lines=lines,
                     stage=scores.counts, overlap=run_overlap(store, run_id, cutoff), status=stored.status if stored else "done",
                     items_done=scores.n_done, items_total=store.count_run_prompts(run_id), latency=latency,
                     unscored=unscored_reasons(scores.rejects), in_time=in_time(
                         scores.rows, timed, latency, lines, seed, speed, workers, scored.summary) if latency.n else None)


def _diff(reference: str, completion: str) -> str:
    return "".join(difflib.unified_diff(reference.splitlines(keepends=True), completion.splitlines(keepends=True),
                                        "reference", "completion", n=2)) or "(identical)\n"


def extremes(report: RunReport, k: int = 3) -> dict[str, list[dict[str, Any]]]:
    """The k best and k worst items by the headline score (ties broken by item id)."""
    ranked = sorted(report.rows, key=lambda r: (r.values.get(HEADLINE, 0.0), r.item_id))

    def show(r: ScoredItem) -> dict[str, Any]:
        return {"item_id": r.item_id, "file": r.file, "values": r.values, "reference": r.reference,
                "completion": r.completion, "diff": _diff(r.reference, r.completion)}

    return {"best": [show(r) for r in reversed(ranked[-k:])], "worst": [show(r) for r in ranked[:k]]}


def by_length(report: RunReport, metric: str = HEADLINE) -> list[dict[str, Any]]:
    out = []
    for lo, hi in zip(LENGTH_BINS, LENGTH_BINS[1:]):
        vals = [r.values[metric] for r in report.rows if lo <= r.middle_len < hi and metric in r.values]
        if vals:
            out.append({"bin": f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+", "n": len(vals), "mean": sum(vals) / len(vals)})
    return out


def groups(reports: list[RunReport]) -> list[dict[str, Any]]:
    """Runs pooled per (model, editor profile): the same files scored together."""
    pooled: dict[tuple[str, str], list[ScoredItem]] = {}
    for rep in reports:
        pooled.setdefault((rep.model, rep.profile), []).extend(rep.rows)
    return [{"model": m, "profile": p, **{k: v for k, v in aggregate(rows).to_json().items() if k != "per_file"}}
            for (m, p), rows in sorted(pooled.items())]


def scored(reports: list[RunReport]) -> tuple[Text, Lines]:
    """Which text and line window the reports scored (one load_run call each, the same for all)."""
    kinds = {(r.text, r.lines) for r in reports}
    if len(kinds) > 1:
        raise ValueError(f"reports scored differently: {sorted(map(str, kinds))}")
    return kinds.pop() if kinds else ("shown", "auto")


def pair_of(reports: list[RunReport]) -> Paired | None:
    """The paired comparison of two runs on the headline (the second minus the first); None
    for any other number of runs, and for two runs that share no scored item (a verdict over
    no pair would say nothing)."""
    if len(reports) != 2:
        return None
    pair = paired(reports[0].rows, reports[1].rows, HEADLINE, seed=reports[0].summary.bootstrap.seed)
    return pair if pair.n_items else None


def _overlap(r: RunReport) -> str:
    return r.overlap.message if r.overlap else "item dates unknown"


def to_dict(reports: list[RunReport]) -> dict[str, Any]:
    text, lines = scored(reports)
    pair = pair_of(reports)
    return {
        "text": text, "lines": lines, "scored": scored_what(text, lines), "partial": partial_notes(reports),
        "nothing_scored": empty_notes(reports),
        "runs": [{"run": r.run_id, "backend": r.backend, "model": r.model, "profile": r.profile, "n_rejects": r.n_rejects,
                  "unscored": r.unscored or {}, "nothing_scored": r.nothing_scored,
                  "status": r.status, "items_done": r.items_done, "items_total": r.items_total, "coverage": r.coverage,
                  "stage": r.stage, "training_overlap": r.overlap.to_json() if r.overlap else None, **r.summary.to_json(),
                  "by_length": by_length(r), **extremes(r), "latency": time_json(r.latency),
                  "in_time": r.in_time.to_json() if r.in_time else None} for r in reports],
        "groups": groups(reports),
        "paired": None if pair is None else {"a": reports[0].run_id, "b": reports[1].run_id, **pair.to_json()},
    }


def _metrics(reports: list[RunReport]) -> list[str]:
    return [m for m in METRIC_NAMES if any(m in r.summary.mean for r in reports)]


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:.4f}"


def to_markdown(reports: list[RunReport]) -> str:
    metrics = _metrics(reports)
    text, lines = scored(reports)
    out = ["# fimreplay report", "", *(f"**Incomplete:** {note}." for note in partial_notes(reports)),
           *(f"**Nothing to judge:** {note}." for note in empty_notes(reports)),
           f"Scored: {scored_what(text, lines)}.", "",
           "## Runs (mean over files, bootstrap 95% interval; total = sum of per-file means)", ""]
    head = ["run", "model", "profile", "backend", "items", "files"] + [c for m in metrics for c in (f"{m} mean [95%]", f"{m} total")]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in reports:
        s = r.summary
        cells = []
        for m in metrics:
            lo, hi = s.ci95.get(m, (None, None))
            cells += [f"{_fmt(s.mean.get(m))} [{_fmt(lo)}, {_fmt(hi)}]", _fmt(s.total.get(m))]
        out.append("| " + " | ".join([r.run_id, r.model, r.profile, r.backend, str(s.n_items), str(s.n_files), *cells]) + " |")
    out += ["", "Training data: " + "; ".join(f"{r.run_id}: {_overlap(r)}" for r in reports) + ".", *time_markdown(reports)]
    pair = pair_of(reports)
    if pair is not None:
        out += ["", f"## Paired: {reports[1].run_id} − {reports[0].run_id}", "", pair.summary(reports[0].run_id, reports[1].run_id) + "."]
    files = sorted({f for r in reports for f in r.summary.per_file})
    out += ["", f"## Per file ({HEADLINE})", "", "| file | " + " | ".join(r.run_id for r in reports) + " |",
            "|" + "---|" * (1 + len(reports))]
    for f in files:
        out.append(f"| {f} | " + " | ".join(_fmt(r.summary.per_file.get(f, {}).get(HEADLINE)) for r in reports) + " |")
    for r in reports:
        ex = extremes(r)
        for kind in ("best", "worst"):
            out += ["", f"## {kind.capitalize()} items of {r.run_id}", ""]
            for e in ex[kind]:
                out += [f"**{e['item_id']}** `{e['file']}` {HEADLINE}={_fmt(e['values'].get(HEADLINE))}", "", "```diff", e["diff"].rstrip("\n"), "```", ""]
    return "\n".join(out) + "\n"


def to_csv(reports: list[RunReport]) -> str:
    """One row per (run, file) and one `*` row per run with the totals and means; every row says
    which text and line window was scored."""
    metrics = _metrics(reports)
    text, lines = scored(reports)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["run", "model", "profile", "backend", "text", "lines", "coverage", "file", "n_items"] + metrics
               + [f"{m}_total" for m in metrics] + [f"{m}_ci95_low" for m in metrics] + [f"{m}_ci95_high" for m in metrics])
    for r in reports:
        head = [r.run_id, r.model, r.profile, r.backend, text, lines, r.coverage or "complete"]
        counts: dict[str, int] = {}
        for row in r.rows:
            counts[row.file] = counts.get(row.file, 0) + 1
        s = r.summary
        for f, vals in s.per_file.items():
            w.writerow(head + [f, counts[f]] + [vals.get(m, "") for m in metrics] + [""] * (3 * len(metrics)))
        w.writerow(head + ["*", s.n_items] + [s.mean.get(m, "") for m in metrics]
                   + [s.total.get(m, "") for m in metrics] + [s.ci95.get(m, ("", ""))[0] for m in metrics]
                   + [s.ci95.get(m, ("", ""))[1] for m in metrics])
    return buf.getvalue()


def to_json(reports: list[RunReport]) -> str:
    return json.dumps(to_dict(reports), ensure_ascii=False, indent=1)


# -- HTML with inline SVG ---------------------------------------------------------------------

_COLORS = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7")


def _y_axis(h: int, pad: int, top: float, label: str) -> str:
    """A left axis from 0 to `top` with three ticks, and its label."""
    scale = h - pad - 10
    parts = [f'<line x1="{pad}" y1="10" x2="{pad}" y2="{h - pad}" stroke="#333"/>']
    for frac in (0, 0.5, 1):
        y = h - pad - frac * scale
        parts.append(f'<text x="{pad - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{frac * top:.2g}</text>')
    parts.append(f'<text x="10" y="{(h - pad) / 2:.0f}" font-size="10" transform="rotate(-90 10 {(h - pad) / 2:.0f})" text-anchor="middle">{html.escape(label)}</text>')
    return "".join(parts)


def _svg_bars(reports: list[RunReport], metric: str) -> str:
    """Mean per run with its 95% interval as a whisker; the y axis is 0..1."""
    w, h, pad = 120 + 90 * len(reports), 240, 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="{metric} by run">',
             f'<line x1="{pad}" y1="{h - pad}" x2="{w - 10}" y2="{h - pad}" stroke="#333"/>', _y_axis(h, pad, 1.0, metric)]
    scale = h - pad - 10
    for i, r in enumerate(reports):
        mean = r.summary.mean.get(metric)
        if mean is None:
            continue
        lo, hi = r.summary.ci95[metric]
        x = pad + 20 + 90 * i
        parts.append(f'<rect x="{x}" y="{h - pad - mean * scale:.1f}" width="50" height="{mean * scale:.1f}" fill="{_COLORS[i % len(_COLORS)]}">'
                     f"<title>{html.escape(r.label)}: {mean:.4f} [{lo:.4f}, {hi:.4f}]</title></rect>")
        parts.append(f'<line x1="{x + 25}" y1="{h - pad - hi * scale:.1f}" x2="{x + 25}" y2="{h - pad - lo * scale:.1f}" stroke="#000" stroke-width="2"/>')
        parts.append(f'<text x="{x + 25}" y="{h - pad + 14}" font-size="10" text-anchor="middle">{html.escape(r.run_id[:14])}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _svg_hist(reports: list[RunReport], metric: str = HEADLINE, bins: int = 10) -> str:
    """Share of items per score bin (0..1 in `bins` steps), one polyline per run."""
    w, h, pad = 420, 220, 36
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="{metric} distribution">',
             f'<line x1="{pad}" y1="{h - pad}" x2="{w - 10}" y2="{h - pad}" stroke="#333"/>']
    for t in range(0, bins + 1, 2):
        parts.append(f'<text x="{pad + t * (w - pad - 10) / bins:.1f}" y="{h - pad + 14}" font-size="10" text-anchor="middle">{t / bins:g}</text>')
    shares = []
    for r in reports:
        vals = [row.values[metric] for row in r.rows if metric in row.values]
        counts = [0] * bins
        for v in vals:
            counts[min(bins - 1, int(v * bins))] += 1
        shares.append([c / len(vals) for c in counts] if vals else [])
    top = max([x for sh in shares for x in sh] + [0.01])
    parts.append(_y_axis(h, pad, top, "share of items"))
    for i, (r, sh) in enumerate(zip(reports, shares)):
        if not sh:
            continue
        pts = " ".join(f"{pad + (k + 0.5) * (w - pad - 10) / bins:.1f},{h - pad - (x / top) * (h - pad - 10):.1f}" for k, x in enumerate(sh))
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{_COLORS[i % len(_COLORS)]}" stroke-width="2"><title>{html.escape(r.label)}</title></polyline>')
    parts.append("</svg>")
    return "".join(parts)


def _svg_length(reports: list[RunReport], metric: str = HEADLINE) -> str:
    """Mean score per middle-length bin, one polyline per run."""
    labels = [f"{lo}-{hi - 1}" if hi < 10**9 else f"{lo}+" for lo, hi in zip(LENGTH_BINS, LENGTH_BINS[1:])]
    w, h, pad = 460, 220, 36
    step = (w - pad - 30) / max(1, len(labels) - 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="{metric} by middle length">',
             f'<line x1="{pad}" y1="{h - pad}" x2="{w - 10}" y2="{h - pad}" stroke="#333"/>']
    parts.append(_y_axis(h, pad, 1.0, metric))
    for k, lab in enumerate(labels):
        parts.append(f'<text x="{pad + 10 + k * step:.1f}" y="{h - pad + 14}" font-size="10" text-anchor="middle">{lab}</text>')
    for i, r in enumerate(reports):
        color = _COLORS[i % len(_COLORS)]
        pts = [(pad + 10 + labels.index(b["bin"]) * step, h - pad - b["mean"] * (h - pad - 10), b) for b in by_length(r, metric)]
        if pts:
            parts.append(f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y, _ in pts)}" fill="none" stroke="{color}" stroke-width="2"/>')
        parts.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"><title>{html.escape(r.label)}: {b["mean"]:.4f} over {b["n"]} items</title></circle>' for x, y, b in pts)
    parts.append("</svg>")
    return "".join(parts)


def to_html(reports: list[RunReport]) -> str:
    """One self-contained page: tables, inline SVG plots, best/worst items with their diffs."""
    metrics = _metrics(reports)
    legend = "".join(f'<li><span style="color:{_COLORS[i % len(_COLORS)]}">■</span> {html.escape(r.label)}</li>' for i, r in enumerate(reports))
    rows = []
    for r in reports:
        s = r.summary
        cells = "".join(f"<td>{_fmt(s.mean.get(m))} [{_fmt(s.ci95.get(m, (None, None))[0])}, {_fmt(s.ci95.get(m, (None, None))[1])}]</td><td>{_fmt(s.total.get(m))}</td>" for m in metrics)
        rows.append(f"<tr><td>{html.escape(r.run_id)}</td><td>{html.escape(r.model)}</td><td>{html.escape(r.profile)}</td><td>{html.escape(r.backend)}</td><td>{s.n_items}</td><td>{s.n_files}</td>{cells}</tr>")
    head = "".join(f"<th>{m} mean [95%]</th><th>{m} total</th>" for m in metrics)
    plots = "".join(f"<figure>{_svg_bars(reports, m)}<figcaption>{m}: mean over files, 95% bootstrap interval</figcaption></figure>" for m in metrics)
    items = []
    for r in reports:
        ex = extremes(r)
        for kind in ("best", "worst"):
            items.append(f"<h3>{kind.capitalize()} items of {html.escape(r.run_id)}</h3>")
            for e in ex[kind]:
                items.append(f"<p><b>{html.escape(e['item_id'])}</b> <code>{html.escape(e['file'])}</code> {HEADLINE}={_fmt(e['values'].get(HEADLINE))}</p><pre>{html.escape(e['diff'])}</pre>")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fimreplay report</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 6px;font-size:13px}}figure{{display:inline-block;margin:0 1em 1em 0}}pre{{background:#f6f6f6;padding:6px;overflow:auto}}</style>
</head><body>
<h1>fimreplay report</h1>
{"".join(f'<p style="background:#fde2e1;padding:6px"><b>Incomplete:</b> {html.escape(n)}.</p>' for n in partial_notes(reports))}\
{"".join(f'<p style="background:#fde2e1;padding:6px"><b>Nothing to judge:</b> {html.escape(n)}.</p>' for n in empty_notes(reports))}
<p>Scored: {html.escape(scored_what(*scored(reports)))}.</p>
<ul>{legend}</ul>
<table><tr><th>run</th><th>model</th><th>profile</th><th>backend</th><th>items</th><th>files</th>{head}</tr>{"".join(rows)}</table>
<p>Training data: {html.escape("; ".join(f"{r.run_id}: {_overlap(r)}" for r in reports))}.</p>
{time_html(reports)}{_html_paired(reports)}
<h2>Plots</h2>
{plots}
<figure>{_svg_hist(reports)}<figcaption>{HEADLINE}: share of items per score bin</figcaption></figure>
<figure>{_svg_length(reports)}<figcaption>{HEADLINE} by middle length (characters)</figcaption></figure>
<h2>Best and worst items</h2>
{"".join(items)}
</body></html>
"""


def svg_file_diffs(per_file: dict[str, float], label: str) -> str:
    """Per-file differences as horizontal bars from a zero line (sorted, most negative first): one
    bar per file, its value in the tooltip."""
    items = sorted(per_file.items(), key=lambda kv: (kv[1], kv[0]))
    w, pad, bar = 460, 10, 12
    h = 2 * pad + 20 + bar * max(1, len(items))
    top = max([abs(v) for _, v in items] + [1e-9])
    mid = w / 2
    half = w / 2 - pad - 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="{html.escape(label)} per file">',
             f'<line x1="{mid}" y1="{pad}" x2="{mid}" y2="{h - pad - 14}" stroke="#333"/>',
             f'<text x="{mid}" y="{h - pad}" font-size="10" text-anchor="middle">0</text>',
             f'<text x="{pad + 40}" y="{h - pad}" font-size="10" text-anchor="middle">{-top:+.2g}</text>',
             f'<text x="{w - pad - 40}" y="{h - pad}" font-size="10" text-anchor="middle">{top:+.2g}</text>']
    for k, (file, value) in enumerate(items):
        length = abs(value) / top * half
        x = mid if value >= 0 else mid - length
        color = _COLORS[2] if value > 0 else _COLORS[3]
        parts.append(f'<rect x="{x:.1f}" y="{pad + k * bar}" width="{max(length, 0.5):.1f}" height="{bar - 2}" fill="{color}">'
                     f"<title>{html.escape(file)}: {value:+.4f}</title></rect>")
    parts.append("</svg>")
    return "".join(parts)


def _html_paired(reports: list[RunReport]) -> str:
    pair = pair_of(reports)
    if pair is None:
        return ""
    a, b = reports[0].run_id, reports[1].run_id
    return (f"<h2>Paired: {html.escape(b)} − {html.escape(a)}</h2><p>{html.escape(pair.summary(a, b))}.</p>"
            f"<figure>{svg_file_diffs(pair.per_file, f'{b} − {a}')}<figcaption>{HEADLINE} difference per file "
            f"({html.escape(b)} − {html.escape(a)})</figcaption></figure>")


RENDERERS = {"md": to_markdown, "csv": to_csv, "json": to_json, "html": to_html}
