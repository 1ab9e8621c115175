"""CodeBLEU for any tree-sitter language, Solidity included, with the `codebleu` package's numbers.

CodeBLEU (Ren et al. 2020, arXiv:2009.10297) = a*BLEU + b*keyword-weighted BLEU + c*AST match +
d*data-flow match. The `codebleu` package (0.7.0, k4black/codebleu) has no Solidity, and the
seed scored Solidity with its JavaScript grammar. This module computes the four parts itself
from a language description (grammar, keywords, data-flow extractor, comment stripper), so that
Solidity is scored over tree-sitter-solidity, and it follows the package's exact arithmetic so
that, for a language the package knows, the numbers are the same (tests prove it on Python):

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
replay/solidity.py.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import tree_sitter

DfgFunction = Callable[[Any, dict, dict], tuple[list, dict]]


@dataclass(frozen=True)
class CodeBleuLanguage:
    """What CodeBLEU needs to know about a language."""

    name: str
    grammar: Callable[[], Any]  # returns the tree-sitter language pointer
    keywords: frozenset[str]
    dataflow: DfgFunction
    strip_comments: Callable[[str], str]


def _package_keywords(lang: str) -> frozenset[str]:
    import codebleu

    path = Path(codebleu.__file__).parent / "keywords" / f"{lang}.txt"
    return frozenset(x.strip() for x in path.read_text(encoding="utf-8").splitlines())


def _package_language(lang: str) -> CodeBleuLanguage:
    """A language the `codebleu` package supports, described with the package's own parts."""
    from codebleu.dataflow_match import dfg_function
    from codebleu.parser import remove_comments_and_docstrings
    from codebleu.utils import get_tree_sitter_language

    return CodeBleuLanguage(
        name=lang,
        grammar=lambda: get_tree_sitter_language(lang),
        keywords=_package_keywords(lang),
        dataflow=dfg_function[lang],
        strip_comments=lambda s: remove_comments_and_docstrings(s, lang),
    )


@lru_cache(maxsize=None)
def language(name: str) -> CodeBleuLanguage:
    """The CodeBLEU description of `name`: solidity (ours) or one of the package's languages."""
    if name == "solidity":
        import tree_sitter_solidity

        from replay import solidity

        return CodeBleuLanguage(name="solidity", grammar=tree_sitter_solidity.language, keywords=solidity.keywords(),
                                dataflow=solidity.dfg_solidity, strip_comments=solidity.strip_comments)
    from codebleu.utils import AVAILABLE_LANGS

    if name not in AVAILABLE_LANGS:
        raise KeyError(f"CodeBLEU has no language {name!r} (solidity, {', '.join(AVAILABLE_LANGS)})")
    return _package_language(name)


@lru_cache(maxsize=None)
def _parser(name: str) -> tree_sitter.Parser:
    lang = language(name)
    grammar = lang.grammar()
    return tree_sitter.Parser(grammar if isinstance(grammar, tree_sitter.Language) else tree_sitter.Language(grammar))


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(zip(*(tokens[i:] for i in range(n)))) if len(tokens) >= n else Counter()


def _combine(numerators: list[float], denominators: list[int], hyp_len: int, ref_len: int) -> float:
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


def ngram_match(references: Sequence[list[str]], hypotheses: Sequence[list[str]]) -> float:
    """Corpus BLEU-4 (clipped precision), one reference per hypothesis."""
    num = [0.0] * 4
    den = [0] * 4
    hyp_len = ref_len = 0
    for ref, hyp in zip(references, hypotheses):
        for n in range(1, 5):
            h, r = _ngrams(hyp, n), _ngrams(ref, n)
            num[n - 1] += sum(min(c, r[g]) for g, c in h.items())
            den[n - 1] += max(1, sum(h.values()))
        hyp_len += len(hyp)
        ref_len += len(ref)
    return _combine(num, den, hyp_len, ref_len)


def weighted_ngram_match(references: Sequence[list[str]], hypotheses: Sequence[list[str]], keywords: frozenset[str]) -> float:
    """Corpus BLEU-4 over n-gram recall, unigrams weighted 1 (keyword) or 0.2 (other token)."""
    num = [0.0] * 4
    den = [0] * 4
    hyp_len = ref_len = 0
    for ref, hyp in zip(references, hypotheses):
        weights = {t: 1 if t in keywords else 0.2 for t in ref}
        for n in range(1, 5):
            h, r = _ngrams(hyp, n), _ngrams(ref, n)
            clipped = {g: min(c, h[g]) for g, c in r.items()}
            if n == 1:
                num[0] += sum(c * weights[g[0]] for g, c in clipped.items())
                den[0] += max(1, sum(c * weights[g[0]] for g, c in r.items()))  # type: ignore[call-overload]
            else:
                num[n - 1] += sum(clipped.values())
                den[n - 1] += max(1, sum(r.values()))
        hyp_len += len(hyp)
        # The package measures the "closest reference length" on its [tokens, weights] pair,
        # whose length is 2 (codebleu/weighted_ngram_match.py closest_ref_length): kept.
        ref_len += 2
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


def syntax_match(references: Sequence[str], hypotheses: Sequence[str], name: str) -> float:
    lang, parser = language(name), _parser(name)
    matched = total = 0
    for ref, hyp in zip(references, hypotheses):
        cand = set(_subtrees(parser.parse(_without_comments(hyp, lang).encode("utf-8")).root_node))
        ref_trees = _subtrees(parser.parse(_without_comments(ref, lang).encode("utf-8")).root_node)
        matched += sum(1 for t in ref_trees if t in cand)
        total += len(ref_trees)
    return matched / total


def data_flow(code: str, name: str) -> list[tuple[str, str, list[str]]]:
    """The normalised data-flow edges of `code`: (variable, relation, [sources]) renamed var_i."""
    from codebleu.parser import index_to_code_token, tree_to_token_index

    lang, parser = language(name), _parser(name)
    try:
        root = parser.parse(code.encode("utf-8")).root_node
        spans = tree_to_token_index(root)
        lines = code.split("\n")
        index_to_code = {span: (i, index_to_code_token(span, lines)) for i, span in enumerate(spans)}
        try:
            edges, _ = lang.dataflow(root, index_to_code, {})
        except Exception:
            edges = []
        edges = sorted(edges, key=lambda e: e[1])
        linked = {e[1] for e in edges if e[-1]} | {x for e in edges for x in e[-1]}
        edges = [e for e in edges if e[1] in linked]
    except Exception:
        edges = []
    merged: dict[int, tuple] = {}
    for e in edges:
        if e[1] in merged:
            old = merged[e[1]]
            merged[e[1]] = (e[0], e[1], e[2], list(set(old[3] + e[3])), list(set(old[4] + e[4])))
        else:
            merged[e[1]] = e
    names: dict[str, str] = {}
    out = []
    for var, _, relation, sources, _ in merged.values():
        for s in [*sources, var]:
            names.setdefault(s, f"var_{len(names)}")
        out.append((names[var], relation, [names[s] for s in sources]))
    return out


def dataflow_match(references: Sequence[str], hypotheses: Sequence[str], name: str) -> float:
    lang = language(name)
    matched = total = 0
    for ref, hyp in zip(references, hypotheses):
        cand = data_flow(_without_comments(hyp, lang), name)
        ref_flow = data_flow(_without_comments(ref, lang), name)
        total += len(ref_flow)
        for edge in ref_flow:
            if edge in cand:
                matched += 1
                cand.remove(edge)
    return matched / total if total else 0.0


def calc_codebleu(references: Sequence[str], hypotheses: Sequence[str], lang: str,
                  weights: tuple[float, float, float, float] = (0.25, 0.25, 0.25, 0.25)) -> dict[str, float]:
    """CodeBLEU of hypotheses against one reference each; keys as `codebleu.calc_codebleu`."""
    if len(references) != len(hypotheses):
        raise ValueError("as many references as hypotheses are needed")
    refs = [r.strip() for r in references]
    hyps = [h.strip() for h in hypotheses]
    ref_tokens = [r.split() for r in refs]
    hyp_tokens = [h.split() for h in hyps]
    parts = {
        "ngram_match_score": ngram_match(ref_tokens, hyp_tokens),
        "weighted_ngram_match_score": weighted_ngram_match(ref_tokens, hyp_tokens, language(lang).keywords),
        "syntax_match_score": syntax_match(refs, hyps, lang),
        "dataflow_match_score": dataflow_match(refs, hyps, lang),
    }
    a, b, c, d = weights
    total = (a * parts["ngram_match_score"] + b * parts["weighted_ngram_match_score"]
             + c * parts["syntax_match_score"] + d * (parts["dataflow_match_score"] or 1))
    return {"codebleu": total, **parts}
