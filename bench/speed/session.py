"""`fimreplay session`'s virtual clock against the wall clock: the typing sessions of a file run
through an editor's client, how many sessions a second and how many times faster than the
typing they simulate.

    python -m bench.speed.session [examples/sessions.jsonl] [--editor llama.vim] [--passes 20]

Not a test: speeds depend on the machine (docs/figures.md says where each figure was measured).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from replay.editors import profile
from replay.session.format import parse_session
from replay.session.simulate import simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sessions", nargs="?", default="examples/sessions.jsonl")
    parser.add_argument("--editor", default="llama.vim")
    parser.add_argument("--model", default=None)
    parser.add_argument("--passes", type=int, default=20)
    args = parser.parse_args()
    name, _, version = args.editor.partition("@")
    prof = profile(name)[0]
    sessions = [parse_session(line) for line in Path(args.sessions).read_text(encoding="utf-8").splitlines() if line.strip()]
    count, typed_ms, requests = 0, 0.0, 0
    start = time.perf_counter()
    for _ in range(args.passes):
        for s in sessions:
            out = simulate(s, lambda host, s=s: prof.live_client(host, version or None, s.options, args.model, s.filepath,
                                                                   s.language), args.editor)
            count, typed_ms, requests = count + 1, typed_ms + s.events[-1].t_ms, requests + len(out.requests)
    wall = time.perf_counter() - start
    print(f"{count} sessions ({typed_ms / 1000:.0f} s of typing, {requests} requests) in {wall:.2f} s: "
          f"{count / wall:.0f} sessions/s, {typed_ms / 1000 / wall:.0f}x the typing's own time")


if __name__ == "__main__":
    main()
