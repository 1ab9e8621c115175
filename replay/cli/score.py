"""Score commands: benchmark items from real code, named corpora, scores and reports."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from replay.cli.app import Names, cli, cutoff_option, db_option, emit_json, json_option, warn
from replay.cli.time_options import budget_option, speed_option

if TYPE_CHECKING:
    from replay.store import Store


def _modes() -> tuple[str, ...]:
    from replay.usecases.benchmark import MODES

    return MODES


def _benchmarks() -> tuple[str, ...]:
    from replay.usecases.benchmark import benchmark_formats

    return benchmark_formats()


def _texts() -> tuple[str, ...]:
    from replay.usecases.score import TEXTS

    return TEXTS


def _report_formats() -> tuple[str, ...]:
    from replay.usecases.score import REPORT_FORMATS

    return REPORT_FORMATS



@cli.task("evalgen", "score")
@click.argument("corpora", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Items JSONL to write.")
@click.option("--from", "benchmark", type=Names(_benchmarks), default=None,
              help="Read FILE, a public benchmark's file in this layout, as items (docs/benchmarks.md), instead of cutting raw code.")
@click.option("--ext", "exts", multiple=True, default=("sol",), show_default=True, help="File extensions to take (repeatable).")
@click.option("--per-file", type=click.IntRange(min=1), default=3, show_default=True, help="Items per file.")
@click.option("--mode", type=Names(_modes), default="line", show_default=True)
@click.option("--lines", "mask_lines", type=click.IntRange(min=1), default=1, show_default=True, help="Lines masked (line mode).")
@click.option("--min-middle", type=click.IntRange(min=1), default=3, show_default=True, help="Fewest middle characters (span mode).")
@click.option("--max-middle", type=click.IntRange(min=0), default=0, show_default=True, help="Most middle characters (span mode; 0: no limit).")
@click.option("--chars-per-token", type=click.FloatRange(min=0, min_open=True), default=2.0, show_default=True, help="Characters per faketoken.")
@click.option("--chunk-tokens", type=click.IntRange(min=1), default=1024, show_default=True, help="Chunk size in faketokens.")
@click.option("--seed", type=int, default=42, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes that plan the files (default: 1 below 8 MB of source, else every core).")
@click.option("--new-code-only", is_flag=True,
              help="Middles only in the lines the corpus added since its older version (corpus add --since).")
@click.option("--code-only", is_flag=True,
              help="Every middle holds code, not only comments (tree-sitter comment nodes; files of a language without a grammar are skipped).")
@click.option("--newer-than", default=None, metavar="DATE|MODEL",
              help="Keep only items written after this day or this model's training-data cutoff (lines dated by git blame:"
                   " middles only in lines all newer; new code of a dated corpus).")
@json_option
@db_option
def evalgen_cmd(corpora: tuple[str, ...], output: Path, benchmark: str | None, exts: tuple[str, ...], per_file: int, mode: str,
                mask_lines: int, min_middle: int, max_middle: int, chars_per_token: float, chunk_tokens: int, seed: int,
                workers: int | None, new_code_only: bool, code_only: bool, newer_than: str | None, as_json: bool,
                store: Store) -> None:
    """Benchmark items (prefix, middle, suffix) from raw code: folders, files or corpus names;
    or, with --from FORMAT, read from one public benchmark's file."""
    from replay.usecases.benchmark import EvalgenOptions, evalgen, evalgen_from

    if benchmark is not None:
        _only_file(corpora, benchmark)
        summary = evalgen_from(store, Path(corpora[0]), benchmark, output, warn=warn)
        if as_json:
            emit_json(summary)
        else:
            click.echo(f"{summary['n_items']} {benchmark} items of {summary['n_files']} files from {summary['n_rows']} rows"
                       f" -> {output} ({summary['n_rejects']} rejected)")
        return

    opts = EvalgenOptions(per_file=per_file, mode=mode, lines=mask_lines, min_middle=min_middle,  # type: ignore[arg-type]
                          max_middle=max_middle, chars_per_token=chars_per_token, chunk_tokens=chunk_tokens, seed=seed,
                          code_only=code_only)
    s = evalgen(store, corpora, output, opts, exts, workers, warn=warn, new_code_only=new_code_only, newer_than=newer_than)
    if as_json:
        emit_json(s)
    else:
        click.echo(f"{s['n_items']} items from {s['n_files_used']} of {s['n_files_seen']} files -> {output}"
                   f" ({len(s['skipped'])} skipped, {len(s['short'])} short)")
        if newer_than:
            click.echo(f"not newer than {s['newer_than']['date']}, left out: {s.get('n_lines_not_newer', 0)} lines dated by"
                       f" git blame ({s.get('n_files_not_newer', 0)} whole files), {s['n_not_newer']} items of other corpora")


# The options that cut items from raw code (none applies to a benchmark's own items).
_CUTTING = ("exts", "per_file", "mode", "mask_lines", "min_middle", "max_middle", "chars_per_token", "chunk_tokens", "seed",
            "workers", "new_code_only", "code_only", "newer_than")


def _only_file(corpora: tuple[str, ...], benchmark: str) -> None:
    """--from reads one file as it is: no second file, and none of the options that cut raw code."""
    if len(corpora) != 1:
        raise click.UsageError(f"--from {benchmark} reads one benchmark file, not {len(corpora)}")
    ctx = click.get_current_context()
    cutting = [p.opts[-1] for p in ctx.command.params if p.name in _CUTTING
               and ctx.get_parameter_source(p.name) is click.core.ParameterSource.COMMANDLINE]
    if cutting:
        raise click.UsageError(f"--from {benchmark} reads the benchmark's own items: {', '.join(cutting)} only apply to cutting raw code")


@cli.task("corpus", "score", group=True)
def corpus_group() -> None:
    """Named corpora of real code (npm packages, local folders)."""


@corpus_group.command("add")
@click.argument("spec", metavar="SPEC")
@click.option("--name", default=None, help="Corpus name (default: from the package name and version).")
@click.option("--ext", "exts", multiple=True, default=("sol",), show_default=True)
@click.option("--force", is_flag=True, help="Make it again even if it exists.")
@click.option("--date", default=None, help="The version's publication day (YYYY-MM-DD), trusted over every other source.")
@click.option("--since", default=None, help="An older version (a spec): record which lines are new since it.")
@click.option("--since-date", default=None, help="The older version is the newest published before this day.")
@json_option
def corpus_add_cmd(spec: str, name: str | None, exts: tuple[str, ...], force: bool, date: str | None, since: str | None,
                   since_date: str | None, as_json: bool) -> None:
    """Add `npm:NAME@VERSION` (unpacked with `npm pack`), an `npm pack` .tgz, `git:URL[@REF]` (a
    remote or file:// URL or a local repository, at a branch, tag or commit) or a local folder as
    a named corpus, dated (CHANGELOG, git, registry, --date); a git repository's lines (and a
    folder's in a git work tree) each by git blame -w -M -C."""
    from replay.usecases.benchmark import add_corpus

    info = add_corpus(spec, name, exts, force, date=date, since=since, since_date=since_date, progress=warn)
    if as_json:
        emit_json(info)
    else:
        click.echo(f"{info['name']}: {info['n_files']} files in {info['root']}; {_dated(info)}")
        for note in (info.get("published") or {}).get("notes", []):
            warn(f"{info['name']}: {note}")


def _dated(info: dict[str, Any]) -> str:
    """"published 2024-05-01 (changelog)[, new code since SPEC (DAY): N lines in M files]"."""
    when = info.get("published") or {}
    text = f"published {when['date']} ({when['source']})" if when.get("date") else "publication date unknown"
    new = info.get("new_code")
    if new:
        text += f", new code since {new['since']} ({new.get('since_date') or 'date unknown'}): {new['n_lines']} lines in {new['n_files']} files"
    lines = info.get("blame")
    if lines:
        text += (f", {lines['n_lines']} lines in {lines['n_files']} files dated by git blame at {lines['commit'][:12]}"
                 f" ({(lines['oldest'] or '?')[:10]} to {(lines['newest'] or '?')[:10]}"
                 f"{', %d uncommitted' % lines['n_uncommitted'] if lines['n_uncommitted'] else ''}"
                 f"{', %d files undated' % len(lines['failed']) if lines['failed'] else ''})")
    return text


@corpus_group.command("list")
@json_option
def corpus_list_cmd(as_json: bool) -> None:
    """The named corpora, with their source and file count."""
    from replay.usecases.benchmark import list_corpora

    infos = list_corpora()
    if as_json:
        emit_json({"corpora": infos})
    else:
        for i in infos:
            click.echo(f"{i['name']}\t{i['source']}\t{i['n_files']} files\t{_dated(i)}\t{i.get('tarball_sha256') or ''}")


def _lines(ctx: click.Context, param: click.Parameter, value: str) -> Any:
    from replay.usecases.score import parse_lines

    try:
        return parse_lines(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


lines_option = click.option("--lines", default="auto", show_default=True, callback=_lines,
                            help="Lines scored: auto (as many as the reference has), all, or N (the seed used 1).")
text_option = click.option("--text", "text", type=Names(_texts), default="shown", show_default=True,
                           help="Score what the editor showed, or the raw text it received (cut at the stop words).")
reference_option = click.option(
    "--reference", type=click.Choice(["typed", "accepted"]), default="typed", show_default=True,
    help="What a replayed capture is scored against: what the user typed at its cursor, read from the later captures of "
         "the file (else the accepted text), or the accepted text only.")
workers_option = click.option("--workers", type=click.IntRange(min=1), default=None,
                              help="Processes scoring a large batch (default: every core; the scores are the same).")


@cli.task("score", "score")
@click.argument("source")
@lines_option
@text_option
@reference_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap interval.")
@workers_option
@click.option("--compiles", is_flag=True, help="Also compile each file with the completion in place (Solidity: solc-js).")
@click.option("--execute", is_flag=True,
              help="Also run each benchmark item's tests with the completion in place (pass@1, pass@k); a file is then of"
                   " items as evalgen --from writes them, each with a completion.")
@speed_option
@budget_option
@json_option
@db_option
def score_cmd(source: str, lines: Any, text: str, reference: str, seed: int, workers: int | None, compiles: bool, execute: bool,
              speed: Any, budget_ms: float | None, as_json: bool, store: Store) -> None:
    """Score a run in the store, or a JSONL of {file, reference, completion} lines; says how many
    items were scored and why the others were not (none scored: exit 1); a run's time beside its
    score, and its in-time score (an answer not shown in time counted as nothing shown)."""
    from replay.usecases.score import NothingScored, score_result, score_table
    from replay.usecases.timing import scored_run_time

    result = score_result(store, source, lines, text, seed, warn=warn, workers=workers, compiles=compiles,  # type: ignore[arg-type]
                          reference=reference, execute=execute)  # type: ignore[arg-type]
    timed = (scored_run_time(store, source, lines, text, seed, reference, speed, budget_ms)  # type: ignore[arg-type]
             if result.run is not None else None)
    if as_json:
        emit_json({**result.to_json(), **(timed.to_json() if timed is not None else {})})
    else:
        click.echo(score_table(result))
        for line in timed.lines() if timed is not None else []:
            click.echo(line)
    if result.nothing_scored:
        raise NothingScored(f"{source}: {result.nothing_scored}")


@cli.task("report", "score")
@click.argument("runs", nargs=-1)
@click.option("--acceptance", is_flag=True, help="Instead of runs: acceptance and retention of what the editors showed, by editor, "
              "release, language and model, and how well each score of the shown text against what the user typed predicts "
              "acceptance (AUC, 95% interval).")
@click.option("--format", "fmt", type=Names(_report_formats), default="md", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Write here instead of stdout.")
@lines_option
@text_option
@reference_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap intervals.")
@workers_option
@cutoff_option
@speed_option
@budget_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object on stdout (--format json).")
@db_option
def report_cmd(runs: tuple[str, ...], acceptance: bool, fmt: str, output: Path | None, lines: Any, text: str, reference: str,
               seed: int, workers: int | None, cutoff: str | None, speed: Any, budget_ms: float | None, as_json: bool,
               store: Store) -> None:
    """Side-by-side report of runs in the store (Markdown, CSV, JSON or a self-contained HTML
    page); two runs are also compared pair by pair (the second minus the first). With
    --acceptance (no runs): what users accepted and kept, and which score predicts it."""
    from replay.usecases.score import NothingScored, report

    if acceptance == bool(runs):
        raise click.UsageError("give RUNS, or --acceptance (not both)")
    if acceptance:
        _acceptance(store, seed, workers, output, as_json)
        return
    if as_json:
        ctx = click.get_current_context()
        if ctx.get_parameter_source("fmt") is not click.core.ParameterSource.DEFAULT and fmt != "json":
            raise click.UsageError(f"--json prints the report as JSON: not with --format {fmt}")
        fmt = "json"
    done = report(store, runs, fmt, output, lines, text, seed, workers, cutoff, speed, reference, budget_ms)  # type: ignore[arg-type]
    for note in done.notes:
        warn(note)
    if output is None:
        click.echo(done.page, nl=False)
    else:
        click.echo(f"report of {len(runs)} run(s) -> {output}", err=True)
    if done.nothing_scored:
        raise NothingScored(f"the report judges nothing: {done.nothing_scored}")


def _acceptance(store: Store, seed: int, workers: int | None, output: Path | None, as_json: bool) -> None:
    """`report --acceptance`: the Markdown page (or its JSON), exit 1 when no outcome is logged."""
    from replay.usecases.acceptance import acceptance_report
    from replay.usecases.score import NothingScored

    done = acceptance_report(store, seed, workers, None if as_json else output)
    if as_json:
        emit_json(done.data)
    elif output is None:
        click.echo(done.page, nl=False)
    else:
        click.echo(f"acceptance report -> {output}", err=True)
    if done.nothing_scored:
        raise NothingScored(done.nothing_scored)
