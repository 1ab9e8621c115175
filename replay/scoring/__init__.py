"""Metrics for one completion against its reference, and their aggregation per file and run.

metrics (METRICS, the one registry of metrics, and the line window), sentence_bleu, codebleu_engine
and solidity (CodeBLEU over tree-sitter, Solidity's data flow), compiles (the whole file
compiled with the completion in place), execute and sandbox (the benchmark's own tests run with the
completion in place, each in a contained process: pass@1, pass@k), pool (many pairs across processes), aggregate, entries
(a stored run's pairs and their references), runs (a stored run's scores, reused where the store
holds them), pairs_file (pairs from a JSONL file).

Every metric of a pair has one scorer signature in METRICS, `(reference, completion, language)
-> float` in 0..1; indel, exact and bleu also have rapidfuzz's, `metric(reference, completion, *,
processor=None)`, so that they can be handed to rapidfuzz.process functions or used alone.

- indel: rapidfuzz.distance.Indel.normalized_similarity, 1 - (insertions + deletions) / (len
  a + len b): the seed's headline (trailofbits/CompChomper README).
- exact: 1.0 when the strings are equal.
- bleu: sacrebleu 2.6 sentence BLEU with its defaults for sentence scores: tokenizer "13a",
  smoothing "exp", effective order; divided by 100 (replay.scoring.sentence_bleu: the same numbers from
  n-gram statistics kept per text).
- codebleu: CodeBLEU with equal weights; the `codebleu` package for its languages, and
  replay.scoring.codebleu_engine (same numbers) for Solidity over tree-sitter-solidity.

Aggregation follows the seed: the mean per file, and the per-file means summed into a total;
added here: the mean over files (the total normalised by the number of files) with a seeded
bootstrap 95% interval over files.

Speed: every text is tokenized, parsed and its data flow found once (cached by content); each
distinct pair of a batch is scored once, in forked worker processes for large batches, with the
serial numbers; a run's scores stay in the store per item, text and window, each with a digest
of the texts it is of, and another text or window reuses those of the same cut texts.
"""

from replay.scoring.aggregate import ScoredItem, Summary, aggregate, summary_of
from replay.scoring.entries import (
    REFERENCE_KINDS,
    CaptureReference,
    CaptureReferences,
    ReferenceKind,
    accepted_text,
    capture_reference,
    nothing_scored,
    reference_of,
    run_entries,
    unscored_reasons,
)
from replay.scoring.metrics import (
    HEADLINE,
    METRIC_NAMES,
    METRICS,
    TEXTS,
    Lines,
    Metric,
    Processor,
    Text,
    bleu,
    codebleu,
    codebleu_supports,
    exact,
    first_lines,
    indel,
    indel_many,
    line_span,
    live_scores,
    metric_values,
    parse_lines,
    score_pair,
    window,
    windowed,
)
from replay.scoring.pairs_file import jsonl_pairs
from replay.scoring.pool import nothing_shown, score_many, score_rows
from replay.scoring.judged import compiles_key, execute_key
from replay.scoring.runs import (
    RunScore,
    RunScores,
    ScoredRun,
    pair_digest,
    run_aggregate,
    run_profile,
    run_scores,
    scored_run,
    scored_what,
    scores_key,
)

__all__ = ["HEADLINE", "METRICS", "METRIC_NAMES", "REFERENCE_KINDS", "TEXTS", "CaptureReference", "CaptureReferences", "Lines",
           "Metric", "Processor", "ReferenceKind", "RunScore",
           "RunScores", "ScoredItem", "ScoredRun", "Summary", "Text", "accepted_text", "aggregate", "bleu", "capture_reference", "codebleu",
           "codebleu_supports", "compiles_key", "exact", "execute_key", "first_lines", "indel", "indel_many", "jsonl_pairs",
           "line_span", "live_scores", "metric_values", "nothing_scored", "nothing_shown", "pair_digest", "parse_lines", "reference_of", "run_aggregate",
           "run_entries",
           "run_profile", "run_scores", "score_many", "score_pair", "score_rows", "scored_run",
           "scored_what", "scores_key", "summary_of", "unscored_reasons", "window", "windowed"]
