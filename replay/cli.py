"""The `fimreplay` command: a thin click layer over the library.

Contract (DESIGN.md): every command takes `--db PATH`; summaries print one JSON object on stdout
with `--json`; exit 0 on success, 1 when the work failed, 2 for bad usage or bad input with a
one-line reason that names the file and line.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from replay import __version__
from replay.store import Store, StoreError, open_store


class UsageFailure(click.ClickException):
    """Bad usage or bad input: one line on stderr, exit 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"fimreplay: {self.format_message()}", err=True)


class WorkFailure(click.ClickException):
    """The work itself failed: one line on stderr, exit 1."""

    exit_code = 1

    def show(self, file: Any = None) -> None:
        click.echo(f"fimreplay: {self.format_message()}", err=True)


def db_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add `--db PATH` and pass an open Store as `store` (closed when the command ends)."""

    @click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="The store file (default: fimreplay.db in the user data dir; $FIMREPLAY_DB).")
    @functools.wraps(fn)
    def wrapper(*args: Any, db_path: Path | None, **kwargs: Any) -> Any:
        try:
            store = open_store(db_path)
        except (StoreError, OSError) as exc:
            raise UsageFailure(str(exc)) from exc
        try:
            return fn(*args, store=store, **kwargs)
        finally:
            store.close()

    return wrapper


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")(fn)


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False, sort_keys=False))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name="fimreplay")
def cli() -> None:
    """fimreplay: replay what code editors really send to fill-in-the-middle models."""


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="fimreplay", standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("fimreplay: interrupted", err=True)
        sys.exit(130)


# === capture import, listing and watch (issue 2) ==========================================


_FORMAT_CHOICE = click.Choice(["tabby", "continue-devdata", "continue-console", "continue-jetbrains"])


def _reject_log(rejects: Path | None) -> Any:
    from replay.importers.common import RejectLog

    return RejectLog(path=rejects, stderr=sys.stderr)


@cli.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=_FORMAT_CHOICE, default=None, help="Force the format instead of detecting it per file.")
@click.option("--rejects", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where rejected records go (JSONL; default: rejects/ in the user data dir).")
@db_option
@json_option
def import_cmd(paths: tuple[Path, ...], fmt: str | None, rejects: Path | None, store: Store, as_json: bool) -> None:
    """Import capture files or folders (Tabby events, Continue dev data, console, prompt.log)."""
    from replay.importers.importer import Importer

    for p in paths:
        if not p.exists():
            raise UsageFailure(f"{p}: no such file or directory")
    log = _reject_log(rejects)
    try:
        with Importer(store, log, fmt) as importer:
            summary = importer.import_paths(paths)
    finally:
        log.close()
    if as_json:
        emit_json(summary.to_json())
        return
    click.echo(f"imported {summary.imported}, duplicates {summary.duplicates}, outcomes {summary.outcomes}, "
               f"ignored {summary.ignored}, rejected {summary.rejected}")
    for name, per in summary.by_format.items():
        click.echo(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in per.items()))
    if summary.rejects_file:
        click.echo(f"rejects: {summary.rejects_file}")


@cli.command("captures")
@click.option("--limit", type=int, default=None, help="Show at most this many captures.")
@db_option
@json_option
def captures_cmd(limit: int | None, store: Store, as_json: bool) -> None:
    """List the stored captures (one JSON object per line with --json)."""
    for cid, rec, outcome in store.captures(limit=limit):
        row = {"id": cid, "completion_id": rec.completion_id, "editor": rec.editor, "model": rec.model,
               "language": rec.language, "filepath": rec.filepath, "outcome": outcome, "source": rec.source.where()}
        if as_json:
            emit_json(row)
        else:
            click.echo(f"{cid:>6}  {rec.editor:<8} {outcome:<13} {rec.language or '-':<12} {rec.model or '-':<28} {row['source']}")


@cli.command("watch")
@click.argument("dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=_FORMAT_CHOICE, default=None, help="Force the format instead of detecting it per file.")
@click.option("--rejects", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where rejected records go (JSONL; default: rejects/ in the user data dir).")
@db_option
@json_option
def watch_cmd(dirs: tuple[Path, ...], fmt: str | None, rejects: Path | None, store: Store, as_json: bool) -> None:
    """Tail capture folders and import new records as they are written (Ctrl-C stops)."""
    import signal
    import threading

    from replay.importers.watch import Watcher

    for d in dirs:
        if not d.is_dir():
            raise UsageFailure(f"{d}: not a directory")

    def report(path: Path, summary: Any) -> None:
        if as_json:
            emit_json({"file": str(path), **summary.to_json()})
        else:
            click.echo(f"{path}: imported {summary.imported}, outcomes {summary.outcomes}, duplicates "
                       f"{summary.duplicates}, ignored {summary.ignored}, rejected {summary.rejected}")

    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    watcher = Watcher(store, dirs, on_imported=report, fmt=fmt, rejects=_reject_log(rejects))
    watcher.start()
    if not as_json:
        click.echo(f"watching {', '.join(str(d) for d in dirs)} (Ctrl-C stops)", err=True)
    try:
        while not done.wait(0.2):
            if watcher.error is not None:
                break
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
    if watcher.error is not None:
        raise WorkFailure(f"watch failed: {watcher.error}")


# === editor pipelines: render, verify (issue 3) ===========================================


# === tokens, audit, assets (issue 4) ======================================================


# === benchmark items, corpus, scoring, reports (issue 5) ==================================


# === replay runs, export, demo (issue 6) ==================================================


# === the TUI (issue 7) ====================================================================


if __name__ == "__main__":
    main()
