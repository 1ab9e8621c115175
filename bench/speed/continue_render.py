"""What the Continue profile costs over the bare tokenizer calls it stands on.

For cursors in real Solidity files (OpenZeppelin asset), prints the Continue profile's time per
item against one bare encode of the same prefix+suffix with the same counting tokenizer
(Continue's Llama tokenizer for qwen2.5-coder, js-tiktoken cl100k_base for gpt-4o), and the ratio.
Run from the repository root: python -m bench.speed.continue_render [N_CURSORS]
"""

from __future__ import annotations

import sys

from bench.support import solidity_cursors, timed
from replay.editors.continue_ import tokens as ct
from replay.editors.continue_.profile import render


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    items = solidity_cursors(n, snippet=True)
    for model in ("qwen2.5-coder:1.5b", "gpt-4o"):
        render(items[0], model)  # load the tokenizer outside the timing
        profile = timed(lambda i: render(i, model), items)  # noqa: B023 (timed runs it now)
        bare = timed(lambda i: ct.encode(i.prefix + i.suffix, model), items)  # noqa: B023
        print(f"continue profile, {model} ({ct.counting_tokenizer(model)} counting): {profile / n * 1000:.1f} ms/item; "
              f"one bare encode of prefix+suffix: {bare / n * 1000:.1f} ms/item; ratio {profile / bare:.1f}x")


if __name__ == "__main__":
    main()
