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
from typing import Any

import numpy as np
from rapidfuzz.distance import Indel

Processor = Callable[[str], str] | None
METRIC_NAMES = ("indel", "exact", "bleu", "codebleu")


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


def first_lines(text: str, n: int | None) -> str:
    """The first n lines (split on "\\n", joined back without a final newline); all if n is None.

    The seed's public runs scored the first line only (`--lines 1`)."""
    if n is None:
        return text
    return "\n".join(text.split("\n")[:n])


def score_pair(reference: str, completion: str, language: str, lines: int | None = None) -> dict[str, float]:
    """All metrics for one pair (after `first_lines`); codebleu only where the language has it."""
    ref, comp = first_lines(reference, lines), first_lines(completion, lines)
    values = {"indel": indel(ref, comp), "exact": exact(ref, comp), "bleu": bleu(ref, comp)}
    if codebleu_supports(language):
        values["codebleu"] = codebleu(ref, comp, language=language)
    return values


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


@dataclass
class Reject:
    where: str  # file:line, or run:item
    reason: str


def score_rows(pairs: Iterable[tuple[str, str, str, str, str]], lines: int | None = None) -> list[ScoredItem]:
    """Score (item_id, file, language, reference, completion) tuples."""
    out = []
    for item_id, file, language, reference, completion in pairs:
        out.append(ScoredItem(item_id=item_id, file=file, values=score_pair(reference, completion, language, lines),
                              middle_len=len(reference), reference=reference, completion=completion))
    return out


def metric_key(metric: str, lines: int | None) -> str:
    """The name a metric is stored under: `indel`, or `indel:lines=1` when only N lines count."""
    return metric if lines is None else f"{metric}:lines={lines}"


def run_pairs(store: Any, run_id: str) -> tuple[list[tuple[str, str, str, str, str]], list[Reject], dict[str, int]]:
    """A stored run's completions paired with their items' middles.

    The completion's `text` is scored: the text after the editor profile's post-processing
    (stop words), which the run recorded beside `raw_text`. A completion that failed (error) is
    scored as an empty completion, counted in `n_errors`.
    """
    items = {it.id: (it.file, it.language, it.middle) for it in store.items()}
    pairs, rejects = [], []
    counts = {"n_errors": 0, "n_postprocessed": 0}
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
        counts["n_postprocessed"] += int(comp.text != comp.raw_text)
        pairs.append((comp.item_id, *ref, "" if comp.error else comp.text))
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


def score_run(store: Any, run_id: str, lines: int | None = None, seed: int = 0) -> tuple[dict[str, Any], list[Reject]]:
    """Score a stored run, keep the per-item scores in the store, return the aggregate (what
    `fimreplay score RUN --json` prints) and the rejects."""
    from replay.report import run_profile

    pairs, rejects, counts = run_pairs(store, run_id)
    rows = score_rows(pairs, lines)
    result = aggregate(rows, seed=seed)
    store.add_scores(run_id, [(r.item_id, r.file, metric_key(m, lines), v) for r in rows for m, v in r.values.items()])
    config = store.run(run_id)["config"]
    result.update(source=run_id, run=run_id, lines=lines, scored="completion text after post-processing (stop words)",
                  **counts, backend=config.get("backend"), model=config.get("model"),
                  profile=run_profile(store, run_id, config), n_rejects=len(rejects))
    if rejects:
        from replay.paths import data_dir

        result["rejects_file"] = str(write_rejects(rejects, data_dir() / "rejects" / f"score-{run_id}.jsonl"))
    return result, rejects


def write_rejects(rejects: list[Reject], path: Any) -> Any:
    """Keep what could not be scored (where, reason) as JSONL; return the path."""
    import json
    from pathlib import Path

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"where": r.where, "reason": r.reason}) + "\n" for r in rejects), encoding="utf-8")
    return path


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
    counts = {"n_postprocessed": 0}
    with path.open(encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{no}"
            try:
                obj = json.loads(line)
            except ValueError as exc:
                rejects.append(Reject(where, f"not JSON: {exc}"))
                continue
            if not isinstance(obj, dict):
                rejects.append(Reject(where, "not a JSON object"))
                continue
            missing = [k for k in ("file", "reference", "completion") if not isinstance(obj.get(k), str)]
            if missing:
                rejects.append(Reject(where, f"missing or not a string: {', '.join(missing)}"))
                continue
            stop = obj.get("stop") or []
            if not isinstance(stop, list) or not all(isinstance(s, str) for s in stop):
                rejects.append(Reject(where, "stop is not a list of strings"))
                continue
            completion = apply_stop(obj["completion"], stop)
            counts["n_postprocessed"] += int(completion != obj["completion"])
            language = obj.get("language") or language_of(obj["file"])
            pairs.append((str(obj.get("id", no)), obj["file"], language, obj["reference"], completion))
    return pairs, rejects, counts
