"""Render inputs: one JSON object per line, read into EditorInput, and rendered prompts out.

A line holds either `{"document", "cursor"}` (cursor: a character offset, in Unicode code
points, into document) or `{"prefix", "suffix"}`, plus optional `filepath` (a path or file://
URI, as the editor has it), `workspace` (root folder or URI; give it in the same form as
filepath, since Tabby computes the relative path textually), `language` (the editor's language
id), `snippets` ([{"filepath", "content", "kind"?, "lines"?}], kind one of declaration | changed |
opened | clipboard | snippet; lines the [first, end] 0-based line range the content was read
from, which Continue's older releases use to merge overlapping snippets of one file), `options` (overrides of the editor's settings, keyed by the
editor's own names), `trigger` ("auto", the default: the editor asked as the user typed; or
"manual": the user asked for a completion, which some Tabby agents request differently) and `id`.
For the clients with a server half (llama.vscode, llama.vim) a line may instead hold only
`request`: the client's HTTP body as sent (then only the server half runs); and `extra`
([{"text", "time"?, "filename"?}]: the ring buffer of chunks the client holds; `time` in seconds,
or as llama.vim sends it, [seconds, microseconds]) or `events`
([{"kind", "time", "filename"?, "text"?, "line"?}], kind one of open | enter | leave | save |
yank | accept: the session that filled it). `open_files` ([{"filepath", "text", "language"?}],
in the editor's order) and `session` (lines sharing it are rendered in order, the client's state
carried over) serve Copilot. FimItem lines (from `fimreplay evalgen`) are accepted too: their
`middle`, `file`, `mode` and offsets are carried in the item, not used for the prompt.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec

from replay.errors import UsageError
from replay.jsonl import json_lines, loads
from replay.records import EditorInput, ExtraChunk, FimItem, OpenFile, RenderedPrompt, SessionEvent, Snippet

# Tabby's kinds (declaration, changed, opened, clipboard) and Continue's own payload groups
# (visited, edited, diff, static: replay/editors/continue_/ maps them); "snippet" is any other.
SNIPPET_KINDS = ("declaration", "changed", "opened", "clipboard", "snippet", "visited", "edited", "diff", "static")
# A FimItem line is a render input too: its fields beyond the cursor's are the benchmark's own.
_FIMITEM_KEYS = set(FimItem.__struct_fields__)
_KEYS = {"document", "cursor", "prefix", "suffix", "filepath", "workspace", "language", "snippets", "options", "id",
         "item_id", "trigger", "request", "extra", "events", "open_files", "session"} | _FIMITEM_KEYS


class BadInputLine(UsageError):
    """A render input line that cannot be used; the message says why (the caller adds file:line)."""


def _str(obj: dict[str, Any], key: str, required: bool = False) -> str | None:
    value = obj.get(key)
    if value is None:
        if required:
            raise BadInputLine(f"missing {key!r}")
        return None
    if not isinstance(value, str):
        raise BadInputLine(f"{key!r} must be a string, got {type(value).__name__}")
    return value


def parse_line(text: str, extra: frozenset[str] = frozenset()) -> EditorInput:
    """One input line -> EditorInput; BadInputLine says what is wrong with it. `extra` names the
    keys a caller reads itself (postprocess: `raw`, `timing`)."""
    return parse_object(load_object(text), extra)


def load_object(text: str) -> dict[str, Any]:
    """A line's JSON object, or BadInputLine."""
    try:
        obj = loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputLine(f"not JSON: {exc.msg} at column {exc.colno}") from None
    except ValueError as exc:
        raise BadInputLine(f"not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise BadInputLine(f"expected a JSON object, got {type(obj).__name__}")
    return obj


def parse_object(obj: dict[str, Any], extra: frozenset[str] = frozenset()) -> EditorInput:
    """A render input object -> EditorInput (see the module docstring for its keys)."""
    unknown = sorted(set(obj) - _KEYS - extra)
    if unknown:
        raise BadInputLine(f"unknown key(s) {', '.join(map(repr, unknown))}")
    if "request" in obj and not isinstance(obj["request"], dict):
        raise BadInputLine("'request' must be an object (the client's HTTP body)")
    if "document" in obj or "cursor" in obj:
        if "prefix" in obj or "suffix" in obj:
            raise BadInputLine("give either document+cursor or prefix+suffix, not both")
        document = _str(obj, "document", required=True)
        cursor = obj.get("cursor")
        if type(cursor) is not int:
            raise BadInputLine("'cursor' must be an integer character offset")
        assert document is not None
        if not 0 <= cursor <= len(document):
            raise BadInputLine(f"'cursor' {cursor} is outside the document (0..{len(document)})")
        prefix, suffix = document[:cursor], document[cursor:]
    else:
        prefix = _str(obj, "prefix", required="request" not in obj) or ""
        suffix = _str(obj, "suffix") or ""
    snippets = obj.get("snippets") or []
    if not isinstance(snippets, list):
        raise BadInputLine("'snippets' must be a list")
    parsed: list[Snippet] = []
    for n, snip in enumerate(snippets):
        if not isinstance(snip, dict) or not isinstance(snip.get("content"), str):
            raise BadInputLine(f"snippets[{n}] must be an object with a string 'content'")
        kind = snip.get("kind", "snippet")
        if kind not in SNIPPET_KINDS:
            raise BadInputLine(f"snippets[{n}].kind {kind!r} is not one of {', '.join(SNIPPET_KINDS)}")
        filepath = snip.get("filepath", "")
        if not isinstance(filepath, str):
            raise BadInputLine(f"snippets[{n}].filepath must be a string")
        lines = snip.get("lines")
        if lines is not None and not (isinstance(lines, list) and len(lines) == 2 and all(type(n) is int and n >= 0 for n in lines)
                                      and lines[0] <= lines[1]):
            raise BadInputLine(f"snippets[{n}].lines must be [first line, end line], 0-based, first <= end")
        parsed.append(Snippet(filepath=filepath, content=snip["content"], kind=kind,
                              lines=msgspec.UNSET if lines is None else (lines[0], lines[1])))
    options = obj.get("options") or {}
    if not isinstance(options, dict):
        raise BadInputLine("'options' must be an object")
    item_id = obj.get("id", obj.get("item_id"))
    if item_id is not None and not isinstance(item_id, (str, int)):
        raise BadInputLine("'id' must be a string or integer")
    trigger = obj.get("trigger", "auto")
    if trigger not in ("auto", "manual"):
        raise BadInputLine("'trigger' must be \"auto\" or \"manual\"")
    return EditorInput(prefix=prefix, suffix=suffix, filepath=_str(obj, "filepath"), workspace=_str(obj, "workspace"),
                       language=_str(obj, "language"), snippets=tuple(parsed), options=options,
                       item_id=None if item_id is None else str(item_id), trigger=trigger,
                       request=obj.get("request"), extra=_records(_extra_seconds(obj), "extra", ExtraChunk),
                       events=_records(obj, "events", SessionEvent), open_files=_records(obj, "open_files", OpenFile),
                       session=None if obj.get("session") is None else str(obj["session"]))


def _extra_seconds(obj: dict[str, Any]) -> dict[str, Any]:
    """`extra` as llama.vim sends it holds each chunk's `time` as Vim's reltime [seconds,
    microseconds]: read as seconds (the profile writes it back in the same form)."""
    extra = obj.get("extra")
    if not isinstance(extra, list):
        return obj
    def seconds(entry: Any) -> Any:
        t = entry.get("time") if isinstance(entry, dict) else None
        if isinstance(t, list) and len(t) == 2 and all(type(x) is int for x in t):
            return {**entry, "time": t[0] + t[1] / 1_000_000}
        return entry
    return {**obj, "extra": [seconds(e) for e in extra]}


def _records(obj: dict[str, Any], key: str, record: type[msgspec.Struct]) -> tuple[Any, ...]:
    """A list of typed records (ExtraChunk, SessionEvent, OpenFile) under `key`, or BadInputLine
    naming the first entry that does not fit."""
    value = obj.get(key) or []
    if not isinstance(value, list):
        raise BadInputLine(f"{key!r} must be a list")
    out = []
    for n, entry in enumerate(value):
        try:
            out.append(msgspec.convert(entry, record))
        except msgspec.ValidationError as exc:
            raise BadInputLine(f"{key}[{n}]: {exc}") from None
    return tuple(out)


def read_lines(data: str | bytes) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of every non-blank line (replay.jsonl: "\\n" ends a line, a
    BOM is not part of the first); a blank line is not an input."""
    yield from json_lines(data)


def output_row(rendered: RenderedPrompt, line: int, sends_body: bool = False) -> dict[str, Any]:
    """One output line: the engine's prompt as `prompt`, and every field of the rendering;
    `request` whenever there is one, and as null for a client that sends a body
    (EditorProfile.sends_body) where it sends none."""
    row: dict[str, Any] = {"line": line}
    if rendered.item_id is not None:
        row["id"] = rendered.item_id
    row.update({"profile": rendered.profile, "family": rendered.family, "route": rendered.route,
                "prompt": rendered.text, "prefix_sent": rendered.prefix_sent, "suffix_sent": rendered.suffix_sent,
                "stop": list(rendered.stop), "max_new_tokens": rendered.max_new_tokens})
    if rendered.request is not None or sends_body:
        row["request"] = rendered.request
    if rendered.logged_prompt is not None:
        row["logged_prompt"] = rendered.logged_prompt
    if rendered.version_why is not None:
        row["version_why"] = rendered.version_why
    if rendered.token_ids:
        row["token_ids"] = list(rendered.token_ids)
    if rendered.ignored_options:
        row["ignored_options"] = list(rendered.ignored_options)
    return row


def to_json_line(row: dict[str, Any]) -> str:
    return msgspec.json.encode(row).decode()
