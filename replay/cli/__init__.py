"""The `fimreplay` command: each command parses its options, calls one use case
(replay.usecases) and prints the result. `fimreplay --help` lists the commands by task.

    app       the group, help sections, the one mapping of failures to stderr and exit codes
    capture   import, watch, captures
    proxy     proxy (record an editor's requests on the wire)
    runs      render, postprocess, run, export, import-results, demo
    score     evalgen, corpus, score, report
    compare   compare, leaderboard
    inspect   verify, tokens, audit, tui; assets
"""

from __future__ import annotations

from replay.cli import capture, compare, inspect, proxy, runs, score  # noqa: F401 - each module registers its commands
from replay.cli.app import cli, main

__all__ = ["cli", "main"]
