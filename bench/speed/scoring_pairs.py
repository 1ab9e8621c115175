"""Scoring pairs from a real Solidity package, shared by the scoring benches.

Items are evalgen line-mode items of solady 0.1.26 (`npm pack`, made once with
`fimreplay corpus add`); each gets a completion the way a model's would look: the item's middle
exact, with one word changed, cut in half, replaced by the next line, or nothing, and in every
case followed by the next lines of the file (a generation runs on past the middle), so that the
line window decides what is compared.
"""

from __future__ import annotations

from replay.records import FimItem

SOLADY = "npm:solady@0.1.26"
Pair = tuple[str, str, str, str, str]  # item id, file, language, reference, completion


def solady_items(lines: int = 1, per_file: int = 70, corpus: str | None = None) -> list[FimItem]:
    """Line-mode items of solady (per_file=70: 7,000+ one-line items from its 107 files)."""
    from replay.corpus.evalgen import EvalgenOptions, collect_files, generate
    from replay.corpus.sources import ensure_corpus, resolve_corpus_arg

    root = resolve_corpus_arg(corpus) if corpus else ensure_corpus(SOLADY)
    return generate(collect_files([root], ["sol"]), EvalgenOptions(per_file=per_file, mode="line", lines=lines)).items


def completion_for(item: FimItem, i: int) -> str:
    """A model-like completion of item number i (deterministic)."""
    middle, after = item.middle.rstrip("\n"), item.suffix.split("\n")
    kind = i % 5
    if kind == 0:
        head = middle
    elif kind == 1:
        words = middle.split(" ")
        words[len(words) // 2] = "value"
        head = " ".join(words)
    elif kind == 2:
        head = middle[: len(middle) // 2]
    elif kind == 3:
        head = after[0]
    else:
        return ""
    return "\n".join([head, *after[1:4]])


def pairs_of(items: list[FimItem]) -> list[Pair]:
    return [(it.id, it.file, it.language, it.middle, completion_for(it, i)) for i, it in enumerate(items)]
