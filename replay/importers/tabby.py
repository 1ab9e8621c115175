"""Tabby server event logs -> CaptureRecord (completion) and OutcomeEvent (view/select/dismiss).

Source: TabbyML/tabby crates/tabby-common/src/api/event.rs (the serde types: `LogEntry`,
externally tagged `Event` with snake_case kinds, `Segments`, `Declaration`, `Choice`) and
crates/tabby/src/services/event.rs (the writer: one compact JSON object per line in
`~/.tabby/events/YYYY-MM-DD.json`, named by the UTC date of each write, through a BufWriter
flushed every 5 s; before 2023-12-14 one file per server start). The `.json` name notwithstanding
the files are JSON Lines. The logged `prompt` is the templated prompt after snippets were added
and CRLF was turned into LF (crates/tabby/src/services/completion.rs `override_prompt`), while
the segments keep the editor's CRLF.

Schema eras, from the git history of event.rs (dates of the commits that changed the log line):
  2023-05-30  {ts, event}; kinds view, selected, completion (f3b37b253)
  2023-06-14  completion.user (d572cf7d6)        2023-07-16  select.kind "line" (95bd53ac9)
  2023-10-12  completion.segments {prefix, suffix} (1ad871e1f)
  2023-11-26  segments.clipboard (221217182)     2024-01-05  chat_completion {completion_id,
  input, output} (cb035a6f4)                     2024-01-08  dismiss; view_id, elapsed (af7cbf058)
  2024-04-08  segments.declarations (938797138)  2024-04-23  user at the top level (d0ca5e364)
  2024-05-20  segments.filepath (e2e2c4412)      2024-08-05  completion.user_agent (e76ac76a1)
  2025-03-19  chat_completion {} (551e3f69e)
"selected" is the first name of "select"; every era is read by the same decoder, and each
record notes the earliest era its fields prove (`extra["schema_since"]`).
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec
from msgspec import UNSET, UnsetType

from replay.importers.common import Ignored, Parsed, BadRecord, decode_error_reason, invalid_utf8, lone_surrogate_reason
from replay.records import CaptureRecord, OutcomeEvent, Segments, Snippet, Source
from replay.store import LineCodec, StoredCapture, line_body, line_digest

FORMAT = "tabby"
TABBY_LINE = "tabby-line"  # the store keeps a Tabby capture as its own log line


# Tabby's integers are unsigned (u32 indexes, u128 ms timestamps); the store keeps SQLite's
# signed 64-bit INTEGER, so a larger value (only damage makes one) rejects its line.
_Count = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]


class _Choice(msgspec.Struct):
    text: str
    index: _Count = 0


class _Declaration(msgspec.Struct):
    filepath: str
    body: str


class _Segments(msgspec.Struct):
    prefix: str
    suffix: str | None = None
    clipboard: str | None = None
    git_url: str | None = None
    declarations: list[_Declaration] | None = None
    filepath: str | None = None


class _Completion(msgspec.Struct):
    completion_id: str
    language: str
    prompt: str
    choices: list[_Choice]
    segments: _Segments | None = None
    user: str | None | UnsetType = UNSET  # 2023-06-14 .. 2024-04-23
    user_agent: str | None | UnsetType = UNSET  # 2024-08-05 on, null when the client sent none


class _Outcome(msgspec.Struct):
    completion_id: str
    choice_index: _Count = 0
    kind: str | None = None  # select only: "line" for a line-wise accept
    view_id: str | None | UnsetType = UNSET
    elapsed: _Count | None = None


class _Event(msgspec.Struct):
    completion: _Completion | None = None
    view: _Outcome | None = None
    select: _Outcome | None = None
    selected: _Outcome | None = None  # the name of 2023-05-30's first commit
    dismiss: _Outcome | None = None
    chat_completion: dict[str, object] | None = None


class _Entry(msgspec.Struct):
    ts: _Count
    event: _Event
    user: str | None | UnsetType = UNSET  # top level since 2024-04-23


_decoder = msgspec.json.Decoder(_Entry)
_generic = msgspec.json.Decoder()


def parse_line(data: bytes, source: Source) -> Parsed:
    """One line of a Tabby event log. Raises BadRecord with a one-line reason."""
    entry = _decode(data)
    if entry.event.completion is not None:
        return _capture(entry, entry.event.completion, data, source, entry.ts / 1000.0)
    return _not_completion(entry, data, source)


def scan_line(data: bytes, source: Source) -> StoredCapture | OutcomeEvent | Ignored:
    """`parse_line` for the importer, with the same checks and rejects: a completion becomes
    the row the store keeps (its listed columns and the line itself, from which parse_line
    rebuilds the record when it is read) without building the record, which an import of a
    few hundred thousand lines would build only to throw away."""
    entry = _decode(data)
    c = entry.event.completion
    if c is None:
        return _not_completion(entry, data, source)
    filepath = c.segments.filepath if c.segments is not None else None
    return StoredCapture(line_digest(data), c.completion_id, "tabby", FORMAT, None, c.language, filepath, "unknown",
                         None, entry.ts / 1000.0, source.file, source.line, source.offset, TABBY_LINE, line_body(data))


def _decode(data: bytes) -> _Entry:
    """The line's entry; BadRecord for a line serde_json would not have read back. The writer
    (serde_json, from Rust strings) writes only valid UTF-8 and never a lone UTF-16 surrogate,
    and serde_json's reader (serde_json src/read.rs) rejects both, so such a line is damage:
    rejected whole, wherever the bytes are: msgspec skips a field it does not know without
    decoding its bytes, so they are checked here; it refuses every lone surrogate escape, read
    or skipped, so that check waits for a line it refused (a few µs a line otherwise)."""
    if (why := invalid_utf8(data)) is not None:
        raise BadRecord(why)
    try:
        return _decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as exc:
        raise BadRecord(lone_surrogate_reason(data) or decode_error_reason(exc)) from None


def _not_completion(entry: _Entry, data: bytes, source: Source) -> OutcomeEvent | Ignored:
    ev = entry.event
    ts = entry.ts / 1000.0
    for kind, body in (("select", ev.select), ("view", ev.view), ("dismiss", ev.dismiss), ("select", ev.selected)):
        if body is not None:
            return OutcomeEvent(
                source=source,
                completion_id=body.completion_id,
                kind=kind,  # type: ignore[arg-type]
                choice_index=body.choice_index,
                select_kind=body.kind if kind == "select" else None,
                view_id=body.view_id if isinstance(body.view_id, str) else None,
                elapsed=body.elapsed,
                ts=ts,
            )
    if ev.chat_completion is not None:
        return Ignored("chat_completion")
    kinds = list(_generic.decode(data).get("event", {}))
    if not kinds:
        raise BadRecord("event has no kind")
    return Ignored(f"unknown event kind {kinds[0]!r}")


def _capture(entry: _Entry, c: _Completion, data: bytes, source: Source, ts: float) -> CaptureRecord:
    since = "2023-05-30"
    segments = None
    filepath = None
    if c.segments is not None:
        s = c.segments
        since = "2023-10-12"
        snippets: tuple[Snippet, ...] = ()
        if s.clipboard is not None:
            since = "2023-11-26"
        if s.declarations is not None:
            since = "2024-04-08"
            snippets = tuple(Snippet(filepath=d.filepath, content=d.body, kind="declaration") for d in s.declarations)
        if s.filepath is not None:
            since = "2024-05-20"
        filepath = s.filepath
        segments = Segments(prefix=s.prefix, suffix=s.suffix, snippets=snippets, clipboard=s.clipboard,
                            git_url=s.git_url, filepath=s.filepath)
    user = None
    if isinstance(c.user, str):
        user = c.user
        since = max(since, "2023-06-14")
    if entry.user is not UNSET:
        user = entry.user if entry.user is not None else user
        since = max(since, "2024-04-23")
    user_agent = None
    if c.user_agent is not UNSET:
        user_agent = c.user_agent
        since = max(since, "2024-08-05")
    choices = c.choices
    choice = choices[0] if len(choices) == 1 else next((ch for ch in choices if ch.index == 0), choices[0] if choices else None)
    extra: dict[str, object] = {"schema_since": since}
    if len(c.choices) > 1:
        extra["choices"] = [ch.text for ch in c.choices]
    return CaptureRecord(
        source=source,
        editor="tabby",
        format=FORMAT,
        completion_id=c.completion_id,
        language=c.language,
        filepath=filepath,
        segments=segments,
        logged_prompt=c.prompt,
        completion=choice.text if choice is not None else None,
        ts=ts,
        user=user,
        user_agent=user_agent,
        extra=extra,
        raw=data.decode("utf-8"),
    )


def stored_line(line: bytes, source: Source) -> CaptureRecord | None:
    """A stored Tabby line back to its capture (None: the line is not a completion)."""
    try:
        rec = parse_line(line, source)
    except BadRecord:
        return None
    return rec if isinstance(rec, CaptureRecord) else None


# Registered with the store through the `fimreplay.line_codecs` entry point (pyproject.toml).
LINE_CODEC = LineCodec(name=TABBY_LINE, format=FORMAT, parse=stored_line)


_KEYS = re.compile(rb'^\{"(?:user|ts)":')


def looks_like(head: bytes) -> bool:
    """Event lines are JSON objects whose keys are `ts`/`event` (and `user` since 2024-04-23,
    written first by serde)."""
    return _KEYS.match(head.split(b"\n", 1)[0]) is not None and b'"event":' in head
