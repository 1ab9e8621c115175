"""CodeBLEU for any tree-sitter language, Solidity included, with the `codebleu` package's numbers.

CodeBLEU (Ren et al. 2020, arXiv:2009.10297) = a*BLEU + b*keyword-weighted BLEU + c*AST match +
d*data-flow match. The `codebleu` package (0.7.0, k4black/codebleu) has no Solidity, and the
seed scored Solidity with its JavaScript grammar. This module computes the four parts itself
from a language's grammar (replay.languages) and description (keywords, data-flow extractor,
comment stripper), so that Solidity is scored over tree-sitter-solidity, and it follows the
package's exact arithmetic so that, for a language the package knows, the numbers are the same
(tests prove it on Python):

- tokens: `str.split()` after `.strip()` of both texts (codebleu/codebleu.py);
- BLEU: corpus BLEU-4 with clipped n-gram precision, denominators at least 1, Chen & Cherry
  smoothing method 1 (epsilon 0.1 added to zero numerators), 0 when no unigram matches, and the
  brevity penalty from the closest reference length (codebleu/bleu.py);
- weighted BLEU: the same over n-gram *recall* (reference n-grams found in the candidate), with
  unigrams weighted 1 for keywords and 0.2 otherwise, and a brevity penalty whose reference
  length is always 2 per item (a quirk of codebleu/weighted_ngram_match.py, kept);
- syntax match: the share of the reference's subtrees (s-expressions of nodes with children,
  comments removed) that occur among the candidate's (codebleu/syntax_match.py);
- data-flow match: edges of the data-flow graph with variables renamed in order of appearance,
  the share of reference edges found in the candidate (each used once); 0 when the references
  have no edge (codebleu/dataflow_match.py), and then, as in codebleu/codebleu.py, that 0 is
  replaced by 1 in the weighted sum (`dataflow_match_score or 1`) — kept for equal numbers.
The data-flow extractors of the package's languages are the package's own; Solidity's is in
replay/scoring/solidity.py.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain, islice
from pathlib import Path
from typing import Any

from replay.languages import grammar_parser

DfgFunction = Callable[[Any, str], list]  # (tree root, its text) -> raw data-flow edges


@dataclass(frozen=True)
class CodeBleuLanguage:
    """What CodeBLEU needs to know about a language."""

    name: str
    keywords: frozenset[str]
    dataflow: DfgFunction
    strip_comments: Callable[[str], str]


def _package_keywords(lang: str) -> frozenset[str]:
    import codebleu

    path = Path(codebleu.__file__).parent / "keywords" / f"{lang}.txt"
    return frozenset(x.strip() for x in path.read_text(encoding="utf-8").splitlines())


def _package_language(lang: str) -> CodeBleuLanguage:
    """A language the `codebleu` package supports, described with the package's own parts."""
    from codebleu.parser import remove_comments_and_docstrings

    return CodeBleuLanguage(
        name=lang,
        keywords=_package_keywords(lang),
        dataflow=lambda root, code: _package_dataflow(lang, root, code),
        strip_comments=lambda s: remove_comments_and_docstrings(s, lang),
    )


def _package_dataflow(lang: str, root: Any, code: str) -> list:
    """The package's data-flow extractor over its own token index (codebleu/dataflow_match.py)."""
    from codebleu.dataflow_match import dfg_function
    from codebleu.parser import index_to_code_token, tree_to_token_index

    lines = code.split("\n")
    index_to_code = {span: (i, index_to_code_token(span, lines)) for i, span in enumerate(tree_to_token_index(root))}
    edges, _ = dfg_function[lang](root, index_to_code, {})
    return edges


@lru_cache(maxsize=None)
def language(name: str) -> CodeBleuLanguage:
    """The CodeBLEU description of `name`: solidity (ours) or one of the package's languages."""
    if name == "solidity":
        from replay.scoring import solidity

        return CodeBleuLanguage(name="solidity", keywords=solidity.keywords(), dataflow=solidity.dataflow,
                                strip_comments=solidity.strip_comments)
    from codebleu.utils import AVAILABLE_LANGS

    if name not in AVAILABLE_LANGS:
        raise KeyError(f"CodeBLEU has no language {name!r} (solidity, {', '.join(AVAILABLE_LANGS)})")
    return _package_language(name)


def _combine(numerators: list[float], denominators: Sequence[float], hyp_len: int, ref_len: int) -> float:
    """BLEU-4 from per-order counts: smoothing method 1 (epsilon 0.1), brevity penalty."""
    if numerators[0] == 0:
        return 0.0
    if hyp_len > ref_len:
        bp = 1.0
    elif hyp_len == 0:
        bp = 0.0
    else:
        bp = math.exp(1 - ref_len / hyp_len)
    logs = [0.25 * math.log((num if num else 0.1) / den) for num, den in zip(numerators, denominators)]
    return bp * math.exp(math.fsum(logs))


@dataclass(frozen=True, slots=True)
class Grams:
    """The n-gram side of a text for both BLEU parts, counted once: the n-grams of orders 1..4
    in one counter (an n-gram's order is its length; the unigrams come first, in the order of
    their first occurrence, as a counter of unigrams alone would hold them), n-grams per order
    (at least 1: the denominators of both parts), its tokens' weights (1 for a keyword, 0.2
    otherwise; one per distinct token, so as many as the unigrams) and its weighted unigram
    count (at least 1)."""

    n_tokens: int
    counts: Counter[tuple[str, ...]]
    dens: tuple[int, ...]
    weights: dict[str, float]
    weighted_unigrams: float

    def unigrams(self) -> Iterator[tuple[tuple[str, ...], int]]:
        return islice(self.counts.items(), len(self.weights))


def _grams(tokens: Sequence[str], keywords: frozenset[str]) -> Grams:
    counts = Counter(chain.from_iterable(zip(*(tokens[i:] for i in range(n))) for n in range(1, 5)))
    weights = {t: 1 if t in keywords else 0.2 for t in tokens}
    unigrams = islice(counts.items(), len(weights))
    return Grams(n_tokens=len(tokens), counts=counts, dens=tuple(max(1, len(tokens) - n) for n in range(4)), weights=weights,
                 weighted_unigrams=max(1, sum(c * weights[g[0]] for g, c in unigrams)))


def _matches(ref: Grams, hyp: Grams) -> list[int]:
    """Clipped matches per order: an n-gram of both texts counts as often as the fewer have it
    (the same whether the candidate's n-grams are looked up among the reference's, as for
    precision, or the other way round, as for recall)."""
    found = [0, 0, 0, 0]
    h, r = hyp.counts, ref.counts
    for g in h.keys() & r.keys():
        found[len(g) - 1] += min(h[g], r[g])
    return found


def _weighted_stats(ref: Grams, hyp: Grams, matches: list[int]) -> tuple[list[float], Sequence[float]]:
    """Matches of the reference's n-grams in the candidate (recall), unigrams weighted, per
    order. The weighted unigram sum runs in the reference's n-gram order, as the package's
    (terms of n-grams the candidate lacks are 0 and leave the sum as it is)."""
    h, w = hyp.counts, ref.weights
    unigrams = sum(min(c, h[g]) * w[g[0]] for g, c in ref.unigrams() if g in h)
    return [unigrams, *matches[1:]], (ref.weighted_unigrams, *ref.dens[1:])


def weighted_ngram_match(references: Sequence[list[str]], hypotheses: Sequence[list[str]], keywords: frozenset[str]) -> float:
    """Corpus BLEU-4 over n-gram recall, unigrams weighted 1 (keyword) or 0.2 (other token)."""
    refs, hyps = [_grams(r, keywords) for r in references], [_grams(h, keywords) for h in hypotheses]
    return _weighted_ngram_match(refs, hyps)


def _ngram_match(refs: Sequence[Grams], hyps: Sequence[Grams], matches: Sequence[list[int]] | None = None) -> float:
    matches = matches or [_matches(r, h) for r, h in zip(refs, hyps)]
    # per pair: clipped matches and the candidate's n-grams, per order
    return _corpus_bleu([(m, h.dens) for h, m in zip(hyps, matches)], sum(h.n_tokens for h in hyps),
                        sum(r.n_tokens for r in refs))


def _weighted_ngram_match(refs: Sequence[Grams], hyps: Sequence[Grams], matches: Sequence[list[int]] | None = None) -> float:
    matches = matches or [_matches(r, h) for r, h in zip(refs, hyps)]
    return _corpus_bleu([_weighted_stats(r, h, m) for r, h, m in zip(refs, hyps, matches)], sum(h.n_tokens for h in hyps),
                        _WEIGHTED_REF_LEN * len(refs))


# The package measures the "closest reference length" of the weighted BLEU on its [tokens,
# weights] pair, whose length is 2 (codebleu/weighted_ngram_match.py closest_ref_length): kept.
_WEIGHTED_REF_LEN = 2


def _corpus_bleu(stats: Sequence[tuple[Sequence[float], Sequence[float]]], hyp_len: int, ref_len: int) -> float:
    """Per-pair statistics summed in pair order (the package's corpus sums), then combined."""
    num = [0.0] * 4
    den = [0] * 4
    for nums, dens in stats:
        for i in range(4):
            num[i] += nums[i]
            den[i] += dens[i]  # type: ignore[call-overload]
    return _combine(num, den, hyp_len, ref_len)


def _without_comments(code: str, lang: CodeBleuLanguage) -> str:
    try:
        return lang.strip_comments(code)
    except Exception:  # the package keeps the text when its stripper fails (e.g. Python tokenize errors)
        return code


def _subtrees(root: Any) -> list[str]:
    """S-expressions of the root and of every descendant that has children."""
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(str(node))
        stack.extend(c for c in node.children if c.children)
    return out


def data_flow(code: str, name: str) -> list[tuple[str, str, list[str]]]:
    """The normalised data-flow edges of `code`: (variable, relation, [sources]) renamed var_i."""
    try:
        root = grammar_parser(name).parse(code.encode("utf-8")).root_node
    except Exception:
        return []
    return _flow(root, code, language(name))


def first_seen(values: list) -> list:
    """The values without repeats, each where it first occurs.

    The `codebleu` package unites the source lists of merged edges through a set
    (codebleu/dataflow_match.py get_data_flow; the loops of codebleu/parser/DFG.py), so their
    order follows the string hash seed, and that order decides how the names are numbered
    (normalize_dataflow) and so which edges match: a pair's data-flow score can change from
    one Python process to the next. The package itself does so: a golden pair scored with its
    JavaScript grammar gave 0.25 under 7 of 40 seeds (seed 0 among them) and 0.125 under the
    rest. A set of strings gives its values in the order they were added whenever their hashes
    collide, and any other order only for some seeds, so the order they were added is the one it
    gives most often; kept here, it is the same in every process. It gives that pair 0.125, and
    every pinned Solidity pair score made with seed 0 again (the one pair that changed with the
    seed merges seven sources, whose set order was seed 0's for 13 of 40 seeds)."""
    return list(dict.fromkeys(values))


def _flow(root: Any, code: str, lang: CodeBleuLanguage) -> list[tuple[str, str, list[str]]]:
    try:
        edges = sorted(lang.dataflow(root, code), key=lambda e: e[1])
    except Exception:  # as the package: a text whose extractor fails has no data flow
        edges = []
    linked = {e[1] for e in edges if e[-1]} | {x for e in edges for x in e[-1]}
    edges = [e for e in edges if e[1] in linked]
    merged: dict[int, tuple] = {}
    for e in edges:
        if e[1] in merged:
            old = merged[e[1]]
            merged[e[1]] = (e[0], e[1], e[2], first_seen(old[3] + e[3]), first_seen(old[4] + e[4]))
        else:
            merged[e[1]] = e
    names: dict[str, str] = {}
    out = []
    for var, _, relation, sources, _ in merged.values():
        for s in [*sources, var]:
            names.setdefault(s, f"var_{len(names)}")
        out.append((names[var], relation, [names[s] for s in sources]))
    return out


@dataclass(frozen=True, slots=True)
class Analysis:
    """What CodeBLEU needs of one text, made once per text and language (the same reference is
    compared with many candidates, under several line windows): its tokens' n-grams (Grams),
    the s-expressions of its syntax tree and its data-flow edges
    (tree and data flow from one parse of the text without comments)."""

    grams: Grams
    subtrees: tuple[str, ...]
    subtree_set: frozenset[str]
    flow: tuple[tuple[str, str, list[str]], ...]


@lru_cache(maxsize=1 << 15)
def analyse(text: str, name: str) -> Analysis:
    """The Analysis of `text` in language `name` (cached by content)."""
    lang = language(name)
    stripped = text.strip()
    tokens = stripped.split()
    code = _without_comments(stripped, lang)
    root = grammar_parser(name).parse(code.encode("utf-8")).root_node
    subtrees = _subtrees(root)
    return Analysis(grams=_grams(tokens, lang.keywords), subtrees=tuple(subtrees), subtree_set=frozenset(subtrees), flow=tuple(_flow(root, code, lang)))


def _flow_matches(ref: Analysis, hyp: Analysis) -> int:
    """Reference edges found among the candidate's, each candidate edge used once."""
    cand = list(hyp.flow)
    matched = 0
    for edge in ref.flow:
        if edge in cand:
            matched += 1
            cand.remove(edge)
    return matched


def calc_codebleu(references: Sequence[str], hypotheses: Sequence[str], lang: str,
                  weights: tuple[float, float, float, float] = (0.25, 0.25, 0.25, 0.25)) -> dict[str, float]:
    """CodeBLEU of hypotheses against one reference each; keys as `codebleu.calc_codebleu`."""
    if len(references) != len(hypotheses):
        raise ValueError("as many references as hypotheses are needed")
    refs = [analyse(r, lang) for r in references]
    hyps = [analyse(h, lang) for h in hypotheses]
    ref_grams, hyp_grams = [r.grams for r in refs], [h.grams for h in hyps]
    matches = [_matches(r, h) for r, h in zip(ref_grams, hyp_grams)]
    syntax_total = sum(len(r.subtrees) for r in refs)
    flow_total = sum(len(r.flow) for r in refs)
    parts = {
        "ngram_match_score": _ngram_match(ref_grams, hyp_grams, matches),
        "weighted_ngram_match_score": _weighted_ngram_match(ref_grams, hyp_grams, matches),
        "syntax_match_score": sum(sum(1 for t in r.subtrees if t in h.subtree_set) for r, h in zip(refs, hyps)) / syntax_total,
        "dataflow_match_score": sum(_flow_matches(r, h) for r, h in zip(refs, hyps)) / flow_total if flow_total else 0.0,
    }
    a, b, c, d = weights
    total = (a * parts["ngram_match_score"] + b * parts["weighted_ngram_match_score"]
             + c * parts["syntax_match_score"] + d * (parts["dataflow_match_score"] or 1))
    return {"codebleu": total, **parts}
