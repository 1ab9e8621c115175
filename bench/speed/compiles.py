"""The compiles metric on real items: items/s the first time (every file compiled by solc-js) and
again (all from the content-hash cache), against the bare compiler loop on the same sources.

Run: python -m bench.speed.compiles ITEMS.jsonl [--items 100]
The completion judged is the first half of each middle (a likely compile error), as a model cut
short would give. The bare loop is solc-js itself in one node process, fed the same original and
completed files, with no cache: what the metric costs beyond the compiler.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import msgspec

from replay.scoring import compiles
from replay.records import FimItem


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("items", type=Path)
    ap.add_argument("--items", dest="n", type=int, default=100)
    args = ap.parse_args()
    items = [msgspec.json.decode(line, type=FimItem) for line in args.items.read_bytes().splitlines()][: args.n]
    cases = [(it, it.middle[: len(it.middle) // 2]) for it in items]
    sources = []
    for it, completion in cases:
        found = compiles.original_file(it)
        if found is not None:
            text, base, name = found
            sources += [(name, text, base), (name, text[: it.start] + completion + text[it.end :], base)]
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "compiles.sqlite"  # empty: the first pass compiles everything
        t = time.perf_counter()
        solc = compiles.Solc(cache)
        for name, text, base in sources:
            solc.compile(name, text, base)
        solc.close()
        bare = time.perf_counter() - t
        t = time.perf_counter()
        values = compiles.compiles_many(cases, cache)
        first = time.perf_counter() - t
        t = time.perf_counter()
        compiles.compiles_many(cases, cache)
        again = time.perf_counter() - t
    judged = [v for v in values if v is not None]
    print(f"{len(cases)} items ({len(sources)} compilations bare): bare solc-js loop {len(cases) / bare:.1f} items/s;"
          f" compiles first {len(cases) / first:.1f} items/s ({bare / first:.2f}x bare), again {len(cases) / again:,.0f} items/s;"
          f" mean {sum(judged) / max(1, len(judged)):.2f} over {len(judged)} judged")


if __name__ == "__main__":
    main()
