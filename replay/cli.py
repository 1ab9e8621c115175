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


# === editor pipelines: render, verify (issue 3) ===========================================


# === tokens, audit, assets (issue 4) ======================================================


# === benchmark items, corpus, scoring, reports (issue 5) ==================================


# === replay runs, export, demo (issue 6) ==================================================


# === the TUI (issue 7) ====================================================================
@cli.command("tui")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The store file (default: fimreplay.db in the user data dir; $FIMREPLAY_DB).")
@click.option("--watch", "watch_dirs", multiple=True, type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Also tail this capture folder and import what is written to it (repeatable).")
@click.option("--tokenizer", default=None, help="Tokenizer spec for prompt tokens (default: the demo model's).")
def tui_command(db_path: Path | None, watch_dirs: tuple[Path, ...], tokenizer: str | None) -> None:
    """The Textual app: live captures, replay dashboard, item/audit views, runs."""
    try:
        from tui.app import create_app  # lazy: the library never loads textual
    except ImportError as exc:
        raise WorkFailure(f"the TUI is not installed: {exc}") from exc
    try:
        app = create_app(db_path, watch_dirs, tokenizer=tokenizer)
    except (StoreError, OSError) as exc:
        raise UsageFailure(str(exc)) from exc
    app.run()


if __name__ == "__main__":
    main()
