"""The plain-text table `fimreplay score` prints of one run or file of pairs."""

from __future__ import annotations

from replay.scoring import METRIC_NAMES, Summary


def score_table(result: Summary, n_rejects: int = 0, nothing: str | None = None, unscored: dict[str, int] | None = None,
                sources: dict[str, int] | None = None) -> str:
    """A plain-text table of a `fimreplay score` result: per-file means, then totals and means,
    and how many completions were not scored (`n_rejects`); over no scored item, no table but
    the sentence saying why (`nothing`). Below the table: how many replayed captures were
    scored against a reference of each source, and why the items not scored were not."""
    if not result.n_items:
        return nothing or "nothing scored"
    metrics = [m for m in METRIC_NAMES if m in result.mean]
    width = max([len(f) for f in result.per_file] + [8])
    lines = [f"{'file':<{width}}  " + "  ".join(f"{m:>8}" for m in metrics)]
    for f, vals in result.per_file.items():
        lines.append(f"{f:<{width}}  " + "  ".join(f"{vals.get(m, float('nan')):>8.4f}" for m in metrics))
    lines.append(f"{'total':<{width}}  " + "  ".join(f"{result.total[m]:>8.4f}" for m in metrics))
    lines.append(f"{'mean':<{width}}  " + "  ".join(f"{result.mean[m]:>8.4f}" for m in metrics))
    lines.append(f"{'95% low':<{width}}  " + "  ".join(f"{result.ci95[m][0]:>8.4f}" for m in metrics))
    lines.append(f"{'95% high':<{width}}  " + "  ".join(f"{result.ci95[m][1]:>8.4f}" for m in metrics))
    lines.append(f"{result.n_items} items, {result.n_files} files" + (f", {n_rejects} rejected" if n_rejects else ""))
    if sources:
        lines.append("captures scored against: " + ", ".join(f"{source} {n}" for source, n in sources.items()))
    lines += [f"not scored: {n}: {reason}" for reason, n in (unscored or {}).items()]
    return "\n".join(lines)
