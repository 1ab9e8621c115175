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


@cli.command("render")
@db_option
@click.argument("input_path", metavar="IN.jsonl", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--editor", type=click.Choice(["tabby", "continue", "standard"]), required=True, help="The editor profile.")
@click.option("--editor-version", default=None, help="The editor release whose rules apply (default: the newest).")
@click.option("--model", required=True, help="Model name (registry id, HF or GGUF name, GGUF path) or FIM family.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Output JSONL (default: stdout).")
@click.option("--keep-going", is_flag=True, help="Count and keep bad lines in a rejects file instead of stopping.")
@json_option
def render_cmd(store: Store, input_path: Path, editor: str, editor_version: str | None, model: str, output: Path | None,
               keep_going: bool, as_json: bool) -> None:
    """Rebuild, for each input line, the exact prompt the editor would send (one JSON line out per input).

    Takes --db like every command (the CLI contract); rendering itself reads nothing from the store."""
    from replay.editors.render_file import RenderFailure, render_file

    try:
        summary = render_file(input_path, editor, model, editor_version, output, keep_going)
    except RenderFailure as exc:
        raise (UsageFailure if exc.usage else WorkFailure)(str(exc)) from exc
    if as_json:  # with the prompts on stdout, the summary object goes to stderr
        click.echo(json.dumps(summary, ensure_ascii=False), err=output is None)
    elif output is not None or summary["rejected"]:
        click.echo(f"rendered {summary['rendered']}, rejected {summary['rejected']}"
                   + (f" (kept in {summary['rejects_file']})" if summary["rejected"] else ""), err=output is None)


@cli.command("verify")
@db_option
@json_option
@click.option("--editor", type=click.Choice(["tabby", "continue"]), default=None, help="Only this editor's captures.")
@click.option("--model", default=None, help="Template model for captures whose log names none (Tabby's never does).")
@click.option("--editor-version", default=None, help="Editor release for captures that do not record one.")
def verify_cmd(store: Store, as_json: bool, editor: str | None, model: str | None, editor_version: str | None) -> None:
    """Rebuild every captured prompt from its logged segments and compare byte for byte (exit 1 on a mismatch)."""
    from replay.editors.verify import verify

    where, params = ("editor = ?", (editor,)) if editor else ("", ())
    report = verify(((cid, rec) for cid, rec, _ in store.captures(where, params)), model=model, version=editor_version)
    if as_json:
        emit_json(report.as_dict())
    else:
        share = f" ({100 * report.matched / report.checked:.1f}%)" if report.checked else ""
        skipped = ", ".join(f"{n} {why}" for why, n in report.skipped.items()) or "none"
        click.echo(f"checked {report.checked}, matched {report.matched}{share}, mismatched {len(report.mismatches)}, "
                   f"errors {len(report.errors)}; skipped: {skipped}")
        for m in report.mismatches:
            click.echo(f"{m['source']}: differs at byte {m['offset']}: logged {m['logged']!r} rebuilt {m['rebuilt']!r}")
        for e in report.errors:
            click.echo(f"{e['source']}: {e['reason']}")
    if not report.ok:
        sys.exit(1)



# === tokens, audit, assets (issue 4) ======================================================


# === benchmark items, corpus, scoring, reports (issue 5) ==================================


# === replay runs, export, demo (issue 6) ==================================================


# === the TUI (issue 7) ====================================================================


if __name__ == "__main__":
    main()
