"""The /infill body llama.vim sends for a cursor (ggml-org/llama.vim autoload/llama.vim `llama#fim`
and `s:fim_ctx_local`), by commit (releases.py).

Vim sees a buffer as lines and the cursor as a line and a byte column: `strpart`, `len` and
`strlen` count bytes, so the text before the cursor, the rest of the line checked against
max_line_suffix and n_indent are all taken on the UTF-8 bytes of the line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from replay.editors.llama_vim.releases import SOURCE, Rules
from replay.editors.inputs import BadInputLine
from replay.records import ExtraChunk

# The fields the plugin asks the server to return (`response_fields`, since 9f5cadd 2025-01-15).
RESPONSE_FIELDS = ("content", "timings/prompt_n", "timings/prompt_ms", "timings/prompt_per_token_ms",
                   "timings/prompt_per_second", "timings/predicted_n", "timings/predicted_ms",
                   "timings/predicted_per_token_ms", "timings/predicted_per_second", "truncated", "tokens_cached")


class NoRequest(BadInputLine):
    """llama.vim sends nothing at this cursor (an automatic trigger with too long a rest of line)."""


@dataclass(frozen=True)
class Buffer:
    """A document as Vim holds it: its lines (without their newlines) and the cursor's 0-based line
    and byte column in it."""

    lines: tuple[str, ...]
    row: int
    col: int  # bytes of lines[row] before the cursor

    @classmethod
    def of(cls, prefix: str, suffix: str) -> Buffer:
        """The buffer of the document prefix + suffix with the cursor between them. A final newline
        ends the last line (Vim does not show an empty line after it) unless the cursor is there."""
        lines = (prefix + suffix).split("\n")
        row = prefix.count("\n")
        if len(lines) > 1 and lines[-1] == "" and row < len(lines) - 1:
            lines.pop()
        col = len(prefix[prefix.rfind("\n") + 1:].encode("utf-8"))
        return cls(tuple(lines), row, col)

    def line(self, row: int) -> str:
        """`getline(row + 1)`: "" past the end."""
        return self.lines[row] if 0 <= row < len(self.lines) else ""


def _before(line: str, col: int) -> str:
    return line.encode("utf-8")[:col].decode("utf-8", errors="ignore")


def _after(line: str, col: int) -> str:
    return line.encode("utf-8")[col:].decode("utf-8", errors="ignore")


def is_blank(line: str) -> bool:
    """Vim's `'^\\s*$'`: only spaces and tabs (or nothing)."""
    return line.strip(" \t") == ""


def indent_bytes(text: str) -> int:
    """`strlen(matchstr(text, '^\\s*'))`: the leading spaces and tabs, each one byte."""
    return len(text) - len(text.lstrip(" \t"))


@dataclass(frozen=True)
class LocalContext:
    """`s:fim_ctx_local`: what is sent around the cursor."""

    prefix: str  # input_prefix: the n_prefix lines above, each ending in "\n" ("\n" alone on line 1)
    middle: str  # prompt: the line up to the cursor
    suffix: str  # input_suffix: the rest of the line, "\n", the n_suffix lines below, "\n"
    indent: int  # n_indent
    rest_of_line: str  # what max_line_suffix is checked against


def local_context(buf: Buffer, rules: Rules, n_prefix: int, n_suffix: int) -> LocalContext:
    """The context of the first request at the cursor (`s:fim_ctx_local` with no previous
    completion; before 1175c8d the same lines were built inline in `llama#fim`)."""
    line = buf.line(buf.row)
    before, after = _before(line, buf.col), _after(line, buf.col)
    above = buf.lines[max(0, buf.row - n_prefix):buf.row]
    below = buf.lines[buf.row + 1:min(len(buf.lines), buf.row + 1 + n_suffix)]
    if rules.blank_whitespace_line and is_blank(line):
        # "special handling of lines full of whitespaces - start from the beginning of the line" (2d5a1fe)
        before, after, indent = "", "", 0
    else:
        indent = indent_bytes(line if rules.indent_of_line else before)
    return LocalContext(prefix="\n".join(above) + "\n", middle=before, suffix=after + "\n" + "\n".join(below) + "\n",
                        indent=indent, rest_of_line=after)


def follow_up_context(buf: Buffer, n_prefix: int, n_suffix: int, previous: list[str], indent: int) -> LocalContext:
    """`s:fim_ctx_local` with a previous suggestion (the speculative follow-up, since 1175c8d): the
    context as if `previous` (the shown lines, the rest of the line appended) were accepted. The
    plugin appends its first line to the WHOLE cursor line, rest of line included; n_indent is
    the first request's (`s:indent_last`)."""
    line = buf.line(buf.row)
    current = line + previous[0] if len(previous) == 1 else previous[-1]
    above = list(buf.lines[max(0, buf.row - n_prefix + len(previous) - 1):buf.row])
    if len(previous) > 1:
        above += [line + previous[0], *previous[1:-1]]
    below = buf.lines[buf.row + 1:min(len(buf.lines), buf.row + 1 + n_suffix)]
    return LocalContext(prefix="\n".join(above) + "\n", middle=current, suffix="\n" + "\n".join(below) + "\n",
                        indent=indent, rest_of_line="")


def vim_time(seconds: float) -> list[int]:
    """A chunk's `time` as the plugin sends it: Vim's `reltime()` of when it was picked, a list
    [seconds, microseconds] (Vim 9 on Unix: gettimeofday)."""
    whole = math.floor(seconds)
    micros = round((seconds - whole) * 1_000_000)
    if micros == 1_000_000:
        whole, micros = whole + 1, 0
    return [int(whole), micros]


def input_extra(chunks: tuple[ExtraChunk, ...]) -> list[dict[str, Any]]:
    """`s:ring_get_extra`: the ring's chunks as {text, time, filename}, oldest first."""
    return [{"text": c.text, "time": vim_time(c.time), "filename": c.filename} for c in chunks]


def build_body(ctx: LocalContext, extra: tuple[ExtraChunk, ...], config: dict[str, Any], rules: Rules,
               trigger: str, follow_up: bool = False) -> dict[str, Any]:
    """The body of `llama#fim` (the first request at a cursor, or its speculative follow-up), in
    the plugin's key order (the server reads it as JSON: Vim's json_encode writes its keys in its
    own hash order)."""
    if trigger == "auto" and len(ctx.rest_of_line.encode("utf-8")) > config["max_line_suffix"]:
        raise NoRequest(f"llama.vim sends no automatic request here: the rest of the line is "
                        f"{len(ctx.rest_of_line.encode('utf-8'))} bytes, over max_line_suffix "
                        f"{config['max_line_suffix']} ({SOURCE} llama#fim); use trigger \"manual\"")
    body: dict[str, Any] = {}
    if rules.id_slot:
        body["id_slot"] = 0  # "requests : always use slot id 0" (8e7d1d0)
    body.update({"input_prefix": ctx.prefix, "input_suffix": ctx.suffix, "input_extra": input_extra(extra),
                 "prompt": ctx.middle, "n_predict": config["n_predict"]})
    if rules.stop:
        body["stop"] = config["stop_strings"]
    body.update({"n_indent": ctx.indent, "top_k": 40, "top_p": rules.top_p, "samplers": ["top_k", "top_p", "infill"],
                 "stream": False, "cache_prompt": True, "t_max_prompt_ms": config["t_max_prompt_ms"],
                 "t_max_predict_ms": config["t_max_predict_ms"] if follow_up else
                 rules.first_predict_ms or config["t_max_predict_ms"]})
    if rules.response_fields:
        body["response_fields"] = list(RESPONSE_FIELDS)
    if rules.model_setting:
        # `len("g:llama_config.model_fim") > 0` measures the string literal: always true, so the
        # setting is always sent, "" when unset (c31cd09).
        body["model"] = config[rules.model_setting]
    return body
