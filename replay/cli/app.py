"""The command group, its help by task, the one place a failure becomes a line on stderr, and
what every command shares (`--db`, `--json`, printing).

Contract: every command that reads or writes the store takes `--db PATH`; summaries print one
JSON object on stdout with `--json`; exit 0 on success, 1 when the work failed, 2 for bad usage
or bad input, with a one-line reason that names the file and line. Never a traceback: an error
the library did not foresee is one line too, with its type (FIMREPLAY_TRACEBACK=1 shows it).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import click

from replay import __version__
from replay.errors import exit_code, one_line

# Help sections, in the order `fimreplay --help` shows them.
SECTIONS = {"capture": "Capture", "replay": "Replay", "score": "Score", "inspect": "Inspect", "setup": "Set up"}


class Failure(click.ClickException):
    """Any failure of a command, shown as one line on stderr with its exit code."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(one_line(error))
        self.exit_code = exit_code(error)

    def show(self, file: Any = None) -> None:
        click.echo(f"fimreplay: {self.format_message()}", err=True)


class TaskGroup(click.Group):
    """Commands registered with a help section; failures of any of them mapped here, once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sections: dict[str, str] = {}

    def task(self, name: str, section: str, group: bool = False, **kwargs: Any) -> Callable[[Callable[..., Any]], Any]:
        """`@cli.task("import", "capture")`: a command (or a sub-group) shown under `section`."""
        if section not in SECTIONS:
            raise ValueError(f"unknown help section {section!r}")
        make = super().group if group else super().command

        def register(fn: Callable[..., Any]) -> click.Command:
            cmd = make(name, **kwargs)(fn)
            self.sections[name] = section
            return cmd

        return register

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        width = max((len(n) for n in self.list_commands(ctx)), default=0)
        limit = formatter.width - 6 - width
        for section, title in SECTIONS.items():
            rows = []
            for name in self.list_commands(ctx):
                cmd = self.get_command(ctx, name)
                if cmd is not None and not cmd.hidden and self.sections.get(name) == section:
                    rows.append((name.ljust(width), cmd.get_short_help_str(limit)))  # one column across sections
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)  # registration order: the order of the task

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:  # before click, which would exit 1 on it
            stop_on_closed_pipe()
        except KeyboardInterrupt:
            # Ctrl-C: one line and the shell's code for SIGINT (click alone would say "Aborted!",
            # exit 1); what was committed stays, and a stopped run is marked interrupted.
            click.echo("fimreplay: interrupted", err=True)
            raise click.exceptions.Exit(130) from None
        except Exception as exc:
            if os.environ.get("FIMREPLAY_TRACEBACK"):
                raise
            raise Failure(exc) from exc


@click.group(cls=TaskGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, prog_name="fimreplay")
def cli() -> None:
    """fimreplay: replay what code editors really send to fill-in-the-middle models."""


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="fimreplay", standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("fimreplay: interrupted", err=True)
        sys.exit(130)



def stop_on_closed_pipe() -> NoReturn:
    """End quietly, exit 0, when whoever reads stdout closed it (`fimreplay captures | head -1`).

    As `cat` does, nothing is said: the reader stopped reading what it did not want, which is
    neither bad usage nor failed work. `cat` dies of SIGPIPE (status 141); exit 0 instead keeps
    the command's codes to the contract's 0/1/2, so a script under `set -o pipefail` that reads
    only the first lines does not fail. What the command committed (store rows) stays. stdout is
    pointed at /dev/null first, as Python's documentation recommends (library/signal.html, "Note
    on SIGPIPE"): the interpreter flushes stdout at exit, and writing the rest of the buffer to
    the closed pipe would print the error all the same."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    sys.exit(0)


# -- what commands share -----------------------------------------------------------------------
def db_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add `--db PATH` and pass an open Store as `store` (closed when the command ends); the
    command's rejects files that were given no path go beside that store."""

    @click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                  help="The store file (default: fimreplay.db in the user data dir; $FIMREPLAY_DB); rejects/ beside it.")
    @functools.wraps(fn)
    def wrapper(*args: Any, db_path: Path | None, **kwargs: Any) -> Any:
        from replay.rejects import beside_store
        from replay.store import open_store
        from replay.usecases.base import store_failure

        store = open_store(db_path)
        try:
            with beside_store(store.path):
                return fn(*args, store=store, **kwargs)
        except Exception as exc:
            failure = store_failure(store, exc)
            if failure is exc:
                raise
            raise failure from None
        finally:
            for note in store.skipped:  # rows left out as unreadable: named, the command went on
                warn(note)
            store.close()

    return wrapper


class Names(click.Choice):
    """A choice of names kept by a registry (backends, log formats, report formats...), read
    when the option is first used or shown: a command that does not need the registry's module
    does not pay for importing it, and `fimreplay --help` stays quick."""

    def __init__(self, names: Callable[[], Sequence[str]]) -> None:
        self._names = names
        super().__init__(())

    @property  # type: ignore[override]
    def choices(self) -> Sequence[str]:
        return tuple(self._names())

    @choices.setter
    def choices(self, value: Sequence[str]) -> None:
        pass  # always the registry's


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")(fn)


def cutoff_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`--cutoff DATE`: the model's training-data cutoff where the known table (replay.cutoffs) has none."""
    return click.option("--cutoff", default=None, metavar="YYYY-MM-DD",
                        help="The model's training-data cutoff, when the known table has none.")(fn)


def rejects_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--rejects", "rejects_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help="Where rejected inputs go (JSONL; default: rejects/ beside the store).")(fn)


def emit_json(obj: Any, err: bool = False) -> None:
    click.echo(json.dumps(obj, ensure_ascii=False), err=err)


def warn(text: str) -> None:
    """A note on stderr (a rejected input, a short file), the output on stdout untouched."""
    click.echo(f"fimreplay: {text}", err=True)


def app_factory() -> Callable[..., Any]:
    """The terminal UI's app factory, found through the `fimreplay.ui` entry point (pyproject.toml):
    the library names no UI package, so it stays importable and scriptable without Textual."""
    from importlib.metadata import entry_points

    from replay.errors import WorkError

    found = entry_points(group="fimreplay.ui", name="tui")
    if not found:
        raise WorkError("the TUI is not installed: install fimreplay (pip install -e .) to register it")
    try:
        return next(iter(found)).load()
    except ImportError as exc:
        raise WorkError(f"the TUI cannot be loaded: {exc}") from exc


class Progress:
    """A progress line with ETA on stderr, fed by a run's on_progress (any thread)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.started = time.monotonic()
        self.first: int | None = None
        self.lock = threading.Lock()
        self.clock = time.monotonic

    @classmethod
    def on_terminal(cls, as_json: bool) -> Progress:
        """Shown only to a person: not with --json, not when stderr is a file or a pipe."""
        return cls(not as_json and sys.stderr.isatty())

    def __call__(self, done: int, total: int, completion: Any) -> None:
        if not self.enabled:
            return
        with self.lock:
            if self.first is None:
                self.first = done
            fresh = done - self.first
            elapsed = self.clock() - self.started
            eta = "?" if fresh <= 0 else f"{elapsed / fresh * (total - done):.0f}s"
            width = 30
            filled = int(width * done / total) if total else width
            click.echo(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} ETA {eta}  ", err=True, nl=done >= total)
