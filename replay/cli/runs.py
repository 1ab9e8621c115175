"""Replay commands: render prompts and post-process outputs as an editor would, replay inputs
against a model into a run, batch export and import, and the demo."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from replay.cli.app import (
    Names,
    Progress,
    app_factory,
    cli,
    cutoff_option,
    db_option,
    emit_json,
    json_option,
    warn,
)
from replay.cli.editor_option import EDITOR_HELP, editor_option
from replay.cli.time_options import speed_option
from replay.errors import UsageError, WorkError

if TYPE_CHECKING:
    from replay.store import Store
    from replay.usecases.render import LineFileSummary
    from replay.usecases.score import Speed


def _backends() -> tuple[str, ...]:
    from replay.backends import BACKENDS

    return BACKENDS


def _export_formats() -> tuple[str, ...]:
    from replay.usecases.replay import EXPORT_FORMATS

    return EXPORT_FORMATS


input_argument = click.argument("input_path", metavar="IN.jsonl", type=click.Path(dir_okay=False, path_type=Path))
model_option = click.option("--model", required=True,
                            help="The model, named as for `run`: `default` (the demo GGUF), a model asset (`fimreplay assets "
                                 "list`) or a GGUF file; else a name the editor matches on (registry id, HF or GGUF name) "
                                 "or a FIM family.")
output_option = click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
                             help="Output JSONL (default: stdout).")
keep_going_option = click.option("--keep-going", is_flag=True, help="Count and keep bad lines in a rejects file instead of stopping.")
foreign_sentinels_option = click.option(
    "--allow-foreign-sentinels", is_flag=True,
    help="Replay prompts whose template sentinels are not tokens of the model's vocabulary (another model's template: "
         "the model reads them as text) instead of stopping.")


def file_summary(summary: LineFileSummary, done: str, as_json: bool) -> None:
    """The summary of a line-by-line command: with the rows on stdout, it goes to stderr. Rejected
    lines (each already told on stderr) are counted there with their file, whatever the format;
    a file none of whose lines could be used is bad input (exit 2), as for `run`."""
    if as_json:
        emit_json(summary.to_json(), err=summary.to_stdout)
    elif not summary.to_stdout:
        click.echo(done)
    if summary.rejected:
        warn(f"rejected {summary.rejected} of the {summary.lines} lines of {summary.input} (kept in {summary.rejects_file})")
    if summary.rejected and not summary.done:
        raise UsageError(f"{summary.input}: every line was rejected, nothing {summary.command}")


@cli.task("render", "replay")
@db_option
@input_argument
@editor_option(required=True)
@model_option
@output_option
@keep_going_option
@json_option
def render_cmd(store: Store, input_path: Path, editor: str, editor_version: str | None, model: str, output: Path | None,
               keep_going: bool, as_json: bool) -> None:
    """Rebuild, for each input line, the exact prompt the editor would send (one JSON line out per input).

    Takes --db like every command (the CLI contract); rendering itself reads nothing from the store."""
    from replay.usecases.render import render

    summary = render(input_path, editor, model, editor_version, output, keep_going, warn)
    file_summary(summary, f"rendered {summary.done}", as_json)


@cli.task("postprocess", "replay")
@db_option
@input_argument
@editor_option(required=True)
@click.option("--model", default=None,
              help="The model, named as for `render` (needed unless --received with an editor whose client stage reads no "
                   "model, as Tabby's).")
@output_option
@keep_going_option
@click.option("--editor-timing", is_flag=True,
              help="Apply the editor's time-based cuts from each line's `timing`, and read the stream's chunks from it "
              "(Copilot's block cut and repetition filter look at chunks; off: the model's tokens stand in, lines without --model; results do "
              "not depend on speed).")
@click.option("--received", is_flag=True,
              help="`raw` is what the editor's client received from its server (already cut by the server's stop words): run the client's stage only.")
@json_option
def postprocess_cmd(store: Store, input_path: Path, editor: str, editor_version: str | None, model: str | None,
                    output: Path | None, keep_going: bool, editor_timing: bool, received: bool, as_json: bool) -> None:
    """What the editor shows of each line's `raw` model text: a render input plus `raw` in, one line out.

    Out: id, shown_text (null: nothing shown), replace_after, multiline, trace. Takes --db like every command."""
    from replay.usecases.render import postprocess

    s = postprocess(input_path, editor, model, editor_version, output, keep_going, editor_timing, received, warn)
    file_summary(s, f"postprocessed {s.done} ({s.done - (s.shown or 0)} shown nothing)", as_json)


@cli.task("session", "replay")
@db_option
@input_argument
@editor_option(required=True)
@click.option("--model", default=None,
              help="The model, named as for `render`: the body of an editor that builds its prompt for one (not llama.vim's).")
@output_option
@keep_going_option
@json_option
def session_cmd(store: Store, input_path: Path, editor: str, editor_version: str | None, model: str | None,
                output: Path | None, keep_going: bool, as_json: bool) -> None:
    """Drive the editor through each typing session of IN.jsonl in time (its debounce, cancels, caches, late answers).

    Out, one line per session: id, editor, requests (n, t_ms, after_event, body, outcome), shown, document.
    Takes --db like every command."""
    from replay.usecases.session import session_file

    summary = session_file(input_path, editor, editor_version, model, output, keep_going, warn)
    file_summary(summary, f"simulated {summary.done}", as_json)


@cli.task("run", "replay")
@click.argument("source")
@click.option("--backend", type=Names(_backends), default="llamacpp", show_default=True)
@click.option("--model", default="default", show_default=True,
              help="`default` (the demo GGUF), a model asset (`fimreplay assets list`), a GGUF file, an HF folder, or a "
                   "name the server knows.")
@editor_option(joined=True, help=EDITOR_HELP.removesuffix(".") + " (default: standard for items, the capture's own editor for captures).")
@click.option("--family", default=None, help="FIM family when the model's metadata does not say it.")
@click.option("--ctx", type=click.IntRange(min=16), default=1024, show_default=True, help="Context length (tokens).")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=None,
              help="Tokens to generate (default: the profile's own; 128 for standard).")
@click.option("--run-id", default=None, help="Resume this run, or name the new one.")
@click.option("--endpoint", "endpoints", multiple=True, help="Server base URL (repeat to balance over several).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True, help="Requests in flight (HTTP backends).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=120.0, show_default=True,
              help="HTTP: the whole request's limit, seconds (connect, first byte, last byte; per try).")
@click.option("--max-response-mb", type=click.FloatRange(min=0, min_open=True), default=8.0, show_default=True,
              help="HTTP: the largest answer read, MB; a longer one is cut there and its completion marked truncated.")
@click.option("--retries", type=click.IntRange(min=0), default=3, show_default=True, help="Retries on 5xx/429/connection errors.")
@click.option("--api-key-env", default=None, help="Environment variable holding the API key (never pass the key itself).")
@click.option("--send-ids", is_flag=True, help="openai backend: send token ids as the prompt (vLLM).")
@click.option("--threads", type=click.IntRange(min=1), default=None, help="llamacpp backend: CPU threads.")
@click.option("--no-cache", is_flag=True, help="Do not read the completion cache.")
@click.option("--full-generation", is_flag=True,
              help="Generate the whole budget even where the editor stops reading (stop word, cancelled stream).")
@click.option("--editor-timing", is_flag=True,
              help="Apply the editor's time-based cuts from the stream's measured timing (off: deterministic).")
@cutoff_option
@foreign_sentinels_option
@speed_option
@json_option
@db_option
def run_cmd(source: str, backend: str, model: str, editor: str | None, family: str | None, ctx: int, max_new_tokens: int | None,
            run_id: str | None, endpoints: tuple[str, ...], concurrency: int, timeout: float, max_response_mb: float, retries: int,
            api_key_env: str | None, send_ids: bool, threads: int | None, no_cache: bool, full_generation: bool,
            editor_timing: bool, cutoff: str | None, allow_foreign_sentinels: bool, speed: Speed | None, as_json: bool,
            store: Store) -> None:
    """Replay items, rendered prompts or `captures` against a model into a run (resumable: give the
    run's id as SOURCE to resume it with its own input and settings)."""
    from replay.usecases.replay import GenParams, RunRequest, run

    options = {"timeout": timeout, "retries": retries, "api_key_env": api_key_env, "send_ids": send_ids, "n_threads": threads,
               "max_response_bytes": int(max_response_mb * 1024 * 1024)}
    req = RunRequest(source, backend, model, editor, family, GenParams(ctx=ctx, max_new_tokens=max_new_tokens), run_id,
                     endpoints, concurrency, not no_cache, options, early_stop=not full_generation, editor_timing=editor_timing,
                     cutoff=cutoff, allow_foreign_sentinels=allow_foreign_sentinels, speed=speed)
    result = run(store, req, on_progress=Progress.on_terminal(as_json), warn=warn)
    s = result.summary
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(f"run {s.run}: {s.completed}/{s.items} completed, {s.cached} cached, "
                   f"{s.resumed} resumed, {s.errors} errors, {result.rejected} rejected input lines")
        if result.overlap is not None:
            click.echo(f"run {s.run}: {result.overlap.message}")
        if result.latency is not None and result.latency.n:
            from replay.usecases.score import latency_line

            click.echo(f"run {s.run}: {latency_line(result.latency)}")
    if result.all_failed:
        raise WorkError(f"run {s.run}: every item failed")


@cli.task("export", "replay")
@click.argument("source")
@click.option("--format", "fmt", type=Names(_export_formats), default="openai-batch", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), required=True)
@click.option("--model", default=None, help="Model name for the batch body (default: the run's).")
@editor_option(joined=True, help=EDITOR_HELP.removesuffix(".") + " (when SOURCE is items or captures; default as for `run`).")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=None)
@click.option("--send-ids", is_flag=True, help="Token ids as the prompt (vLLM).")
@json_option
@db_option
def export_cmd(source: str, fmt: str, output: Path, model: str | None, editor: str | None, max_new_tokens: int | None,
               send_ids: bool, as_json: bool, store: Store) -> None:
    """Write a run's prompts (or a file's) as an OpenAI batch file for `vllm run-batch`."""
    from replay.usecases.replay import export

    result = export(store, source, output, model, editor, max_new_tokens, send_ids, fmt, warn=warn)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(f"{result.output}: {result.requests} requests")


@cli.task("import-results", "replay")
@click.argument("results", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--run", "run_id", required=True, help="The run whose prompts were exported.")
@json_option
@db_option
def import_results_cmd(results: Path, run_id: str, as_json: bool, store: Store) -> None:
    """Read `vllm run-batch` / OpenAI batch results into a run."""
    from replay.usecases.replay import import_results

    r = import_results(store, results, run_id, warn=warn)
    if as_json:
        emit_json(r.to_json())
    else:
        click.echo(f"run {run_id}: {r.imported} results imported, {r.errors} errors, {r.rejects} rejected lines")


@cli.task("demo", "replay")
@click.option("--files", type=click.IntRange(min=1), default=6, show_default=True, help="Solidity files taken from the demo corpus.")
@click.option("--per-file", type=click.IntRange(min=1), default=2, show_default=True, help="Benchmark items per file.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--model", default="default", show_default=True, help="`default` (the demo GGUF), a model asset or a GGUF file, named as for `run`.")
@click.option("--max-new-tokens", type=click.IntRange(min=1), default=None,
              help="Tokens to generate (default: each profile's own: 128 standard, 64 Tabby).")
@click.option("--threads", type=click.IntRange(min=1), default=None,
              help="llama.cpp CPU threads (default 1: a second thread waits on a core another process uses).")
@click.option("--tui", "with_tui", is_flag=True, help="Show the demo live in the TUI.")
@foreign_sentinels_option
@json_option
@db_option
def demo_cmd(files: int, per_file: int, seed: int, model: str, max_new_tokens: int | None, threads: int | None,
             with_tui: bool, allow_foreign_sentinels: bool, as_json: bool, store: Store) -> None:
    """The main job on the embedded defaults: import captures/, verify, audit, build a Solidity
    benchmark, replay both against the local model, score and report."""
    from replay.usecases.demo import DEMO_THREADS, DEMO_TOKENIZER, DemoOptions, closing, run_demo

    opts = DemoOptions(files=files, per_file=per_file, seed=seed, model=model, max_new_tokens=max_new_tokens,
                       threads=threads or DEMO_THREADS,
                       allow_foreign_sentinels=allow_foreign_sentinels)
    if with_tui:
        app_factory()(store=store, demo=opts, tokenizer=DEMO_TOKENIZER).run()
        return
    say = (lambda s: None) if as_json else (lambda s: click.echo(f"fimreplay demo: {s}", err=True))
    result = run_demo(store, opts, say=say, on_progress=Progress.on_terminal(as_json))
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(result.report, nl=False)
        click.echo(closing(result, store.path), nl=False)
