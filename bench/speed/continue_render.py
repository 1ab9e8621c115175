"""What the Continue profile costs over the bare tokenizer calls it stands on.

For cursors in real Solidity files (OpenZeppelin asset), prints the Continue profile's time per
item against one bare encode of the same prefix+suffix with the same counting tokenizer
(Continue's Llama tokenizer for qwen2.5-coder, js-tiktoken cl100k_base for gpt-4o), and the ratio.
Run from the repository root: python -m bench.speed.continue_render [N_CURSORS]
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from replay.assets import asset_path
from replay.editors.continue_ import tokens as ct
from replay.editors.continue_.prompt import render
from replay.records import EditorInput, Snippet


def cursors(n: int) -> list[EditorInput]:
    root = Path(asset_path("openzeppelin-contracts")) / "package"
    files = sorted(root.rglob("*.sol"))
    rng = random.Random(3)
    out = []
    for _ in range(n):
        path = rng.choice(files)
        text = path.read_text(encoding="utf-8")
        cut = rng.randint(0, len(text))
        other = rng.choice(files)
        snippet = Snippet(filepath=str(other), content=other.read_text(encoding="utf-8")[:2000], kind="opened")
        out.append(EditorInput(prefix=text[:cut], suffix=text[cut:], filepath=str(path), workspace=str(root), snippets=(snippet,)))
    return out


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    items = cursors(n)
    for model in ("qwen2.5-coder:1.5b", "gpt-4o"):
        render(items[0], model)  # load the tokenizer outside the timing
        start = time.perf_counter()
        for item in items:
            render(item, model)
        profile = time.perf_counter() - start
        start = time.perf_counter()
        for item in items:
            ct.encode(item.prefix + item.suffix, model)
        bare = time.perf_counter() - start
        print(f"continue profile, {model} ({ct.counting_tokenizer(model)} counting): {profile / n * 1000:.1f} ms/item; "
              f"one bare encode of prefix+suffix: {bare / n * 1000:.1f} ms/item; ratio {profile / bare:.1f}x")


if __name__ == "__main__":
    main()
