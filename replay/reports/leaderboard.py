"""A leaderboard: models ranked on the same items, each compared with the best by paired
differences (replay.reports.compare), as text, JSON or a self-contained HTML page.

A ranking by means alone says nothing about noise: two models 0.01 apart on 40 items may swap
places on the next 40. Each model below the best carries its paired difference to the best, its
95% interval and the verdict, so a reader sees which places the items can actually tell apart.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from replay.cutoffs import Overlap
from replay.reports.compare import Paired
from replay.reports.report import svg_file_diffs
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
    vs_best: Paired | None
    overlap: Overlap
    wall_s: float

    def to_json(self) -> dict[str, Any]:
        return {"rank": self.rank, "model": self.model, "name": self.name, "run": self.run_id, "mean": self.mean,
                "ci95": list(self.ci95), "n_items": self.n_items, "n_files": self.n_files,
                "vs_best": self.vs_best.to_json() if self.vs_best else None,
                "training_overlap": self.overlap.to_json(), "wall_s": self.wall_s}


@dataclass(frozen=True)
class Leaderboard:
    items: str
    n_items: int  # items in the file
    editor: str
    metric: str
    lines: Lines
    standings: list[Standing]
    wall_s: float

    @property
    def scored(self) -> str:
        return scored_what("shown", self.lines)

    def to_json(self) -> dict[str, Any]:
        return {"items": self.items, "n_items": self.n_items, "editor": self.editor, "metric": self.metric,
                "text": "shown", "lines": self.lines, "scored": self.scored, "wall_s": self.wall_s,
                "standings": [s.to_json() for s in self.standings]}


def _vs(p: Paired | None) -> tuple[str, str, str]:
    """(difference [interval], wins/ties/losses, verdict) of a standing against the best."""
    if p is None:
        return "best", "", ""
    verdict = {"A better": "best is better", "B better": "better than best"}.get(p.verdict, "within noise")
    return f"{p.mean_diff:+.4f} [{p.ci95[0]:+.4f}, {p.ci95[1]:+.4f}]", f"{p.wins}/{p.ties}/{p.losses}", verdict


def to_text(board: Leaderboard) -> str:
    head = ["rank", "model", "run", f"{board.metric} mean [95%]", "vs best (paired) [95%]", "W/T/L", "verdict"]
    rows = [[str(s.rank), s.model, s.run_id, f"{s.mean:.4f} [{s.ci95[0]:.4f}, {s.ci95[1]:.4f}]", *_vs(s.vs_best)]
            for s in board.standings]
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
    out.append(f"wall time {board.wall_s:.1f} s")
    return "\n".join(out) + "\n"


def to_json(board: Leaderboard) -> str:
    return json.dumps(board.to_json(), ensure_ascii=False, indent=1)


def to_html(board: Leaderboard) -> str:
    """The ranking as a table, and per model below the best its per-file differences to the best."""
    rows = "".join(f"<tr><td>{s.rank}</td><td>{html.escape(s.model)}</td><td>{html.escape(s.name)}</td><td>{html.escape(s.run_id)}</td>"
                   f"<td>{s.mean:.4f} [{s.ci95[0]:.4f}, {s.ci95[1]:.4f}]</td>"
                   + "".join(f"<td>{html.escape(c)}</td>" for c in _vs(s.vs_best))
                   + f"<td>{html.escape(s.overlap.message)}</td></tr>" for s in board.standings)
    best = board.standings[0].model if board.standings else ""
    plots = "".join(f"<figure>{svg_file_diffs(s.vs_best.per_file, f'{s.model} − {best}')}<figcaption>{html.escape(s.model)} − "
                    f"{html.escape(best)}: {board.metric} difference per file</figcaption></figure>"
                    for s in board.standings if s.vs_best is not None)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>fimreplay leaderboard</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:1200px}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 6px;font-size:13px}}figure{{display:inline-block;margin:0 1em 1em 0}}</style>
</head><body>
<h1>fimreplay leaderboard</h1>
<p>{board.n_items} items from <code>{html.escape(board.items)}</code>, editor {html.escape(board.editor)}. Scored: {html.escape(board.scored)}. Wall time {board.wall_s:.1f} s.</p>
<table><tr><th>rank</th><th>model</th><th>name</th><th>run</th><th>{board.metric} mean [95%]</th><th>vs best (paired) [95%]</th><th>W/T/L</th><th>verdict</th><th>training data</th></tr>{rows}</table>
<h2>Per-file differences to the best</h2>
{plots}
</body></html>
"""


RENDERERS = {"text": to_text, "json": to_json, "html": to_html}
