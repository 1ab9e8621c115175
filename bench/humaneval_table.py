"""The table of bench.humaneval_published: each profile's runs read from the store and scored two
ways, with 95% intervals.

- the authors' way (replay.benchmarks.published): EM of the kept line stripped, and pass@1 of
  that line run in place of the middle. The standard profile's text is what the model returned
  (cut at the template's stop words: the end of text); an editor's is what it showed.
- as shown (the project's `score --execute`): the shown text cut to the middle's one line, EM
  unstripped, pass@1 of that line run in place.

Means are over items (as the harness averages); the intervals resample HumanEval's problems
(the items of one problem share their code), 2,000 times, seeded. The editor effect is each
profile's pass@1 as shown minus the standard profile's pass@1 by the authors' line, item by item.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from replay.benchmarks.published import exact_match, executed_middle
from replay.records import Completion, FimItem
from replay.scoring.execute import execute_many, executed_text, program
from replay.scoring.metrics import exact, windowed
from replay.store import open_store

EDITORS = ("standard", "continue", "tabby", "copilot")
LONG = "standard64"  # the standard profile's second pass: the items its first budget left unsettled
RESAMPLES = 2000


def completions(store, runs: Sequence[str]) -> dict[str, Completion]:
    return {c.item_id: c for run in runs for c in store.completions(run)}


def interval(values: Sequence[float], groups: Sequence[str], seed: int) -> tuple[float, float]:
    """95% bootstrap interval of the mean of `values`, resampling whole groups."""
    by: dict[str, list[float]] = {}
    for v, g in zip(values, groups):
        by.setdefault(g, []).append(v)
    sums = np.array([sum(v) for v in by.values()])
    counts = np.array([len(v) for v in by.values()])
    picks = np.random.default_rng(seed).integers(0, len(sums), size=(RESAMPLES, len(sums)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def profile_scores(items: Sequence[FimItem], got: Mapping[str, Completion]) -> dict[str, list[float]]:
    """Per item: authors' EM and pass@1, EM and pass@1 as shown, shown nothing."""
    texts = [got[it.id].scored_pair(it.middle, "shown") for it in items]
    authors = [program(it.language, it.prefix, executed_middle(text), it.suffix, it.test, it.entry_point)
               for it, (_, text) in zip(items, texts)]
    shown = [program(it.language, it.prefix, executed_text(it.middle, text, "auto"), it.suffix, it.test, it.entry_point)
             for it, (_, text) in zip(items, texts)]
    outcomes = execute_many([("python", p) for p in authors + shown])
    n = len(items)
    return {
        "em_authors": [float(exact_match(text, it.middle)) for it, (_, text) in zip(items, texts)],
        "pass_authors": [float(o.passed) for o in outcomes[:n]],
        "em_shown": [exact(*windowed(ref, text, "auto")) for ref, text in texts],
        "pass_shown": [float(o.passed) for o in outcomes[n:]],
        "nothing": [float(got[it.id].shown_text is None) for it in items],
    }


def cell(values: Sequence[float], groups: Sequence[str], seed: int, signed: bool = False) -> str:
    low, high = interval(values, groups, seed)
    form = "+.3f" if signed else ".3f"
    return f"{np.mean(values):{form}} [{low:{form}}, {high:{form}}]"


def table(runs: Mapping[str, Sequence[str]], seed: int = 0, editors: Sequence[str] = EDITORS) -> str:
    """The Markdown table of the profiles' runs (`editors`, and LONG: the standard profile's
    second pass, whose completions replace the first pass's), over the items every profile has."""
    store = open_store()
    try:
        got = {e: completions(store, runs.get(e, ())) for e in editors}
        got["standard"].update(completions(store, runs.get(LONG, ())))
        common = sorted(set.intersection(*(set(g) for g in got.values())))
        items = sorted(store.items(common), key=lambda it: it.id)
    finally:
        store.close()
    groups = [it.file for it in items]
    out = [f"{len(items)} items of {len(set(groups))} problems\n",
           "| profile | EM, authors' rule | pass@1, authors' line | EM as shown | pass@1 as shown | shown nothing"
           " | pass@1 as shown − standard's, paired |",
           "|---|---|---|---|---|---|---|"]
    scores = {editor: profile_scores(items, got[editor]) for editor in editors}
    base = scores["standard"]["pass_authors"]
    for editor, s in scores.items():
        effect = [a - b for a, b in zip(s["pass_shown"], base)]
        out.append(f"| {editor} | " + " | ".join(cell(s[k], groups, seed) for k in
                                                ("em_authors", "pass_authors", "em_shown", "pass_shown"))
                   + f" | {int(sum(s['nothing']))} | {cell(effect, groups, seed, signed=True)} |")
    return "\n".join(out)
