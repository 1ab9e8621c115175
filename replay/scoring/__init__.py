"""Metrics for one completion against its reference, and their aggregation per file and run.

metrics (the metrics and the line window), sentence_bleu, pool (many pairs across processes),
aggregate, runs (a stored run's scores, reused where the store holds them).

Every metric has rapidfuzz's scorer signature, `metric(reference, completion, *, processor=None)
-> float` in 0..1, so that any of them can be handed to rapidfuzz.process functions or used
alone. `processor` is applied to both strings first (as rapidfuzz does).

- indel: rapidfuzz.distance.Indel.normalized_similarity, 1 - (insertions + deletions) / (len
  a + len b): the seed's headline (trailofbits/CompChomper README).
- exact: 1.0 when the strings are equal.
- bleu: sacrebleu 2.6 sentence BLEU with its defaults for sentence scores: tokenizer "13a",
  smoothing "exp", effective order; divided by 100 (replay.scoring.sentence_bleu: the same numbers from
  n-gram statistics kept per text).
- codebleu: CodeBLEU with equal weights; the `codebleu` package for its languages, and
  replay.codebleu_engine (same numbers) for Solidity over tree-sitter-solidity.

Aggregation follows the seed: the mean per file, and the per-file means summed into a total;
added here: the mean over files (the total normalised by the number of files) with a seeded
bootstrap 95% interval over files.

Speed: every text is tokenized, parsed and its data flow found once (cached by content); each
distinct pair of a batch is scored once, in forked worker processes for large batches, with the
serial numbers; a run's scores stay in the store per item, text and window, each with a digest
of the texts it is of, and another text or window reuses those of the same cut texts.
"""

from replay.scoring.aggregate import ScoredItem, aggregate
from replay.scoring.metrics import (
    METRIC_NAMES,
    TEXTS,
    Lines,
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
from replay.scoring.pool import score_many, score_rows
from replay.scoring.runs import (
    CAPTURE_PREFIX,
    RunScores,
    accepted_text,
    capture_reference,
    compiles_key,
    jsonl_pairs,
    pair_digest,
    run_aggregate,
    run_entries,
    run_profile,
    run_scores,
    score_run,
    scored_what,
    scores_key,
)

__all__ = ["CAPTURE_PREFIX", "METRIC_NAMES", "TEXTS", "Lines", "Processor", "RunScores", "ScoredItem", "Text",
           "accepted_text", "aggregate", "bleu", "capture_reference", "codebleu", "codebleu_supports",
           "compiles_key", "exact", "first_lines", "indel", "indel_many", "jsonl_pairs", "line_span",
           "live_scores", "metric_values", "pair_digest", "parse_lines", "run_aggregate", "run_entries", "run_profile",
           "run_scores", "score_many", "score_pair", "score_rows", "score_run", "scored_what", "scores_key",
           "window", "windowed"]
