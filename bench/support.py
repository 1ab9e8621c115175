"""What the benchmarks share: the checkout they measure, the cursors they render at, and the
clock they time a loop with."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from replay.assets import asset_path
from replay.records import EditorInput, Snippet

ROOT = Path(__file__).resolve().parent.parent


def solidity_cursors(n: int, snippet: bool = False) -> list[EditorInput]:
    """`n` cursors at seeded random offsets of real Solidity files (the OpenZeppelin asset),
    each with its file path, workspace and language; with `snippet`, the first 2,000
    characters of another random file as an opened-file snippet."""
    root = Path(asset_path("openzeppelin-contracts")) / "package"
    files = sorted(root.rglob("*.sol"))
    rng = random.Random(3)
    out = []
    for _ in range(n):
        path = rng.choice(files)
        text = path.read_text(encoding="utf-8")
        cut = rng.randint(0, len(text))
        snippets = ()
        if snippet:
            other = rng.choice(files)
            snippets = (Snippet(filepath=str(other), content=other.read_text(encoding="utf-8")[:2000], kind="opened"),)
        out.append(EditorInput(prefix=text[:cut], suffix=text[cut:], filepath=str(path), workspace=str(root),
                               language="solidity", snippets=snippets))
    return out


def timed(fn: Callable[[Any], object], items: Iterable[Any]) -> float:
    """Seconds of `fn` over every item, one after another."""
    start = time.perf_counter()
    for item in items:
        fn(item)
    return time.perf_counter() - start
