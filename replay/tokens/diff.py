"""Token diffs: where two id sequences differ, as plain data the CLI and the TUI both render.

The alignment is rapidfuzz's Levenshtein opcodes over the id sequences (not the text), so a
single different merge at a template seam shows as one small replace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from rapidfuzz.distance import Levenshtein

from replay.tokens.tokenizer import Tokenizer


def first_difference(a: Sequence, b: Sequence) -> int:
    """The first index where two sequences (bytes, text, ids) differ; the shorter length when
    one is a prefix of the other."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


@dataclass(frozen=True)
class DiffOp:
    tag: str  # equal | replace | insert | delete
    a_start: int
    a_end: int
    b_start: int
    b_end: int
    a_ids: list[int]
    b_ids: list[int]
    a_pieces: list[str]
    b_pieces: list[str]
    a_char: int  # character offset of the op's first token in side A's decoded text
    b_char: int


@dataclass(frozen=True)
class TokenDiff:
    a_label: str
    b_label: str
    a_len: int
    b_len: int
    distance: int
    ops: list[DiffOp] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return self.distance == 0

    def changes(self) -> list[DiffOp]:
        return [op for op in self.ops if op.tag != "equal"]

    def to_dict(self) -> dict:
        return {**asdict(self), "identical": self.identical}


def _char_offsets(pieces: Sequence[str]) -> list[int]:
    out, pos = [], 0
    for p in pieces:
        out.append(pos)
        pos += len(p)
    out.append(pos)
    return out


def diff_ids(a: Sequence[int], b: Sequence[int], a_pieces: Sequence[str], b_pieces: Sequence[str], *,
             a_label: str = "a", b_label: str = "b") -> TokenDiff:
    """Align two id sequences (pieces are carried along for display)."""
    a, b = list(a), list(b)
    a_off, b_off = _char_offsets(a_pieces), _char_offsets(b_pieces)
    ops = [DiffOp(tag, i1, i2, j1, j2, a[i1:i2], b[j1:j2], list(a_pieces[i1:i2]), list(b_pieces[j1:j2]), a_off[i1], b_off[j1])
           for tag, i1, i2, j1, j2 in Levenshtein.opcodes(a, b).as_list()]
    return TokenDiff(a_label, b_label, len(a), len(b), Levenshtein.distance(a, b), ops)


def diff_texts(a_text: str, b_text: str, tokenizer: Tokenizer, *, a_label: str = "a", b_label: str = "b") -> TokenDiff:
    """Two renderings (logged vs rebuilt, editor vs editor) under one tokenizer."""
    a, b = tokenizer.encode(a_text), tokenizer.encode(b_text)
    return diff_ids(a, b, tokenizer.pieces(a), tokenizer.pieces(b), a_label=a_label, b_label=b_label)


def diff_tokenizers(text: str, a: Tokenizer, b: Tokenizer) -> TokenDiff:
    """One text under two tokenizers (e.g. exact GGUF vs transformers' GGUF import).

    Ids of different vocabularies are not comparable, so the alignment runs over the pieces'
    text; the ids are reported beside them."""
    a_ids, b_ids = a.encode(text), b.encode(text)
    a_p, b_p = a.pieces(a_ids), b.pieces(b_ids)
    keys: dict[str, int] = {}
    a_keys = [keys.setdefault(p, len(keys)) for p in a_p]
    b_keys = [keys.setdefault(p, len(keys)) for p in b_p]
    base = diff_ids(a_keys, b_keys, a_p, b_p, a_label=a.spec, b_label=b.spec)
    ops = [DiffOp(op.tag, op.a_start, op.a_end, op.b_start, op.b_end, a_ids[op.a_start:op.a_end], b_ids[op.b_start:op.b_end],
                  op.a_pieces, op.b_pieces, op.a_char, op.b_char) for op in base.ops]
    return TokenDiff(base.a_label, base.b_label, base.a_len, base.b_len, base.distance, ops)
