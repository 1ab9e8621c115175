"""Scores of stored runs: the per-item scores kept in the store for each text and line window
(with a digest of the texts they are of), what a run's scores reuse, and a run's scores with
what they are of, assembled once for every report of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from typing import Any

import msgspec
import numpy as np

from replay.rejects import Reject
from replay.scoring.aggregate import AGGREGATE_RESAMPLES, ScoredItem, Summary, aggregate, summary_of
from replay.scoring.metrics import (
    TEXTS,
    Lines,
    Text,
    pair_metrics,
    parse_lines,
    windowed,
)
from replay.scoring.entries import SOURCE_COUNT, ReferenceKind, RunEntry, nothing_scored, run_entries, unscored_reasons
from replay.scoring.judged import add_judgements, value_digest
from replay.scoring.pool import collector_paused, score_many
from replay.store import StoreError
from replay.reading import RunConfig, ScoreKeeper, ScoreSet


def scores_key(text: Text, lines: Lines) -> str:
    """The name a run's pair scores of one text and line window are kept under in the store,
    e.g. `shown:lines=auto`: the scores of every text and window live side by side."""
    return f"{text}:lines={lines}"


def _window_of(key: str) -> Lines | None:
    """The line window of a key scores_key made (None: another kind of set, or a key this
    version does not read)."""
    text, _, window = key.partition(":lines=")
    if text not in TEXTS:
        return None
    try:
        return parse_lines(window)
    except ValueError:
        return None


def pair_digest(language: str, reference: str, completion: str) -> bytes:
    """A digest of what a pair's metrics are computed on (the language and both texts, cut to
    the window): a stored value is reused only for the same texts, so a completion replaced
    since (a resumed run) or a reference that changed (a capture accepted later) is scored anew."""
    return value_digest((language, reference, completion))


def scored_what(text: Text, lines: Lines) -> str:
    """One line saying what a score is of, for every report."""
    which = ("the text the editor showed (after its completion stage)" if text == "shown"
             else "the raw text the editor received (the engine's, cut at the stop words)")
    span = {"auto": "as many lines as the reference", "all": "all lines"}.get(str(lines), f"the first {lines} line(s)")
    return f"{which}; {span}"


@dataclass(frozen=True)
class RunScores:
    rows: list[ScoredItem]
    rejects: list[Reject]
    counts: dict[str, int]  # how shown and raw differ (run_entries)
    n_scored: int  # items scored now
    n_reused: int  # items whose scores the store held (for this text and window, or the same cut texts)
    n_done: int = 0  # completions without an error (Store.good_item_ids: what a resumed run would not redo)
    sources: dict[str, int] = field(default_factory=dict)  # captures scored against a reference of each source
    # The set vouched for whose values the rows' are, as they are (no compiles added): its name,
    # inputs digest and kept aggregates (run_aggregate); None otherwise.
    vouched: tuple[str, bytes, dict[str, Any]] | None = None


def run_scores(store: ScoreKeeper, run_id: str, text: Text = "shown", lines: Lines = "auto", workers: int | None = None,
               compiles: bool = False, reference: ReferenceKind = "typed", execute: bool = False) -> RunScores:
    """The per-item scores of a run for a text and line window.

    An item's scores are reused when the store holds them for the same texts (pair_digest):
    under this text and window, or under another that cuts the same two texts (a one-line
    reference scored with `--lines auto` and `--lines 1`; a completion the editor showed
    unchanged, as shown and as raw); only the rest are scored, and kept in the store under this
    text and window. So a score is stored once, under the first text and window that needed
    it, and found again by any other that cuts the same texts. A set that holds an entry for
    every item is vouched for with inputs_digest, and a later score of the same inputs under a
    window that cuts every pair the same (same_cuts) takes it whole, checking no item one by
    one. `compiles` judges, besides, each
    benchmark item's whole text in its file (replay.scoring.compiles; kept per text), `execute`
    runs each benchmark item's test with the text in place (replay.scoring.execute: pass@1);
    judgements the store holds for the same text are added to the rows whether asked or not. Read, reused,
    scored and stored with the collector paused (a second score is all reading: collections
    over the caches cost it a third). A replayed capture is scored against its `reference`
    (replay.scoring.entries.CaptureReferences: typed, else accepted; or accepted only)."""
    with collector_paused():
        return _run_scores(store, run_id, text, lines, workers, compiles, reference, execute)


def _run_scores(store: ScoreKeeper, run_id: str, text: Text, lines: Lines, workers: int | None, compiles: bool,
                reference: ReferenceKind, execute: bool) -> RunScores:
    completions = store.scored_completions(run_id)
    entries, rejects, counts = run_entries(store, run_id, completions, reference)
    sources = {key.removeprefix(SOURCE_COUNT): counts.pop(key) for key in [k for k in counts if k.startswith(SOURCE_COUNT)]}
    middles = [reference for *_, reference, _ in entries]
    pairs = [comp.scored_pair(reference, text) for *_, reference, comp in entries]
    entries = [(i, f, lang, reference, comp) for (i, f, lang, _, comp), (reference, _) in zip(entries, pairs)]
    scored = [completion for _, completion in pairs]
    sets = store.score_sets(run_id)
    key = scores_key(text, lines)
    here = sets.get(key) or ScoreSet()
    inputs = b""
    values: list[dict[str, float] | None] | None = None
    vouched: tuple[str, bytes, dict[str, Any]] | None = None
    for name, found in sorted(sets.items(), key=lambda kv: kv[0] != key):  # this text and window first
        other = _window_of(name)
        if found.inputs and other is not None:
            inputs = inputs or inputs_digest(entries, scored)
            if found.inputs == inputs and same_cuts(entries, scored, lines, other):
                values = _whole(found, entries)
                if values is not None:
                    vouched = (name, inputs, found.aggregates)
                    break
    todo: list[tuple[int, str, str, str]] = []
    if values is None:
        values, todo, digests, from_here = _item_by_item(entries, scored, lines, here, sets, key)
        if todo:
            for (n, *_), v in zip(todo, score_many([t[1:] for t in todo], workers)):  # type: ignore[misc]
                values[n] = v
        # Every item's entry is in this set now when none came from another set (from_here): the
        # set is vouched for as a whole.
        vouch = (inputs or inputs_digest(entries, scored)) if from_here else b""
        if todo:
            store.merge_scores(run_id, key, {entries[n][0]: (digests[n], values[n]) for n, *_ in todo},  # type: ignore[misc]
                               inputs=vouch, based_on=here)
        elif vouch and vouch != here.inputs:
            try:
                store.merge_scores(run_id, key, {}, inputs=vouch, based_on=here)
            except StoreError:
                vouch = b""  # only the vouch, kept for speed: a store that cannot take it now is checked item by item
        if vouch:
            vouched = (key, vouch, {})
    rows = [ScoredItem(item_id=i, file=f, values=v or {}, middle_len=len(middle), reference=ref, completion=c, language=lang)
            for (i, f, lang, ref, _), middle, c, v in zip(entries, middles, scored, values)]
    if add_judgements(store, run_id, rows, text, lines, sets, compiles, execute, workers):
        vouched = None
    return RunScores(rows, rejects, counts, n_scored=len(todo), n_reused=len(rows) - len(todo),
                     n_done=sum(comp.error is None for comp, _ in completions), vouched=vouched, sources=sources)


def run_aggregate(store: ScoreKeeper, run_id: str, scores: RunScores, seed: int = 0) -> Summary:
    """aggregate(scores.rows, seed) as a Summary: kept with the set vouched for whose values the
    rows hold, and taken from there while the set is unchanged (the same values, files and order
    make the same aggregate: a second score under another window that cuts every pair the same
    reads it instead of bootstrapping again; one kept that is not an aggregate is made again)."""
    if scores.vouched is None:
        return aggregate(scores.rows, seed=seed)
    name, inputs, kept = scores.vouched
    params = f"seed={seed};resamples={AGGREGATE_RESAMPLES}"
    found = kept.get(params)
    if found is not None:
        try:
            return summary_of(found)
        except ValueError:
            pass
    result = aggregate(scores.rows, seed=seed, n_boot=AGGREGATE_RESAMPLES)
    try:
        store.keep_aggregate(run_id, name, inputs, params, result.to_json())
    except StoreError:
        pass  # kept for speed only
    return result


def _item_by_item(entries: list[RunEntry], scored: list[str], lines: Lines, here: ScoreSet, sets: dict[str, ScoreSet],
                  key: str) -> tuple[list[dict[str, float] | None], list[tuple[int, str, str, str]], list[bytes], bool]:
    """Each item's stored values for its cut texts (pair_digest): from this text and window's
    set, else from another's; the items found in none (todo: index, language, cut texts); each
    item's digest; whether every item found was found in this set."""
    others = [found.entries for name, found in sets.items() if name != key and _window_of(name) is not None]
    todo: list[tuple[int, str, str, str]] = []
    digests: list[bytes] = []
    values: list[dict[str, float] | None] = []
    from_here = True
    for n, (item_id, _, language, reference, _) in enumerate(entries):
        cut = windowed(reference, scored[n], lines)
        digest = pair_digest(language, *cut)
        wanted = _metrics_of(language)
        found = _stored(here.entries, item_id, digest, wanted)
        if found is None:
            for other in others:
                found = _stored(other, item_id, digest, wanted)
                if found is not None:
                    from_here = False
                    break
            else:
                todo.append((n, language, *cut))
        digests.append(digest)
        values.append(found)
    return values, todo, digests, from_here


def _whole(found: ScoreSet, entries: list[RunEntry]) -> list[dict[str, float] | None] | None:
    """A vouched set's values of every entry (None if one is missing: a set written by hand;
    the items are then checked one by one). The values are the set's own dicts: each score
    decodes its sets anew and hands them to its rows."""
    stored = found.entries
    try:
        return [stored[item_id][1] for item_id, *_ in entries]
    except KeyError:
        return None


def inputs_digest(entries: list[RunEntry], scored: list[str]) -> bytes:
    """One digest of everything a run's scores of one text are computed from, and their
    aggregate: each item's id, file, language and reference, the scored texts (uncut), and the
    metrics each language gets."""
    languages = [language for _, _, language, _, _ in entries]
    return value_digest(([item_id for item_id, *_ in entries], [file for _, file, *_ in entries], languages,
                    [reference for _, _, _, reference, _ in entries], scored,
                    {language: _metrics_of(language) for language in sorted(set(languages))}))


def same_cuts(entries: list[RunEntry], scored: list[str], lines: Lines, other: Lines) -> bool:
    """Whether two line windows cut every (reference, scored text) pair to the same texts.

    first_lines keeps min(n, pieces) of a text's "\n"-separated pieces, and a different number
    of pieces is a different text: two windows cut a text the same exactly when those minimums
    are equal. Counted for all pairs at once."""
    if lines == other:
        return True
    references = [reference for _, _, _, reference, _ in entries]
    pieces_ref = np.array(list(map(str.count, references, repeat("\n"))), np.int64) + 1
    pieces_text = np.array(list(map(str.count, scored, repeat("\n"))), np.int64) + 1
    a, b = _window_sizes(references, pieces_ref, lines), _window_sizes(references, pieces_ref, other)
    return bool(np.array_equal(np.minimum(a, pieces_ref), np.minimum(b, pieces_ref))
                and np.array_equal(np.minimum(a, pieces_text), np.minimum(b, pieces_text)))


def _window_sizes(references: list[str], pieces: np.ndarray, lines: Lines) -> np.ndarray:
    """Each reference's window (metrics.window) as a number of lines; "all" as more lines than
    any text has."""
    if lines == "all":
        return np.full(len(references), np.iinfo(np.int64).max, np.int64)
    if lines == "auto":  # line_span: a final newline ends the last line, it does not open one
        return pieces - np.array(list(map(str.endswith, references, repeat("\n"))), np.int64)
    return np.full(len(references), int(lines), np.int64)


def _stored(found: dict[str, tuple[bytes, dict[str, float]]], item_id: str, digest: bytes,
            wanted: tuple[str, ...]) -> dict[str, float] | None:
    """The item's stored values if they were computed on the same texts and hold every wanted
    metric, else None (the set's own dict, as in _whole)."""
    entry = found.get(item_id)
    if entry is None or entry[0] != digest:
        return None
    stored = entry[1]
    for metric in wanted:
        if metric not in stored:
            return None
    return stored


@lru_cache(maxsize=None)
def _metrics_of(language: str) -> tuple[str, ...]:
    """The metrics a pair of this language gets (codebleu only where the language has it)."""
    return tuple(metric.name for metric in pair_metrics(language))


@dataclass(frozen=True)
class ScoredRun:
    """A stored run scored under one text and line window: what it is of (backend, model,
    editor profile), its per-item scores and their aggregate."""

    run_id: str
    backend: str | None
    model: str | None
    profile: str
    text: Text
    lines: Lines
    scores: RunScores
    summary: Summary
    reference: ReferenceKind = "typed"

    def result(self, items_total: int | msgspec.UnsetType = msgspec.UNSET) -> RunScore:
        """The run's score as `fimreplay score RUN` gives it (`items_total`: the items the run
        was started with, when counted)."""
        scores = self.scores
        reasons = unscored_reasons(scores.rejects)
        return RunScore(**msgspec.structs.asdict(self.summary), source=self.run_id, run=self.run_id, text=self.text,
                        lines=self.lines, scored=scored_what(self.text, self.lines), **scores.counts,
                        n_scored=scores.n_scored, n_reused=scores.n_reused, items_done=scores.n_done,
                        backend=self.backend, model=self.model, profile=self.profile, n_rejects=len(scores.rejects),
                        items_total=items_total, unscored=reasons, reference=self.reference,
                        reference_sources=scores.sources, nothing_scored=nothing_scored(self.summary.n_items, reasons))


class RunScore(Summary, frozen=True):
    """What `fimreplay score RUN --json` prints: the run's aggregate (Summary's fields first), what
    was scored, how shown and raw differ (run_entries' counts), how many items were scored now
    and reused, the completions without an error (`items_done`) of the items the run was started
    with (`items_total`, left out when not counted), what the run is of, the completions not
    scored (`n_rejects`) and the file they were kept in (left out when none was written), why
    they were not (`unscored`: each reason and its count), which reference a replayed capture
    was scored against (`reference`: typed or accepted) and how many captures got one of each
    source (`reference_sources`), and, when no item was scored, the sentence saying so
    (`nothing_scored`: the command then exits 1)."""

    source: str
    run: str
    text: Text
    lines: Lines
    scored: str
    n_errors: int
    n_stop_cut: int
    n_changed: int
    n_nothing_shown: int
    chars_removed: int
    n_no_stage: int
    n_scored: int
    n_reused: int
    items_done: int
    backend: str | None
    model: str | None
    profile: str
    n_rejects: int
    unscored: dict[str, int] = {}
    reference: str = "typed"
    reference_sources: dict[str, int] = {}
    nothing_scored: str | None = None
    items_total: int | msgspec.UnsetType = msgspec.UNSET
    rejects_file: str | msgspec.UnsetType = msgspec.UNSET


def scored_run(store: ScoreKeeper, run_id: str, text: Text = "shown", lines: Lines = "auto", seed: int = 0,
               workers: int | None = None, compiles: bool = False, reference: ReferenceKind = "typed",
               execute: bool = False) -> ScoredRun:
    """Score a stored run (run_scores: what the store holds is reused) and aggregate it, the
    aggregate too with the collector paused (run_scores); KeyError for a run the store does not
    hold. `compiles` adds the compiles metric (replay.scoring.compiles: a compiler per file, so
    asked for), `execute` pass@1 (replay.scoring.execute: the benchmark's tests run)."""
    run = store.run(run_id)
    if run is None:
        raise KeyError(run_id)
    with collector_paused():
        scores = run_scores(store, run_id, text, lines, workers, compiles, reference, execute)
        summary = run_aggregate(store, run_id, scores, seed)
    return ScoredRun(run_id, run.backend, run.model, run_profile(store, run_id, run.config), text, lines, scores, summary,
                     reference)


def run_profile(store: ScoreKeeper, run_id: str, config: RunConfig) -> str:
    """The editor profile of a run: from its config, else from the prompts it replayed
    (RenderedPrompt.profile, kept by the runner), joined with "+" if they differ."""
    if config.editor:
        return config.editor
    profiles = sorted({p.profile for p in store.run_prompts(run_id)})
    return "+".join(profiles) or "?"
