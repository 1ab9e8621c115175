"""How much the editor profiles cost over the bare library calls they stand on.

Prints, for cursors in real Solidity files: the standard profile (binary search on real token
counts) against one plain encode of the same prompt with the same tokenizer, and the Tabby
profile (agent + server stage, pure text) against a bare `str.format` of the template.
Run from the repository root: python -m bench.speed.editors_render [N_CURSORS]
"""

from __future__ import annotations

import sys

from bench.support import solidity_cursors, timed
from replay.editors import render
from replay.editors.templates import get_family
from replay.tokens.tokenizer import load_tokenizer


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    items = solidity_cursors(n)
    tok = load_tokenizer("qwen2.5-coder")
    qwen = get_family("qwen2.5-coder")
    render("standard", items[0], "qwen2.5-coder")  # load once, outside the timing
    std = timed(lambda i: render("standard", i, "qwen2.5-coder"), items)
    bare = timed(lambda i: tok.encode(qwen.render(i.prefix, i.suffix)), items)
    print(f"standard profile: {std / n * 1000:.1f} ms/item; one bare encode of the untruncated prompt: "
          f"{bare / n * 1000:.1f} ms/item; ratio {std / bare:.1f}x")
    tab = timed(lambda i: render("tabby", i, "TabbyML/Qwen2.5-Coder-1.5B"), items)
    fmt = timed(lambda i: qwen.render(i.prefix, i.suffix), items)
    print(f"tabby profile: {tab / n * 1000:.2f} ms/item; bare template fill: {fmt / n * 1000:.3f} ms/item; ratio {tab / fmt:.0f}x")


if __name__ == "__main__":
    main()
