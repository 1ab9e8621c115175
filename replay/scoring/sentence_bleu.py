"""Sentence BLEU with sacrebleu's numbers, from n-gram statistics kept per text.

`sacrebleu.metrics.BLEU(tokenize="13a", smooth_method="exp", effective_order=True)
.sentence_score(hypothesis, [reference])` (sacrebleu 2.6) sets up a reference cache and
tokenizes both texts on every call; scoring many pairs, that set-up is most of the time. Here a
text is tokenized and its n-grams counted once (cached by content), the match statistics of a
pair are counted from the two counts, and the score follows sacrebleu's `BLEU.compute_bleu`
operation for operation, so that every number is the one `sentence_score` gives (tests compare
them on thousands of pairs).

The tokenizer is sacrebleu's 13a (sacrebleu/tokenizers/tokenizer_13a.py and tokenizer_re.py):
the same steps in the same order; its first rule (spaces around each character of a class) is
one `str.translate`, which gives the same text as the rule's regular expression, since that
expression matches single characters.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from itertools import chain

MAX_ORDER = 4

# sacrebleu/tokenizers/tokenizer_re.py: r'([\{-\~\[-\` -\&\(-\+\:-\@\/])' -> r' \1 '.
_SPACED = "".join(chr(c) for lo, hi in ((0x7B, 0x7E), (0x5B, 0x60), (0x20, 0x26), (0x28, 0x2B), (0x3A, 0x40), (0x2F, 0x2F))
                  for c in range(lo, hi + 1))
_SPACE_AROUND = str.maketrans({c: f" {c} " for c in _SPACED})
# The rules after it, each with a replacement equal to the original template's.
_DOT_AFTER_NON_DIGIT = re.compile(r"([^0-9])([\.,])")  # r'\1 \2 '
_DOT_BEFORE_NON_DIGIT = re.compile(r"([\.,])([^0-9])")  # r' \1 \2'
_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")  # r'\1 \2 '


def tokenize_13a(text: str) -> list[str]:
    """The tokens sacrebleu's BLEU scores of `text` (its `_preprocess_segment`: rstrip, 13a)."""
    line = text.rstrip().replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} ".translate(_SPACE_AROUND)
    if "." in line or "," in line:
        line = _DOT_AFTER_NON_DIGIT.sub(lambda m: f"{m[1]} {m[2]} ", line)
        line = _DOT_BEFORE_NON_DIGIT.sub(lambda m: f" {m[1]} {m[2]}", line)
    if "-" in line:
        line = _DASH_AFTER_DIGIT.sub(lambda m: f"{m[1]} {m[2]} ", line)
    return line.split()


@lru_cache(maxsize=1 << 15)
def ngram_counts(text: str) -> tuple[int, Counter[tuple[str, ...]]]:
    """(token count, n-gram counts of orders 1..4) of a text, as sacrebleu counts them."""
    tokens = tokenize_13a(text)
    return len(tokens), Counter(chain.from_iterable(zip(*(tokens[i:] for i in range(n))) for n in range(1, MAX_ORDER + 1)))


def statistics(reference: str, hypothesis: str) -> tuple[list[int], list[int], int, int]:
    """(correct, total per n-gram order, hypothesis length, reference length) of one pair: the
    hypothesis has max(0, length - n + 1) n-grams of order n, and an n-gram of both texts
    matches as often as the fewer of the two have it."""
    ref_len, ref = ngram_counts(reference)
    hyp_len, hyp = ngram_counts(hypothesis)
    correct = [0] * MAX_ORDER
    for gram in hyp.keys() & ref.keys():
        correct[len(gram) - 1] += min(hyp[gram], ref[gram])
    return correct, [max(0, hyp_len - n) for n in range(MAX_ORDER)], hyp_len, ref_len


def sentence_bleu(reference: str, hypothesis: str) -> float:
    """sacrebleu's sentence BLEU of `hypothesis` against `reference`, divided by 100."""
    correct, total, hyp_len, ref_len = statistics(reference, hypothesis)
    return from_statistics(correct, total, hyp_len, ref_len) / 100.0


def from_statistics(correct: list[int], total: list[int], hyp_len: int, ref_len: int) -> float:
    """BLEU (0..100) as sacrebleu's `BLEU.compute_bleu` gives it with smooth_method="exp",
    effective_order=True and 4 orders, the same operations in the same order: no match at all
    is 0; the brevity penalty exp(1 - r/h) when h < r; precision 100*c/t per order, an order
    without a match 100/(2^k * t) for its k-th such order (mteval's smoothing); the geometric
    mean over the orders up to the last one the hypothesis has n-grams of."""
    if not any(correct):
        return 0.0
    bp = 1.0
    if hyp_len < ref_len:
        bp = math.exp(1 - ref_len / hyp_len) if hyp_len > 0 else 0.0
    logs = []
    smooth = 1.0
    for n in range(MAX_ORDER):
        if total[n] == 0:
            break
        if correct[n] == 0:
            smooth *= 2
            logs.append(math.log(100.0 / (smooth * total[n])))
        else:
            logs.append(math.log(100.0 * correct[n] / total[n]))
    return bp * math.exp(sum(logs) / len(logs))
