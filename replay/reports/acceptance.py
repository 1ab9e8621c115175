"""Acceptance as a signal: how often what an editor showed was accepted and kept, by editor,
release, language and model, and how well each score of the shown completion against what the
user typed predicts that it was accepted.

Acceptance is not the reference (an accepted item is where the old model was already right),
but where logs hold outcomes (Tabby's view/select/dismiss events, Continue's `accepted`) it
tells a user which score to trust for their own logs: a metric whose score of the shown text
against the typed reference separates accepted from rejected items measures what users want.
The separation is the AUC (the probability that an accepted item scores above a rejected one,
ties counted half: the Mann-Whitney statistic), with a bootstrap 95% interval over captures
(numpy's PCG64 seeded, as every interval of fimreplay). Retention is of accepted items whose
document was read again once settled: the typed reference still begins with the accepted text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

GROUPS = ("editor", "release", "language", "model")
PREDICTORS = ("indel", "exact", "bleu", "codebleu", "shown_chars")


@dataclass(frozen=True)
class Shown:
    """One capture whose log says whether its completion was accepted: what it is of, the
    outcome, the shown and accepted lengths, whether the accepted item was kept (None: the
    document was not read again), and the scores of the shown text against the typed
    reference (empty without one)."""

    editor: str
    release: str
    language: str
    model: str
    accepted: bool
    shown_chars: int
    accepted_chars: int = 0
    retained: bool | None = None
    values: dict[str, float] = field(default_factory=dict)


def auc(scores: np.ndarray, accepted: np.ndarray) -> float:
    """The probability that an accepted item scores above a rejected one (ties: one half)."""
    pos, neg = scores[accepted], scores[~accepted]
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def auc_interval(scores: np.ndarray, accepted: np.ndarray, seed: int = 0, n_boot: int = 1000) -> tuple[float, float] | None:
    """The bootstrap 95% interval of the AUC, captures resampled (a resample with one class only
    is skipped); None when either class is empty."""
    if accepted.all() or not accepted.any():
        return None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_boot):
        pick = rng.integers(0, len(scores), len(scores))
        if accepted[pick].all() or not accepted[pick].any():
            continue
        values.append(auc(scores[pick], accepted[pick]))
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def predictors(shown: Sequence[Shown], seed: int = 0) -> list[dict[str, Any]]:
    """Each metric's AUC predicting acceptance, over the captures that have its value (the
    shown length over every capture), with its interval and the counts it is of."""
    out = []
    for name in PREDICTORS:
        rows = [(s.shown_chars if name == "shown_chars" else s.values[name], s.accepted) for s in shown
                if name == "shown_chars" or name in s.values]
        scores = np.array([v for v, _ in rows], float)
        labels = np.array([a for _, a in rows], bool)
        n_acc = int(labels.sum())
        both = 0 < n_acc < len(rows)
        out.append({"metric": name, "n": len(rows), "n_accepted": n_acc, "auc": auc(scores, labels) if both else None,
                    "ci95": auc_interval(scores, labels, seed) if both else None})
    return out


def by_group(shown: Sequence[Shown], key: str) -> list[dict[str, Any]]:
    """Acceptance and retention per value of `key` (one of GROUPS)."""
    groups: dict[str, list[Shown]] = {}
    for s in shown:
        groups.setdefault(getattr(s, key) or "?", []).append(s)
    rows = []
    for name, items in sorted(groups.items()):
        accepted = [s for s in items if s.accepted]
        known = [s for s in accepted if s.retained is not None]
        kept = [s for s in known if s.retained]
        rows.append({key: name, "shown": len(items), "accepted": len(accepted), "acceptance": len(accepted) / len(items),
                     "retention_known": len(known), "retained": len(kept),
                     "retention": len(kept) / len(known) if known else None,
                     "retained_chars": sum(s.accepted_chars for s in kept),
                     "accepted_chars": sum(s.accepted_chars for s in known)})
    return rows


def acceptance(shown: Sequence[Shown], seed: int = 0) -> dict[str, Any]:
    """The whole report: the counts, each group's table and the predictors' AUCs."""
    return {"n_shown": len(shown), "n_accepted": sum(s.accepted for s in shown),
            "n_with_typed_reference": sum(bool(s.values) for s in shown),
            "by": {key: by_group(shown, key) for key in GROUPS}, "predictors": predictors(shown, seed)}


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.1f}%"


def to_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown tables (every separator as wide as its header)."""
    out = ["# Acceptance", "", f"{report['n_shown']} completions shown with a logged outcome, {report['n_accepted']} accepted;"
           f" {report['n_with_typed_reference']} with a typed reference (the scores below are of the shown text against it).", ""]
    for key in GROUPS:
        head = [key, "shown", "accepted", "acceptance", "retained / known", "retention", "retained chars"]
        out += [f"## By {key}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for r in report["by"][key]:
            out.append(f"| {r[key]} | {r['shown']} | {r['accepted']} | {_pct(r['acceptance'])} | {r['retained']} / "
                       f"{r['retention_known']} | {_pct(r['retention'])} | {r['retained_chars']} / {r['accepted_chars']} |")
        out.append("")
    head = ["metric", "captures", "accepted", "AUC", "95% interval"]
    out += ["## Which score predicts acceptance", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for p in report["predictors"]:
        ci, value = p["ci95"], p["auc"]
        out.append(f"| {p['metric']} | {p['n']} | {p['n_accepted']} | {'' if value is None else f'{value:.3f}'} | "
                   f"{'' if ci is None else f'[{ci[0]:.3f}, {ci[1]:.3f}]'} |")
    return "\n".join(out) + "\n"
