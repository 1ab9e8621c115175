"""The options and lines of a run's time (docs/replay-and-scores.md, "Time beside quality"):
`--speed`, shared by run, score, report and compare, and the latency line printed under a
run's figures."""

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


def latency_line(latency: Any) -> str:
    """A run's time under its score table: the median and p90 to the whole answer, the share shown in time."""
    from replay.usecases.score import latency_columns

    cells = latency_columns(latency)
    where = f"at {latency.speed}" if latency.speed else "measured"
    return (f"latency ({where}, {latency.n} answers): p50 {cells['p50 ms']} ms, p90 {cells['p90 ms']} ms;"
            f" shown in time: {cells['in time']} judged ({latency.unknown} unknown)")
