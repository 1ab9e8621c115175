"""How a published HumanEval single-line infilling figure was read off a generation: the
model authors' own harness, rule for rule, so that a run here can be set beside their row.

Qwen2.5-Coder's harness (QwenLM/Qwen2.5-Coder, qwencoder-eval/base/benchmarks/fim-bench,
commit 3cf0bba "fix args error in humaneval-fim"; hm_fim/humaneval_fim.py `evaluate_results`,
utils.py `prepare_prompt`):
- prompt: `<|fim_prefix|>` + prefix + `<|fim_suffix|>` + suffix + `<|fim_middle|>`, the prefix
  cut to its last 1472 tokens (max_seq_length 2048 - gen_length 64 - right_context_length 512)
  and the suffix to its first 512 (the standard profile's Qwen template; HumanEval's
  single-line prompts are shorter than either cut);
- generation: vLLM, temperature 0, 64 new tokens, no stop but the end of text;
- truncation: a generation that starts with "\\n" or " \\n" is read from its second line, any
  other from its first line; that line and the canonical middle are stripped of surrounding
  whitespace and compared: exact match (EM), and fuzzywuzzy's `fuzz.ratio` (edit similarity).

The harness runs no test: pass@1 here is this project's (replay.scoring.execute), the kept line
run in place of the middle with its own indentation and a line end, as the benchmark's file
holds the middle.
"""

from __future__ import annotations

from rapidfuzz import fuzz


def kept_line(generation: str) -> str:
    """The one line the harness reads of a generation, unstripped: the second line when the
    generation starts with "\\n" or " \\n" (the model opened with an empty line), else the first."""
    if generation.startswith("\n") or generation.startswith(" \n"):
        return generation.split("\n")[1]
    return generation.split("\n")[0]


def line_settled(generation: str) -> bool:
    """Whether the kept line is already ended by a line break in `generation`, so that more
    tokens of the same greedy generation cannot change it: a generation cut at a smaller budget
    then reads exactly as the harness's 64-token one."""
    skip = 1 if generation.startswith("\n") or generation.startswith(" \n") else 0
    return generation.count("\n") > skip


def exact_match(generation: str, middle: str) -> bool:
    """The harness's EM: the kept line and the canonical middle equal once stripped."""
    return kept_line(generation).strip() == middle.strip()


def edit_similarity(generation: str, middle: str) -> float:
    """The harness's edit similarity in 0..100 on the stripped texts. rapidfuzz's `fuzz.ratio`
    (Indel distance) where the harness calls fuzzywuzzy's (difflib's matching blocks): the two
    agree on most short lines, not on every one."""
    return float(fuzz.ratio(kept_line(generation).strip(), middle.strip()))


def executed_middle(generation: str) -> str:
    """The text put in place of the middle to run the tests: the kept line with its own
    indentation and a line end (the benchmark's middles are whole lines)."""
    return kept_line(generation) + "\n"
