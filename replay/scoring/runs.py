"""Scores of stored runs and of files of pairs: the pairs a run holds, the per-item scores kept
in the store under a key naming the text and line window, and what a run's scores reuse."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import msgspec

from replay.records import FimItem
from replay.rejects import Reject
from replay.scoring.aggregate import ScoredItem, aggregate
from replay.scoring.metrics import METRIC_NAMES, PAIR_METRICS, TEXTS, Lines, Text, codebleu_supports, parse_lines, window, windowed
from replay.scoring.pool import collector_paused, score_many


def metric_key(metric: str, text: Text = "shown", lines: Lines = "auto") -> str:
    """The name a score is stored under: the metric, which text was scored and the line window,
    e.g. `indel:shown:lines=auto`, so that scores of every text and window live side by side."""
    return f"{metric}:{text}:lines={lines}"


@lru_cache(maxsize=256)
def parse_metric_key(key: str) -> tuple[str, Text, Lines] | None:
    """(metric, text, lines) of a key metric_key made, or None for another kind of key."""
    metric, _, rest = key.partition(":")
    text, _, window = rest.partition(":lines=")
    if metric not in METRIC_NAMES or text not in TEXTS or not window:
        return None
    try:
        return metric, text, parse_lines(window)  # type: ignore[return-value]
    except ValueError:
        return None


def store_scores(store: Any, run_id: str, rows: Iterable[ScoredItem], text: Text, lines: Lines) -> None:
    """Keep a run's per-item scores under keys that say which text and window they are of."""
    store.add_scores(run_id, [(r.item_id, r.file, metric_key(m, text, lines), v) for r in rows for m, v in r.values.items()])


def scored_what(text: Text, lines: Lines) -> str:
    """One line saying what a score is of, for every report."""
    which = ("the text the editor showed (after its completion stage)" if text == "shown"
             else "the raw text the editor received (the engine's, cut at the stop words)")
    span = {"auto": "as many lines as the reference", "all": "all lines"}.get(str(lines), f"the first {lines} line(s)")
    return f"{which}; {span}"


RunEntry = tuple[str, str, str, str, Any]  # item id, file, language, reference, Completion


def run_pairs(store: Any, run_id: str, text: Text = "shown") -> tuple[list[tuple[str, str, str, str, str]], list[Reject], dict[str, int]]:
    """A stored run's completions paired with their items' middles (or a capture's accepted text).

    `text` picks what is scored (Completion.scored_text): "shown", what the editor showed after
    its completion stage (a completion shown as nothing scores as ""), or "raw", what it
    received. A completion that failed (error) is scored as an empty completion, counted in
    `n_errors`. `n_stop_cut` counts texts cut at a stop word. The counts say how shown and raw
    differ: `n_changed` (the stage changed the
    text), `n_nothing_shown`, `chars_removed` (raw minus shown characters, summed), and
    `n_no_stage` (completions without a stage, scored on their raw text).
    """
    entries, rejects, counts = run_entries(store, run_id)
    return [(i, f, lang, ref, comp.scored_text(text)) for i, f, lang, ref, comp in entries], rejects, counts


def run_entries(store: Any, run_id: str,
                completions: list[Any] | None = None) -> tuple[list[RunEntry], list[Reject], dict[str, int]]:
    """A stored run's completions (`completions`, when the caller read them already) with their
    references (run_pairs, before a text is picked)."""
    items = item_references(store)
    entries: list[RunEntry] = []
    rejects = []
    counts = {"n_errors": 0, "n_stop_cut": 0, "n_changed": 0, "n_nothing_shown": 0, "chars_removed": 0, "n_no_stage": 0}
    for comp in store.completions(run_id) if completions is None else completions:
        ref = items.get(comp.item_id)
        if ref is None and comp.item_id.startswith(CAPTURE_PREFIX):
            ref, reason = capture_reference(store, comp.item_id)
        else:
            reason = "no such item in the store"
        if ref is None:
            rejects.append(Reject(f"{run_id}:{comp.item_id}", reason))
            continue
        entries.append((comp.item_id, *ref, comp))
        if comp.error:
            counts["n_errors"] += 1
            continue
        counts["n_stop_cut"] += int(comp.text != comp.raw_text)
        if not comp.stage:
            counts["n_no_stage"] += 1
        else:
            shown = comp.shown_text
            counts["n_nothing_shown"] += int(shown is None)
            counts["n_changed"] += int(shown != comp.text)
            counts["chars_removed"] += len(comp.text) - len(shown or "")
    return entries, rejects, counts


# What scoring reads of a benchmark item: FimItem's fields (and defaults) it needs, so that
# the prefix and suffix of every item (most of its record) are not made into strings.
_ItemReference = msgspec.defstruct("_ItemReference", [(f.name, f.type, f.default) for f in msgspec.structs.fields(FimItem)
                                                      if f.name in ("id", "file", "language", "middle")])


def item_references(store: Any) -> dict[str, tuple[str, str, str]]:
    """Item id -> (file, language, middle) of every benchmark item in the store (the store's
    FimItem records, read with only those fields)."""
    decode = msgspec.json.Decoder(_ItemReference).decode
    refs = (decode(row[0]) for row in store.query("SELECT record FROM items ORDER BY rowid"))
    return {r.id: (r.file, r.language, r.middle) for r in refs}  # type: ignore[attr-defined]


@dataclass(frozen=True)
class RunScores:
    rows: list[ScoredItem]
    rejects: list[Reject]
    counts: dict[str, int]  # how shown and raw differ (run_pairs)
    n_scored: int  # items scored now
    n_reused: int  # items whose scores the store held (for this text and window, or the same cut texts)
    n_done: int = 0  # completions without an error (Store.good_item_ids: what a resumed run would not redo)


def run_scores(store: Any, run_id: str, text: Text = "shown", lines: Lines = "auto", workers: int | None = None) -> RunScores:
    """The per-item scores of a run for a text and line window.

    An item's scores are reused when the store holds them for this text and window, or for
    another text or window that cuts the same two texts (a one-line reference scored with
    `--lines auto` and `--lines 1`; a completion the editor showed unchanged, as shown and as
    raw); only the rest are scored, and kept in the store under this text and window. So a
    score is stored once, under the first text and window that needed it, and found again by
    any other that cuts the same texts. The scores of a key belong to the run's completion of
    the item (one per run and item). Read, reused, scored and stored with the collector paused
    (a second score is all reading: collections over the caches cost it a third)."""
    with collector_paused():
        return _run_scores(store, run_id, text, lines, workers)


def _run_scores(store: Any, run_id: str, text: Text, lines: Lines, workers: int | None) -> RunScores:
    completions = store.completions(run_id)
    entries, rejects, counts = run_entries(store, run_id, completions)
    stored = stored_scores(store, run_id)
    here = stored.pop((text, lines), {})
    scored = [comp.scored_text(text) for *_, comp in entries]
    todo: list[tuple[int, str, str, str]] = []
    values: list[dict[str, float] | None] = []
    for n, (item_id, _, language, reference, comp) in enumerate(entries):
        wanted = _metrics_of(language)
        found = _complete(here, item_id, wanted)
        if found is None:
            found = _same_cut(stored, item_id, wanted, reference, comp, scored[n], text, lines)
            if found is None:
                todo.append((n, language, *windowed(reference, scored[n], lines)))
        values.append(found)
    if todo:
        for (n, *_), v in zip(todo, score_many([t[1:] for t in todo], workers)):  # type: ignore[misc]
            values[n] = v
    rows = [ScoredItem(item_id=i, file=f, values=v or {}, middle_len=len(ref), reference=ref, completion=c)
            for (i, f, _, ref, _), c, v in zip(entries, scored, values)]
    store_scores(store, run_id, [rows[n] for n, *_ in todo], text, lines)
    return RunScores(rows, rejects, counts, n_scored=len(todo), n_reused=len(rows) - len(todo),
                     n_done=sum(c.error is None for c in completions))


Stored = dict[tuple[Text, Lines], dict[str, dict[str, float]]]  # (text, window) -> metric -> item id -> value


def stored_scores(store: Any, run_id: str) -> Stored:
    """The scores the store holds for a run: (text, window) -> metric -> item id -> value (read
    in the table's order, no sort, the file column left out; grouped by the stored key first,
    so that each row costs one insertion)."""
    by_key: dict[str, dict[str, float]] = {}
    for item_id, key, value in store.query("SELECT item_id, metric, value FROM scores WHERE run_id = ?", (run_id,)):
        values = by_key.get(key)
        if values is None:
            values = by_key[key] = {}
        values[item_id] = value
    out: Stored = {}
    for key, values in by_key.items():
        parsed = parse_metric_key(key)
        if parsed is not None:
            metric, text, lines = parsed
            out.setdefault((text, lines), {})[metric] = values
    return out


@lru_cache(maxsize=None)
def _metrics_of(language: str) -> tuple[str, ...]:
    """The metrics a pair of this language gets (codebleu only where the language has it)."""
    return tuple(m for m in PAIR_METRICS if m != "codebleu" or codebleu_supports(language))


def _complete(by_metric: dict[str, dict[str, float]], item_id: str, wanted: tuple[str, ...]) -> dict[str, float] | None:
    """The item's stored values (the wanted metrics, then any other stored for it) if they hold
    every wanted metric, else None."""
    if not by_metric:
        return None
    try:
        values = {m: by_metric[m][item_id] for m in wanted}
    except KeyError:
        return None
    if len(by_metric) > len(values):
        values.update((m, v[item_id]) for m, v in by_metric.items() if m not in values and item_id in v)
    return values


def _same_cut(stored: Stored, item_id: str, wanted: tuple[str, ...],
              reference: str, comp: Any, scored: str, text: Text, lines: Lines) -> dict[str, float] | None:
    """Stored values of another text or window that cuts the same texts of this item (`scored`:
    its text `text`), or None. The same text under a window of as many lines cuts the same
    texts without cutting them."""
    n_lines, cut = window(reference, lines), None
    for (other_text, other_lines), by_metric in stored.items():
        other = _complete(by_metric, item_id, wanted)
        if other is None:
            continue
        other_scored = scored if other_text == text else comp.scored_text(other_text)
        if other_scored == scored and window(reference, other_lines) == n_lines:
            return other
        cut = cut or windowed(reference, scored, lines)
        if windowed(reference, other_scored, other_lines) == cut:
            return other
    return None


CAPTURE_PREFIX = "capture-"  # item ids of replayed captures (replay.run_inputs.capture_input)


def capture_reference(store: Any, item_id: str) -> tuple[tuple[str, str, str] | None, str]:
    """(file, language, reference) of a replayed capture, or None and why not.

    A capture has a reference only when the user accepted the editor's completion: the accepted
    text is what the user wanted at that cursor. A dismissed or merely viewed completion says
    nothing about the right answer, so such captures are not scored (counted as rejects)."""
    rec = store.capture(int(item_id[len(CAPTURE_PREFIX):]))
    if rec is None:
        return None, "no such capture in the store"
    reference = accepted_text(rec)
    if reference is None:
        return None, f"capture outcome {rec.outcome}: no accepted text to score against"
    return (rec.filepath or rec.source.file, rec.language or "", reference), ""


def accepted_text(rec: Any) -> str | None:
    """The text the user accepted of a capture's completion (a line-wise accept: its first line,
    the part surely taken), or None when nothing was accepted."""
    if rec.outcome not in ("accepted", "accepted_line") or not rec.completion:
        return None
    return rec.completion.split("\n", 1)[0] if rec.outcome == "accepted_line" else rec.completion


def score_run(store: Any, run_id: str, lines: Lines = "auto", seed: int = 0, text: Text = "shown",
              workers: int | None = None, compiles: bool = False) -> tuple[dict[str, Any], list[Reject]]:
    """Score a stored run (run_scores: what the store holds is reused), return the aggregate
    (what `fimreplay score RUN --json` prints) and the completions that could not be scored.
    `compiles` adds the compiles metric (replay.compiles: a compiler per file, so asked for)."""
    scores = run_scores(store, run_id, text, lines, workers)
    if compiles:
        from replay.compiles import add_compiles

        add_compiles(store, scores.rows)
        store_scores(store, run_id, [r for r in scores.rows if "compiles" in r.values], text, lines)
    result = aggregate(scores.rows, seed=seed)
    run = store.run(run_id)
    result.update(source=run_id, run=run_id, text=text, lines=lines, scored=scored_what(text, lines),
                  **scores.counts, n_scored=scores.n_scored, n_reused=scores.n_reused, items_done=scores.n_done,
                  backend=run.backend, model=run.model, profile=run_profile(store, run_id, run.config),
                  n_rejects=len(scores.rejects))
    return result, scores.rejects


def run_profile(store: Any, run_id: str, config: dict[str, Any]) -> str:
    """The editor profile of a run: from its config, else from the prompts it replayed
    (RenderedPrompt.profile, kept by the runner), joined with "+" if they differ."""
    for key in ("profile", "editor_profile", "editor"):
        if config.get(key):
            return str(config[key])
    profiles = sorted({p.profile for p in store.run_prompts(run_id)})
    return "+".join(profiles) or "?"


def jsonl_pairs(path: Any) -> tuple[list[tuple[str, str, str, str, str]], list[Reject], dict[str, int]]:
    """Pairs from a JSONL file whose lines hold `file`, `reference`, `completion` (optional:
    `id`, `language` (default from the file's extension), `stop` (a list: the completion is cut
    at the earliest one before scoring)). Bad lines are rejected with file:line and reason."""
    from pathlib import Path

    from replay.backends.base import apply_stop
    from replay.corpus.evalgen import language_of
    from replay.jsonl import json_lines, loads

    path = Path(path)
    pairs, rejects = [], []
    counts = {"n_stop_cut": 0}
    for no, line in json_lines(path.read_text(encoding="utf-8")):
        try:
            obj = loads(line)
        except ValueError as exc:
            rejects.append(Reject.at(path, no, f"not JSON: {exc}", line))
            continue
        if not isinstance(obj, dict):
            rejects.append(Reject.at(path, no, "not a JSON object", line))
            continue
        missing = [k for k in ("file", "reference", "completion") if not isinstance(obj.get(k), str)]
        if missing:
            rejects.append(Reject.at(path, no, f"missing or not a string: {', '.join(missing)}", line))
            continue
        stop = obj.get("stop") or []
        if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
            rejects.append(Reject.at(path, no, "stop is not a list of strings", line))
            continue
        completion = apply_stop(obj["completion"], stop)
        counts["n_stop_cut"] += int(completion != obj["completion"])
        language = obj.get("language") or language_of(obj["file"])
        pairs.append((str(obj.get("id", no)), obj["file"], language, obj["reference"], completion))
    return pairs, rejects, counts

