"""The metrics of one completion against its reference, and the line window both are cut to.

METRICS is the one registry: each metric's name, in the order reports show them, with its scorer
of a pair, `(reference, completion, language) -> float` in 0..1. indel, exact, bleu and codebleu
also have rapidfuzz's scorer signature, `metric(reference, completion, *, processor=None)`, so
that they can be handed to rapidfuzz.process functions or used alone; `processor` is applied to
both strings first (as rapidfuzz does).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np
from rapidfuzz.distance import Indel

from replay.languages import codebleu_name
from replay.scoring.sentence_bleu import sentence_bleu

Processor = Callable[[str], str] | None


def indel(reference: str, completion: str, *, processor: Processor = None) -> float:
    return Indel.normalized_similarity(reference, completion, processor=processor)


def exact(reference: str, completion: str, *, processor: Processor = None) -> float:
    if processor is not None:
        reference, completion = processor(reference), processor(completion)
    return 1.0 if reference == completion else 0.0


def bleu(reference: str, completion: str, *, processor: Processor = None) -> float:
    if processor is not None:
        reference, completion = processor(reference), processor(completion)
    return sentence_bleu(reference, completion)


def codebleu(reference: str, completion: str, *, processor: Processor = None, language: str = "solidity") -> float:
    """CodeBLEU of one pair. For a pair without any data flow in the reference the data-flow
    part counts as 1, as in the `codebleu` package (see replay.scoring.codebleu_engine)."""
    if processor is not None:
        reference, completion = processor(reference), processor(completion)
    if language == "solidity":
        from replay.scoring.codebleu_engine import calc_codebleu
    else:
        from codebleu import calc_codebleu  # type: ignore[no-redef]

        _quiet_codebleu()
    return float(calc_codebleu([reference], [completion], codebleu_name(language))["codebleu"])


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
    if language == "solidity":
        return True
    import importlib.util

    from codebleu.utils import AVAILABLE_LANGS

    language = codebleu_name(language)
    return language in AVAILABLE_LANGS and importlib.util.find_spec(f"tree_sitter_{language}") is not None


# A metric of one pair cut to its window: (reference, completion, language) -> 0..1.
Scorer = Callable[[str, str, str], float]


def _every_language(language: str) -> bool:
    return True


@dataclass(frozen=True)
class Metric:
    """One metric: its name, its scorer (None: a judgement of the whole file with the completion
    in place, asked for: `compiles`, replay.scoring.compiles; `pass@1`, the benchmark's tests run,
    replay.scoring.execute), and the languages it scores."""

    name: str
    score: Scorer | None
    supports: Callable[[str], bool] = _every_language


# Every metric, in the order reports show them.
METRICS: tuple[Metric, ...] = (
    Metric("indel", lambda reference, completion, _: indel(reference, completion)),
    Metric("compiles", None),
    Metric("pass@1", None),
    Metric("exact", lambda reference, completion, _: exact(reference, completion)),
    Metric("bleu", lambda reference, completion, _: bleu(reference, completion)),
    Metric("codebleu", lambda reference, completion, language: codebleu(reference, completion, language=language),
           codebleu_supports),
)
METRIC_NAMES: tuple[str, ...] = tuple(metric.name for metric in METRICS)
HEADLINE = METRIC_NAMES[0]  # the score every report leads with


@lru_cache(maxsize=None)
def pair_metrics(language: str) -> tuple[Metric, ...]:
    """The metrics a pair of this language gets: every one with a scorer that scores the language."""
    return tuple(m for m in METRICS if m.score is not None and m.supports(language))


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
    if n is None or text.count("\n") < n:
        return text  # n lines or fewer: nothing to cut (and no split to join again)
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
    return metric_values(*windowed(reference, completion, lines), language)


def metric_values(reference: str, completion: str, language: str) -> dict[str, float]:
    """All metrics of one pair as given (already cut to its window)."""
    return {metric.name: metric.score(reference, completion, language)  # type: ignore[misc]
            for metric in pair_metrics(language)}


def live_scores(reference: str, completion: Any, text: Text = "shown", lines: Lines = "auto") -> tuple[float, float]:
    """(indel, exact) of one completion as `score` would compute them by default: the shown text,
    as many lines as the reference (what the dashboard shows while a run goes)."""
    ref, comp = windowed(*completion.scored_pair(reference, text), lines)
    return indel(ref, comp), exact(ref, comp)


def indel_many(references: Sequence[str], completions: Sequence[str], workers: int = 1) -> np.ndarray:
    """Indel similarity of many pairs at once (rapidfuzz's C++ loop, optionally threaded), as
    float64: the same numbers as `indel` pair by pair."""
    from rapidfuzz.process import cpdist

    return cpdist(references, completions, scorer=Indel.normalized_similarity, workers=workers, dtype=np.float64)
