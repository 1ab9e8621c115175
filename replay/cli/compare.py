"""Compare commands: two runs pair by pair, and a leaderboard of models on the same items."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from replay.cli.app import Names, Progress, cli, cutoff_option, db_option, emit_json, json_option, warn
from replay.cli.editor_option import EDITOR_HELP, editor_option
from replay.cli.score import lines_option, reference_option, text_option
from replay.cli.time_options import budget_option, speed_option

if TYPE_CHECKING:
    from replay.store import Store


def _metrics() -> tuple[str, ...]:
    from replay.usecases.compare import METRIC_NAMES

    return METRIC_NAMES


def _formats() -> tuple[str, ...]:
    from replay.usecases.leaderboard import FORMATS

    return FORMATS


def _sequential_methods() -> tuple[str, ...]:
    from replay.usecases.compare import METHODS

    return tuple(METHODS)


def _default_method() -> str:
    from replay.usecases.compare import DEFAULT_METHOD

    return DEFAULT_METHOD


def method_option(flag: str) -> Any:
    """`--method`: the confidence sequence of a comparison file by file (`flag` names the option
    it goes with); the default read from the statistics module when used."""
    return click.option("--method", type=Names(_sequential_methods), default=_default_method,
                        help=f"{flag}: asymptotic (the default: as wide as the per-file differences' spread, it decides at "
                        "the few dozen files comparisons have; valid as files grow many, its error rate at 10-60 files "
                        "measured) or betting (valid at any number of files, assuming only that differences are bounded; "
                        "needs at least log(1/alpha)/log(1+|d|) files for a difference d).")


def _backends() -> tuple[str, ...]:
    from replay.backends import BACKENDS

    return BACKENDS


metric_option = click.option("--metric", type=Names(_metrics), default="indel", show_default=True, help="The metric compared.")
seed_option = click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap intervals.")


@cli.task("compare", "score")
@click.argument("a")
@click.argument("b", required=False)
@click.option("--against", type=click.Choice(["logged"]), default=None,
              help="Compare run A with the completions its captures' editor logged (what the user was shown), "
                   "both scored against the same references; no B then.")
@metric_option
@lines_option
@text_option
@reference_option
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the bootstrap intervals (with --sequential: of the order the files are looked at in).")
@click.option("--sequential", is_flag=True, help="Look at the files one by one in a seeded order and stop when decided "
              "(an anytime-valid confidence sequence).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="--sequential: the error rate allowed.")
@method_option("--sequential")
@click.option("--margin", type=float, default=None,
              help="--sequential: also stop when the difference lies within ±MARGIN (default: never).")
@speed_option
@budget_option
@click.option("--in-time", is_flag=True, help="Pair the runs' in-time scores (an answer not shown in time counted as "
              "nothing shown) instead of their scores.")
@json_option
@db_option
def compare_cmd(a: str, b: str | None, against: str | None, metric: str, lines: Any, text: str, reference: Any, seed: int,
                sequential: bool, alpha: float, method: str, margin: float | None, speed: Any, budget_ms: float | None,
                in_time: bool, as_json: bool, store: Store) -> None:
    """B against A, item by item: runs in the store or `score` JSONL files, paired by item id.

    Prints the mean of per-file differences (B − A), its paired bootstrap 95% interval over files,
    B's wins, ties and losses per item, and the verdict; unpaired items are counted. With
    --sequential: the verdict of an anytime-valid comparison file by file, and how many items it used.
    Over no item scored on both sides: why, and exit 1."""
    from replay.usecases.compare import LOGGED, compare, compare_sequential
    from replay.usecases.score import NothingScored

    if (b is None) == (against is None):
        raise click.UsageError("give B, or --against logged (not both)")
    b = b or LOGGED

    if sequential:
        result: Any = compare_sequential(store, a, b, metric, lines, text, alpha, margin, seed, warn=warn, method=method,
                                         reference=reference, speed=speed, budget_ms=budget_ms, in_time=in_time)
    else:
        result = compare(store, a, b, metric, lines, text, seed, warn=warn, reference=reference, speed=speed,
                         budget_ms=budget_ms, in_time=in_time)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(result.summary())
    nothing = getattr(result.result, "nothing_scored", None)
    if nothing:
        raise NothingScored(nothing)


@cli.task("leaderboard", "score")
@click.argument("items", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--model", "models", multiple=True, required=True, help="A model as `run --model` takes it (repeat).")
@editor_option(joined=True, help=EDITOR_HELP.removesuffix(".") + " (default: standard).")
@click.option("--backend", type=Names(_backends), default="llamacpp", show_default=True)
@click.option("--endpoint", "endpoints", multiple=True, help="Server base URL (HTTP backends).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True, help="Requests in flight (HTTP backends).")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="llamacpp backend: CPU threads.")
@click.option("--ctx", type=click.IntRange(min=16), default=1024, show_default=True, help="Context length (tokens).")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=None,
              help="Tokens to generate (default: the profile's own; 128 for standard).")
@metric_option
@lines_option
@seed_option
@cutoff_option
@click.option("--until-decided", is_flag=True, help="Replay file by file in a seeded order (--seed) and stop each model's "
              "replay once its anytime-valid comparison with the best is decided.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="--until-decided: the error rate allowed.")
@method_option("--until-decided")
@click.option("--margin", type=float, default=None,
              help="--until-decided: also stop when the difference lies within ±MARGIN (default: never).")
@budget_option
@click.option("--format", "fmt", type=Names(_formats), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write here instead of stdout.")
@db_option
def leaderboard_cmd(items: Path, models: tuple[str, ...], editor: str | None, backend: str, endpoints: tuple[str, ...],
                    concurrency: int, threads: int | None, ctx: int, max_new_tokens: int | None, metric: str, lines: Any,
                    seed: int, cutoff: str | None, until_decided: bool, alpha: float, method: str, margin: float | None,
                    budget_ms: float | None, fmt: str, output: Path | None, store: Store) -> None:
    """Rank models on the same items (resumable, cached runs; the shown text scored), each with
    its paired difference to the best and the 95% interval of that difference; or, with
    --until-decided, each compared with the best so far until that comparison is decided."""
    from replay.usecases.leaderboard import GenParams, LeaderboardRequest, leaderboard, render

    req = LeaderboardRequest(str(items), models, editor, backend, metric, lines, GenParams(ctx=ctx, max_new_tokens=max_new_tokens),
                             endpoints, concurrency, {"n_threads": threads} if threads else {}, cutoff, seed, until_decided,
                             alpha, margin, method, budget_ms)
    board = leaderboard(store, req, on_progress=Progress.on_terminal(fmt == "json"), say=warn, warn=warn)
    page = render(board, fmt, output)
    if output is None:
        click.echo(page, nl=False)
    else:
        click.echo(f"leaderboard of {len(models)} model(s) -> {output}", err=True)
