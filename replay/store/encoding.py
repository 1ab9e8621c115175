"""How a capture and an outcome event become rows: the capture's stored body and identity,
the line codecs that rebuild a capture from its log line, and the outcome event's row.

Every record is kept whole beside the few columns that are indexed or filtered on, so the
schema does not have to follow every field of the records: as JSON (msgspec), except a capture
of a line-codec format (Tabby), kept as its own log line, and an outcome event, whose few fields
are the columns of its row. Built where a log is parsed (an importer's reader process), so that
the store's side of an import is SQLite alone; the importer that owns a format registers its
line codec, so that nothing here imports an importer.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import Any, NamedTuple

import lz4.block
import msgspec

from replay import secrets
from replay.records import CaptureRecord, OutcomeEvent, Source
from replay.store.db import BadStore


class StoredCapture(NamedTuple):
    """A capture as the store writes it: its identity (`digest`, 32 bytes), the listed columns,
    and the body (as stored) the record is rebuilt from when it is read, as `codec` says:
      "record"      the CaptureRecord as JSON (every format);
      a line codec  the log line itself (`line_body`: lz4-compressed), re-parsed by the
                    format's registered LineCodec ("tabby-line": replay.importers.tabby): the
                    line is the whole record, so the store keeps it once instead of the line
                    plus its parsed copy.
    Built where the line is parsed (in the importer's reader process for a large file), so
    that the store's side of an import is SQLite alone.
    """

    digest: bytes
    completion_id: str | None
    editor: str
    format: str
    model: str | None
    language: str | None
    filepath: str | None
    outcome: str
    outcome_detail: str | None
    ts: float | None
    source_file: str
    source_line: int
    source_offset: int
    codec: str
    body: bytes


class LineCodec(NamedTuple):
    """A log format whose captures the store keeps as their own log line (StoredCapture codec
    `name`): `parse` turns a stored line back into its CaptureRecord (None: the line is not a
    capture of this format). The importer that owns the format registers it (the
    `fimreplay.line_codecs` entry point group names the object), so that the store decodes
    every format without importing any importer."""

    name: str
    format: str
    parse: Callable[[bytes, Source], CaptureRecord | None]


_LINE_CODECS: dict[str, LineCodec] = {}


def register_line_codec(codec: LineCodec) -> None:
    _LINE_CODECS[codec.name] = codec


@functools.lru_cache(maxsize=1)
def _load_line_codecs() -> None:
    from importlib.metadata import entry_points

    for ep in entry_points(group="fimreplay.line_codecs"):
        codec = ep.load()
        if isinstance(codec, LineCodec):
            register_line_codec(codec)


def line_codecs() -> dict[str, LineCodec]:
    """Every registered line codec; the entry points of installed formats are loaded once."""
    _load_line_codecs()
    return _LINE_CODECS


def line_digest(line: bytes) -> bytes:
    """The identity of a capture that is a whole log line: the line's sha256. The source is not
    part of it: the same line copied to another file is the same request."""
    return hashlib.sha256(line).digest()


def stored_capture(rec: CaptureRecord) -> StoredCapture:
    """The row for a record built elsewhere (other formats, tests). A record of a line-codec
    format that is exactly what its `raw` line parses to is stored as that line, with the line's
    identity, so that it and the same line imported from a log are one capture; any other is
    kept as JSON, identified by its content (`CaptureRecord.content_hash`, which leaves source
    and outcome out)."""
    codec, body, digest = "record", b"", b""
    line_codec = next((c for c in line_codecs().values() if c.format == rec.format), None) if rec.raw else None
    if line_codec is not None:
        line = rec.raw.encode("utf-8")
        if line_codec.parse(line, rec.source) == msgspec.structs.replace(rec, outcome="unknown", outcome_detail=None):
            codec, body, digest = line_codec.name, line_body(line), line_digest(line)
    if codec == "record":
        body, digest = secrets.scrub_registered_bytes(msgspec.json.encode(rec)), bytes.fromhex(rec.content_hash())
    return StoredCapture(digest, rec.completion_id, rec.editor, rec.format, rec.model, rec.language, rec.filepath,
                         rec.outcome, rec.outcome_detail, rec.ts, rec.source.file, rec.source.line, rec.source.offset,
                         codec, body)


def line_body(line: bytes) -> bytes:
    """How the store keeps a whole-line capture's body: lz4-compressed, which halves or better
    what SQLite writes, at a few µs a line; a configured key's value never (replay.secrets: the
    line is the editor's own log, its code is kept as logged)."""
    return lz4.block.compress(secrets.scrub_registered_bytes(line))


def decode_capture(codec: str, blob: bytes, source: Source) -> CaptureRecord:
    """The record from a stored body (see StoredCapture); `source` is the row's own."""
    if codec == "record":
        return msgspec.json.decode(blob, type=CaptureRecord)
    line_codec = line_codecs().get(codec)
    if line_codec is None:
        raise BadStore(f"unknown capture codec {codec!r}: a newer fimreplay wrote this store, or fimreplay is not "
                         "installed (pip install -e .) so its formats are not registered")
    rec = line_codec.parse(lz4.block.decompress(blob), source)
    if rec is None:
        raise BadStore(f"stored {line_codec.format} line at {source.where()} is not a capture")
    return rec


# The row of an outcome event (event_row); a duplicate (same completion_id and key) is ignored.
INSERT_EVENT = ("INSERT OR IGNORE INTO outcome_events (completion_id, key, kind, choice_index, select_kind, view_id,"
                " elapsed, ts, source_file, source_line, source_offset) VALUES (?,?,?,?,?,?,?,?,?,?,?)")


EventRow = tuple[Any, ...]


def event_row(ev: OutcomeEvent) -> EventRow:
    """The outcome_events row of an event (what add_outcome_events takes besides the event:
    the importer builds rows where it parses). `key` is the event's identity within its
    completion, every field but the source."""
    key = msgspec.json.encode((ev.kind, ev.choice_index, ev.select_kind, ev.view_id, ev.elapsed, ev.ts))
    return (ev.completion_id, key, ev.kind, ev.choice_index, ev.select_kind, ev.view_id, ev.elapsed, ev.ts,
            ev.source.file, ev.source.line, ev.source.offset)

