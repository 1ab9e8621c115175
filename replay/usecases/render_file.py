"""`fimreplay render`: a JSONL file of cursors in, one rendered prompt per line out.

Lines that share a `session` are rendered, for a profile that keeps client state (Copilot), by
one stateful renderer per session, in file order; such a line may also give `raw`, the text the
client received for its request (what the client then caches for the lines after it).

A bad line stops the run with its file:line and reason (a usage error), or, with keep_going,
is counted, told to `echo` (file:line and reason) and kept, with its reason, in a rejects file
beside the output (OUT.rejects.jsonl; without -o, in the rejects/ folder beside the store;
replay.rejects). A missing asset (tokenizer) is not the line's
fault: it stops the run as a work failure whatever keep_going says.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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
from replay.records import EditorInput
from replay.rejects import Rejects, beside


# What render reads of a session line beside the cursor: the text its client received.
RENDER_KEYS = frozenset({"raw"})


class RenderFailure(FimreplayError):
    """The run stopped: `usage` for bad input (exit 2), else the work failed (exit 1)."""

    def __init__(self, message: str, usage: bool) -> None:
        super().__init__(message)
        self.usage = usage
        self.exit_code = EXIT_USAGE if usage else EXIT_WORK


@dataclass(frozen=True)
class FileLine:
    """One line of a render or postprocess input, decoded once: the cursor, and what the command
    reads beside it: `raw` (render: the text a session's client received for its request;
    postprocess: the model's text) and `timing` (postprocess: [characters, seconds] per chunk)."""

    input: EditorInput
    raw: str | None = None
    timing: list[tuple[int, float]] | None = None


def decode_line(line: str, own: frozenset[str], raw_is: str) -> FileLine:
    """One input line -> its FileLine; BadInputLine says what is wrong with it. `own` names the
    keys the command reads beside the cursor; `raw_is` what `raw` holds, for the message."""
    obj = load_object(line)
    inp = parse_object(obj, own)
    raw = obj.get("raw")
    if raw is not None and not isinstance(raw, str):
        raise BadInputLine(f"'raw' must be a string ({raw_is})")
    return FileLine(inp, raw, _timing(obj.get("timing")))


def _timing(timing: Any) -> list[tuple[int, float]] | None:
    if timing is None:
        return None
    ok = isinstance(timing, list) and all(
        isinstance(t, list) and len(t) == 2 and type(t[0]) is int and isinstance(t[1], (int, float)) and not isinstance(t[1], bool)
        for t in timing)
    if not ok:
        raise BadInputLine("'timing' must be a list of [characters, seconds] pairs")
    return [(int(chars), float(secs)) for chars, secs in timing]


@dataclass(frozen=True)
class LineFileSummary:
    """What a line-by-line command did: lines written (`done`, named by the command: `rendered`,
    `postprocessed`), lines rejected and their file; `shown` counts postprocessed lines the
    editor showed something for."""

    command: str
    input: str
    output: str  # "-": stdout
    done: int
    rejected: int
    rejects_file: str | None
    shown: int | None = None

    @property
    def to_stdout(self) -> bool:
        return self.output == "-"

    @property
    def lines(self) -> int:
        """The input's lines (blank lines aside): each was written or rejected."""
        return self.done + self.rejected

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"input": self.input, "output": self.output, self.command: self.done}
        if self.shown is not None:
            out.update(shown=self.shown, nothing_shown=self.done - self.shown)
        out.update(rejected=self.rejected, rejects_file=self.rejects_file)
        return out


def map_file(input_path: Path, output: Path | None, keep_going: bool, command: str, counted: str,
             convert: Callable[[str, int], dict[str, Any]],
             echo: Callable[[str], None] | None = None) -> LineFileSummary:
    """Write `convert(line, line number)` as one JSON line per input line, in input order; returns the
    summary (the lines written, counted as `counted`; those rejected and their file). A bad line (a UsageError such
    as BadInputLine, or a ValueError or KeyError from the data) stops the run with its file:line, or with keep_going is kept in the
    rejects file (and told to `echo`); a missing asset stops the run as a work failure."""
    try:
        data = input_path.read_bytes()  # decoded line by line: a bad byte is its line's fault alone
    except OSError as exc:
        raise RenderFailure(f"{input_path}: cannot read: {exc.strerror or exc}", usage=True) from exc
    rejects = Rejects(beside(output) if output is not None else None, name=f"{command}-{input_path.stem}", echo=echo)
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
    return LineFileSummary(counted, str(input_path), str(output) if output else "-", written, len(rejects), rejects.file)


def render_file(input_path: Path, editor: str, model: str, version: str | None, output: Path | None,
                keep_going: bool, echo: Callable[[str], None] | None = None) -> LineFileSummary:
    """Render every line of `input_path`; returns the summary (rendered, rejected, files)."""
    return map_file(input_path, output, keep_going, "render", "rendered", _renderer(editor, model, version), echo)


def _renderer(editor: str, model: str, version: str | None) -> Callable[[str, int], dict[str, Any]]:
    """The per-line conversion: stateless, or with one session renderer per `session` key when
    the profile keeps client state."""
    prof = profile(editor)[0]
    if not prof.keeps_sessions:
        return lambda line, number: output_row(render(editor, parse_line(line), model, version), number, prof.sends_body)
    sessions: dict[str, Any] = {}

    def convert(line: str, number: int) -> dict[str, Any]:
        got = decode_line(line, RENDER_KEYS, "the text the client received")
        inp = got.input
        if inp.session is None:
            return output_row(render(editor, inp, model, version), number, prof.sends_body)
        if inp.session not in sessions:
            sessions[inp.session] = prof.session(model, version)
        return output_row(sessions[inp.session].render(inp, got.raw), number, prof.sends_body)

    return convert
