"""Capture commands: import capture files, list them, watch folders."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from replay.cli.app import Names, cli, db_option, emit_json, json_option, rejects_option, warn

if TYPE_CHECKING:
    from replay.store import Store


def _formats() -> tuple[str, ...]:
    from replay.importers.formats import NAMES

    return NAMES


format_option = click.option("--format", "fmt", type=Names(_formats), default=None,
                             help="Force the format instead of detecting it per file.")


@cli.task("import", "capture")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@format_option
@rejects_option
@db_option
@json_option
def import_cmd(paths: tuple[Path, ...], fmt: str | None, rejects_path: Path | None, store: Store, as_json: bool) -> None:
    """Import capture files or folders (Tabby events, Continue dev data, console, prompt.log)."""
    from replay.usecases.capture import import_captures

    summary = import_captures(store, paths, fmt, rejects_path, warn=warn)
    if as_json:
        emit_json(summary.to_json())
        return
    click.echo(f"imported {summary.imported}, duplicates {summary.duplicates}, outcomes {summary.outcomes}, "
               f"ignored {summary.ignored}, rejected {summary.rejected}")
    for name, per in summary.by_format.items():
        click.echo(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in per.items()))
    if summary.rejects_file:
        click.echo(f"rejects: {summary.rejects_file}")


@cli.task("watch", "capture")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@format_option
@rejects_option
@db_option
@json_option
def watch_cmd(dirs: tuple[Path, ...], fmt: str | None, rejects_path: Path | None, store: Store, as_json: bool) -> None:
    """Tail capture folders and import new records as they are written (Ctrl-C stops)."""
    import signal
    import threading

    from replay.usecases.capture import watch

    def report(path: Path, summary: Any) -> None:
        if as_json:
            emit_json({"file": str(path), **summary.to_json()})
        else:
            click.echo(f"{path}: imported {summary.imported}, outcomes {summary.outcomes}, duplicates "
                       f"{summary.duplicates}, ignored {summary.ignored}, rejected {summary.rejected}")

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    say = (lambda s: None) if as_json else (lambda s: click.echo(s, err=True))
    watch(store, dirs, stop=done.is_set, on_imported=report, fmt=fmt, rejects_path=rejects_path, say=say, warn=warn)


@cli.task("captures", "capture")
@click.option("--limit", type=int, default=None, help="Show at most this many captures.")
@click.option("--full", is_flag=True, help="With --json: add route, http_status, request (as sent, secrets scrubbed) and completion.")
@db_option
@json_option
def captures_cmd(limit: int | None, full: bool, store: Store, as_json: bool) -> None:
    """List the stored captures (one JSON object per line with --json, each with its reference:
    what the user typed at its cursor, else the accepted text, or null and why)."""
    from replay.usecases.capture import list_captures

    for c in list_captures(store, limit, full=full and as_json, references=as_json):
        if as_json:
            emit_json(c.to_json())
        else:
            click.echo(f"{c.id:>6}  {c.editor:<8} {c.outcome:<13} {c.language or '-':<12} {c.model or '-':<28} {c.source}")
