"""The options and lines of a run's time (docs/replay-and-scores.md, "Time beside quality"):
`--speed`, shared by run, score, report and compare, `--latency-budget` (score, report, compare,
leaderboard); the latency line printed under a run's figures is replay.latency.summary.line."""

from __future__ import annotations

from typing import Any

import click


def _speed(ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
    from replay.errors import UsageError
    from replay.usecases.score import parse_speed

    try:
        return None if value is None else parse_speed(value)
    except UsageError as exc:
        raise click.BadParameter(str(exc)) from exc


speed_option = click.option("--speed", default=None, callback=_speed, metavar="prefill=TOK/s,decode=TOK/s,overhead=MS",
                            help="Project the runs' time onto hardware of this speed (default: as measured in the run).")


budget_option = click.option(
    "--latency-budget", "budget_ms", type=click.FloatRange(min=0, min_open=True), default=None, metavar="MS",
    help="Judge every answer by this budget instead of the editor's timing rules: one whose whole text took longer "
         "was not shown (the in-time score counts it as nothing shown).")
