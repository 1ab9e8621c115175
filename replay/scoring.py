"""Metrics for one completion against its reference, and their aggregation per file and run.

Every metric has rapidfuzz's scorer signature, `metric(reference, completion, *, processor=None)
-> float` in 0..1, so that any of them can be handed to rapidfuzz.process functions or used
alone. `processor` is applied to both strings first (as rapidfuzz does).

- indel: rapidfuzz.distance.Indel.normalized_similarity, 1 - (insertions + deletions) / (len
  a + len b): the seed's headline (trailofbits/CompChomper README).
- exact: 1.0 when the strings are equal.
- bleu: sacrebleu 2.6 sentence BLEU with its defaults for sentence scores: tokenizer "13a",
  smoothing "exp", effective order; divided by 100.
- codebleu: CodeBLEU with equal weights; the `codebleu` package for its languages, and
  replay.codebleu_engine (same numbers) for Solidity over tree-sitter-solidity.

Aggregation follows the seed: the mean per file, and the per-file means summed into a total;
added here: the mean over files (the total normalised by the number of files) with a seeded
bootstrap 95% interval over files.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np
from rapidfuzz.distance import Indel

from replay.rejects import Reject

Processor = Callable[[str], str] | None
METRIC_NAMES = ("indel", "compiles", "exact", "bleu", "codebleu")  # compiles: replay.compiles, opt-in


def indel(reference: str, completion: str, *, processor: Processor = None) -> float:
    return Indel.normalized_similarity(reference, completion, processor=processor)


def exact(reference: str, completion: str, *, processor: Processor = None) -> float:
    if processor is not None:
        reference, completion = processor(reference), processor(completion)
    return 1.0 if reference == completion else 0.0


@lru_cache(maxsize=1)
def _bleu() -> Any:
    from sacrebleu.metrics import BLEU

    return BLEU(tokenize="13a", smooth_method="exp", effective_order=True)


def bleu(reference: str, completion: str, *, processor: Processor = None) -> float:
    if processor is not None:
        reference, completion = processor(reference), processor(completion)
    return _bleu().sentence_score(completion, [reference]).score / 100.0


def codebleu(reference: str, completion: str, *, processor: Processor = None, language: str = "solidity") -> float:
    """CodeBLEU of one pair. For a pair without any data flow in the reference the data-flow
    part counts as 1, as in the `codebleu` package (see replay.codebleu_engine)."""
    if processor is not None:
        reference, completion = processor(reference), processor(completion)
    if language == "solidity":
        from replay.codebleu_engine import calc_codebleu
    else:
        from codebleu import calc_codebleu  # type: ignore[no-redef]

        _quiet_codebleu()
    return float(calc_codebleu([reference], [completion], language)["codebleu"])


class _NoDataflowWarning(logging.Filter):
    """The `codebleu` package logs a warning on the root logger for every pair whose reference
    has no data flow (codebleu/dataflow_match.py); scored one pair at a time that is most
    one-line middles. Only that message is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "no reference data-flows" not in str(record.msg)


@lru_cache(maxsize=1)
def _quiet_codebleu() -> None:
    logging.getLogger().addFilter(_NoDataflowWarning())


@lru_cache(maxsize=None)
def codebleu_supports(language: str) -> bool:
    """Solidity (ours), or a language of the `codebleu` package whose tree-sitter grammar
    package (`tree_sitter_<language>`, as codebleu/utils.py imports it) is installed."""
    import importlib.util

    from codebleu.utils import AVAILABLE_LANGS

    if language == "solidity":
        return True
    return language in AVAILABLE_LANGS and importlib.util.find_spec(f"tree_sitter_{language}") is not None


Lines = int | Literal["auto", "all"]
Text = Literal["shown", "raw"]
TEXTS: tuple[str, ...] = ("shown", "raw")


def parse_lines(spec: str | int | None) -> Lines:
    """`--lines`: "auto" (as many lines as the reference spans: like for like), "all", or N >= 1."""
    if spec is None or spec == "all":
        return "all"
    if spec == "auto":
        return "auto"
    try:
        n = int(spec)
    except (TypeError, ValueError):
        raise ValueError(f"--lines must be auto, all or a positive number, got {spec!r}") from None
    if n < 1:
        raise ValueError(f"--lines must be auto, all or a positive number, got {spec!r}")
    return n


def line_span(text: str) -> int:
    """How many lines a text spans: a final newline ends its last line, it does not open one."""
    if not text:
        return 1
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def first_lines(text: str, n: int | None) -> str:
    """The first n lines (split on "\\n", joined back without a final newline); all if n is None.

    The seed's public runs scored the first line only (`--lines 1`)."""
    if n is None:
        return text
    return "\n".join(text.split("\n")[:n])


def window(reference: str, lines: Lines) -> int | None:
    """The number of lines scored for this reference (None: the whole texts)."""
    if lines == "all":
        return None
    return line_span(reference) if lines == "auto" else lines


def windowed(reference: str, completion: str, lines: Lines) -> tuple[str, str]:
    """Both texts cut to the reference's line window: what every metric compares."""
    n = window(reference, lines)
    return first_lines(reference, n), first_lines(completion, n)


def score_pair(reference: str, completion: str, language: str, lines: Lines = "all") -> dict[str, float]:
    """All metrics for one pair, both cut to the line window; codebleu only where the language
    has it."""
    ref, comp = windowed(reference, completion, lines)
    values = {"indel": indel(ref, comp), "exact": exact(ref, comp), "bleu": bleu(ref, comp)}
    if codebleu_supports(language):
        values["codebleu"] = codebleu(ref, comp, language=language)
    return values


def live_scores(reference: str, completion: Any, text: Text = "shown", lines: Lines = "auto") -> tuple[float, float]:
    """(indel, exact) of one completion as `score` would compute them by default: the shown text,
    as many lines as the reference (what the dashboard shows while a run goes)."""
    ref, comp = windowed(reference, completion.scored_text(text), lines)
    return indel(ref, comp), exact(ref, comp)


def indel_many(references: Sequence[str], completions: Sequence[str], workers: int = 1) -> np.ndarray:
    """Indel similarity of many pairs at once (rapidfuzz's C++ loop, optionally threaded)."""
    from rapidfuzz.process import cpdist

    return cpdist(references, completions, scorer=Indel.normalized_similarity, workers=workers)


@dataclass(frozen=True)
class ScoredItem:
    item_id: str
    file: str
    values: dict[str, float]
    middle_len: int = 0
    reference: str = ""
    completion: str = ""


def aggregate(rows: Iterable[ScoredItem], seed: int = 0, n_boot: int = 2000) -> dict[str, Any]:
    """Per-file means, their sum (`total`), their mean (`mean`) with a bootstrap 95% interval.

    The interval resamples files (the unit the seed averages over) with numpy's PCG64 seeded
    by `seed`, and takes the 2.5th and 97.5th percentiles of the resampled means.
    """
    rows = list(rows)
    by_file: dict[str, dict[str, list[float]]] = {}
    for r in rows:
        slot = by_file.setdefault(r.file, {})
        for metric, value in r.values.items():
            slot.setdefault(metric, []).append(value)
    files = sorted(by_file)
    per_file = {f: {m: float(np.mean(v)) for m, v in sorted(by_file[f].items())} for f in files}
    metrics = [m for m in METRIC_NAMES if any(m in per_file[f] for f in files)]
    total: dict[str, float] = {}
    mean: dict[str, float] = {}
    ci95: dict[str, list[float]] = {}
    rng = np.random.default_rng(seed)
    for m in metrics:
        values = np.array([per_file[f][m] for f in files if m in per_file[f]])
        total[m] = float(values.sum())
        mean[m] = float(values.mean())
        picks = rng.integers(0, len(values), size=(n_boot, len(values)))
        boot = values[picks].mean(axis=1)
        ci95[m] = [float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))]
    return {"n_items": len(rows), "n_files": len(files), "per_file": per_file, "total": total, "mean": mean,
            "ci95": ci95, "bootstrap": {"resamples": n_boot, "seed": seed, "unit": "file"}}


def score_rows(pairs: Iterable[tuple[str, str, str, str, str]], lines: Lines = "all") -> list[ScoredItem]:
    """Score (item_id, file, language, reference, completion) tuples."""
    out = []
    for item_id, file, language, reference, completion in pairs:
        out.append(ScoredItem(item_id=item_id, file=file, values=score_pair(reference, completion, language, lines),
                              middle_len=len(reference), reference=reference, completion=completion))
    return out


def metric_key(metric: str, text: Text = "shown", lines: Lines = "auto") -> str:
    """The name a score is stored under: the metric, which text was scored and the line window,
    e.g. `indel:shown:lines=auto`, so that scores of every text and window live side by side."""
    return f"{metric}:{text}:lines={lines}"


def store_scores(store: Any, run_id: str, rows: Iterable[ScoredItem], text: Text, lines: Lines) -> None:
    """Keep a run's per-item scores under keys that say which text and window they are of."""
    store.add_scores(run_id, [(r.item_id, r.file, metric_key(m, text, lines), v) for r in rows for m, v in r.values.items()])


def scored_what(text: Text, lines: Lines) -> str:
    """One line saying what a score is of, for every report."""
    which = ("the text the editor showed (after its completion stage)" if text == "shown"
             else "the raw text the editor received (the engine's, cut at the stop words)")
    span = {"auto": "as many lines as the reference", "all": "all lines"}.get(str(lines), f"the first {lines} line(s)")
    return f"{which}; {span}"


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
    items = {it.id: (it.file, it.language, it.middle) for it in store.items()}
    pairs, rejects = [], []
    counts = {"n_errors": 0, "n_stop_cut": 0, "n_changed": 0, "n_nothing_shown": 0, "chars_removed": 0, "n_no_stage": 0}
    for comp in store.completions(run_id):
        ref = items.get(comp.item_id)
        if ref is None and comp.item_id.startswith(CAPTURE_PREFIX):
            ref, reason = capture_reference(store, comp.item_id)
        else:
            reason = "no such item in the store"
        if ref is None:
            rejects.append(Reject(f"{run_id}:{comp.item_id}", reason))
            continue
        if comp.error:
            counts["n_errors"] += 1
            pairs.append((comp.item_id, *ref, ""))
            continue
        counts["n_stop_cut"] += int(comp.text != comp.raw_text)
        if not comp.stage:
            counts["n_no_stage"] += 1
        else:
            shown = comp.shown_text
            counts["n_nothing_shown"] += int(shown is None)
            counts["n_changed"] += int(shown != comp.text)
            counts["chars_removed"] += len(comp.text) - len(shown or "")
        pairs.append((comp.item_id, *ref, comp.scored_text(text)))
    return pairs, rejects, counts


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
              compiles: bool = False) -> tuple[dict[str, Any], list[Reject]]:
    """Score a stored run, keep the per-item scores in the store, return the aggregate (what
    `fimreplay score RUN --json` prints) and the completions that could not be scored.
    `compiles` adds the compiles metric (replay.compiles: slow, so asked for)."""
    pairs, rejects, counts = run_pairs(store, run_id, text)
    rows = score_rows(pairs, lines)
    if compiles:
        from replay.compiles import add_compiles

        add_compiles(store, rows)
    result = aggregate(rows, seed=seed)
    store_scores(store, run_id, rows, text, lines)
    run = store.run(run_id)
    result.update(source=run_id, run=run_id, text=text, lines=lines, scored=scored_what(text, lines),
                  **counts, backend=run.backend, model=run.model,
                  profile=run_profile(store, run_id, run.config), n_rejects=len(rejects))
    return result, rejects


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
    import json
    from pathlib import Path

    from replay.backends.base import apply_stop
    from replay.corpus.evalgen import language_of

    path = Path(path)
    pairs, rejects = [], []
    counts = {"n_stop_cut": 0}
    with path.open(encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                rejects.append(Reject.at(path, no, f"not JSON: {exc}", line.rstrip("\n")))
                continue
            if not isinstance(obj, dict):
                rejects.append(Reject.at(path, no, "not a JSON object", line.rstrip("\n")))
                continue
            missing = [k for k in ("file", "reference", "completion") if not isinstance(obj.get(k), str)]
            if missing:
                rejects.append(Reject.at(path, no, f"missing or not a string: {', '.join(missing)}", line.rstrip("\n")))
                continue
            stop = obj.get("stop") or []
            if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
                rejects.append(Reject.at(path, no, "stop is not a list of strings", line.rstrip("\n")))
                continue
            completion = apply_stop(obj["completion"], stop)
            counts["n_stop_cut"] += int(completion != obj["completion"])
            language = obj.get("language") or language_of(obj["file"])
            pairs.append((str(obj.get("id", no)), obj["file"], language, obj["reference"], completion))
    return pairs, rejects, counts
