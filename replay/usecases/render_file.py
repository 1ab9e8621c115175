"""`fimreplay render`: a JSONL file of cursors in, one rendered prompt per line out.

Lines that share a `session` are rendered, for a profile that keeps client state (Copilot), by
one stateful renderer per session, in file order; such a line may also give `raw`, the text the
client received for its request (what the client then caches for the lines after it).

A bad line stops the run with its file:line and reason (a usage error), or, with keep_going,
is counted and kept, with its reason, in a rejects file beside the output (OUT.rejects.jsonl;
without -o, in the data dir's rejects/ folder; replay.rejects). A missing asset (tokenizer) is not the line's
fault: it stops the run as a work failure whatever keep_going says.
"""

from __future__ import annotations

import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any, TextIO

from replay.assets import MissingAsset
from replay.editors import profile, render
from replay.editors.inputs import (
    BadInputLine,
    load_object,
    output_row,
    parse_line,
    parse_object,
    read_lines,
    to_json_line,
)
from replay.errors import EXIT_USAGE, EXIT_WORK, FimreplayError, UsageError
from replay.rejects import Rejects, beside


class RenderFailure(FimreplayError):
    """The run stopped: `usage` for bad input (exit 2), else the work failed (exit 1)."""

    def __init__(self, message: str, usage: bool) -> None:
        super().__init__(message)
        self.usage = usage
        self.exit_code = EXIT_USAGE if usage else EXIT_WORK


def map_file(input_path: Path, output: Path | None, keep_going: bool, command: str,
             convert: Callable[[str, int], dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """Write `convert(line, line number)` as one JSON line per input line, in input order; returns how many
    were written and the summary (input, output, rejected, rejects_file). A bad line (a UsageError such
    as BadInputLine, or a ValueError or KeyError from the data) stops the run with its file:line, or with keep_going is kept in the
    rejects file; a missing asset stops the run as a work failure."""
    try:
        data = input_path.read_bytes()  # decoded line by line: a bad byte is its line's fault alone
    except OSError as exc:
        raise RenderFailure(f"{input_path}: cannot read: {exc.strerror or exc}", usage=True) from exc
    rejects = Rejects(beside(output) if output is not None else None, name=f"{command}-{input_path.name}")
    written = 0
    out: TextIO = open(output, "w", encoding="utf-8") if output is not None else sys.stdout  # noqa: SIM115
    try:
        for number, line in read_lines(data):
            where = f"{input_path}:{number}"
            try:
                text = to_json_line(convert(line, number))
            except MissingAsset as exc:
                raise RenderFailure(str(exc), usage=False) from exc
            except (UsageError, ValueError, KeyError) as exc:
                reason = str(exc).strip("'\"") if isinstance(exc, KeyError) else str(exc)
                if not keep_going:
                    raise RenderFailure(f"{where}: {reason}", usage=True) from exc
                rejects.at(input_path, number, reason, line)
                continue
            out.write(text + "\n")
            written += 1
    finally:
        rejects.close()
        if output is not None:
            out.close()
        else:
            out.flush()
    summary: dict[str, Any] = {"input": str(input_path), "output": str(output) if output else "-",
                               "rejected": len(rejects), "rejects_file": rejects.file}
    return written, summary


def render_file(input_path: Path, editor: str, model: str, version: str | None, output: Path | None,
                keep_going: bool) -> dict[str, Any]:
    """Render every line of `input_path`; returns the summary (rendered, rejected, files)."""
    written, summary = map_file(input_path, output, keep_going, "render", _renderer(editor, model, version))
    return {"input": summary["input"], "output": summary["output"], "rendered": written,
            "rejected": summary["rejected"], "rejects_file": summary["rejects_file"]}


def _renderer(editor: str, model: str, version: str | None) -> Callable[[str, int], dict[str, Any]]:
    """The per-line conversion: stateless, or with one session renderer per `session` key when
    the profile keeps client state."""
    prof = profile(editor)[0]
    if not prof.keeps_sessions:
        return lambda line, number: output_row(render(editor, parse_line(line), model, version), number, prof.sends_body)
    sessions: dict[str, Any] = {}

    def convert(line: str, number: int) -> dict[str, Any]:
        obj = load_object(line)
        inp = parse_object(obj, frozenset({"raw"}))
        received = obj.get("raw")
        if received is not None and not isinstance(received, str):
            raise BadInputLine("'raw' must be a string (the text the client received)")
        if inp.session is None:
            return output_row(render(editor, inp, model, version), number, prof.sends_body)
        if inp.session not in sessions:
            sessions[inp.session] = prof.session(model, version)
        return output_row(sessions[inp.session].render(inp, received), number, prof.sends_body)

    return convert
