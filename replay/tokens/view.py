"""What `fimreplay tokens` shows: ids and pieces of a text, optionally per engine or as a diff.

Plain data first (`tokens_view`, also what --json prints), then a text rendering with
whitespace made visible.
"""

from __future__ import annotations

from replay.tokens.diff import TokenDiff, diff_tokenizers
from replay.tokens.engine import engine_ids
from replay.tokens.pieces import visible
from replay.tokens.tokenizer import Tokenizer


def tokens_view(text: str, tok: Tokenizer, *, engine: str | None = None, special: bool = True,
                other: Tokenizer | None = None) -> dict:
    """`{"ids", "pieces", "count", "tokenizer", ...}` for `text`; with `engine` the ids that
    engine receives (BOS by its rule) and with `other` a token diff against a second tokenizer."""
    if engine:
        e = engine_ids(tok, text, engine)
        if not special:
            e = type(e)(e.engine, ([tok.bos_id] if e.bos_added else []) + tok.encode(text, special=False),  # type: ignore[list-item]
                        e.bos_added, False, e.source)
        ids = e.ids
        extra = {"engine": e.engine, "bos_added": e.bos_added, "parse_special": e.parse_special, "engine_rule": e.source}
    else:
        ids = tok.encode(text, special=special)
        extra = {"parse_special": special}
    out = {"tokenizer": tok.spec, "ids": ids, "pieces": tok.pieces(ids), "count": len(ids),
           "special": [i for i, t in enumerate(ids) if tok.is_special(t)], "add_bos": tok.add_bos, "bos_id": tok.bos_id, **extra}
    if other is not None:
        out["diff"] = diff_tokenizers(text, tok, other).to_dict()
    return out


def render_text(view: dict) -> str:
    """One line per token: index, id, piece with whitespace made visible (special tokens marked)."""
    special = set(view["special"])
    head = f"{view['tokenizer']}: {view['count']} tokens"
    if "engine" in view:
        head += f" as {view['engine']} receives them (BOS {'added' if view['bos_added'] else 'not added'})"
    lines = [head]
    for i, (tid, piece) in enumerate(zip(view["ids"], view["pieces"])):
        mark = " special" if i in special else ""
        lines.append(f"{i:5} {tid:7} {visible(piece)}{mark}")
    if "diff" in view:
        lines.append(render_diff(view["diff"]))
    return "\n".join(lines)


def render_diff(diff: dict | TokenDiff) -> str:
    d = diff.to_dict() if isinstance(diff, TokenDiff) else diff
    lines = [f"diff {d['a_label']} ({d['a_len']} tokens) vs {d['b_label']} ({d['b_len']} tokens): "
             + ("identical" if d["identical"] else f"{d['distance']} edits")]
    for op in d["ops"]:
        if op["tag"] == "equal":
            continue
        a = " ".join(visible(p) for p in op["a_pieces"]) or "∅"
        b = " ".join(visible(p) for p in op["b_pieces"]) or "∅"
        lines.append(f"  {op['tag']:7} a[{op['a_start']}:{op['a_end']}] {op['a_ids']} {a!s}  ->  "
                     f"b[{op['b_start']}:{op['b_end']}] {op['b_ids']} {b!s}")
    return "\n".join(lines)
