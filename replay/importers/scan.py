"""JSON Lines -> chunks of store rows: what the importer writes and the reader process sends.

Parsing never touches the store: a chunk holds the rows (flat tuples: they cross from the
reader process by pickle cheaply, where structs cost more to unpickle than to parse), the
rejects, the count of valid non-completions and where the read stands.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO, NamedTuple

from replay.importers.common import MAX_LINE_BYTES, READ_ERRORS, BadRecord, Line, Replayed, iter_lines, open_binary, record_bytes
from replay.importers.formats import capture_format
from replay.records import CaptureRecord, OutcomeEvent, Source
from replay.store import EventRow, StoredCapture, event_row, stored_capture


class Chunk(NamedTuple):
    """What parsing some lines gave, as the rows the store writes (flat tuples: they cross from
    the reader process by pickle cheaply, where structs cost more to unpickle than to parse),
    rejects as (line, reason, raw, length), the count of valid non-completions, the bytes of
    the capture lines, and where the read stands after."""

    captures: list[StoredCapture]
    events: list[EventRow]
    rejects: list[tuple[int, str, bytes, int | None]]
    ignored: int
    capture_bytes: int
    end: tuple[int, int]


# Lines are parsed and handed over this many records at a time (the reader process sends each
# chunk as soon as it is parsed, so writing starts early); transactions are `batch` records.
_CHUNK = 2_000


def scan(lines: Iterator[Line], fmt: str, name: str, final: bool = True, start: tuple[int, int] = (0, 0)) -> Iterator[Chunk]:
    """Parse lines into chunks of _CHUNK records. Without `final`, a last line with no newline
    yet is left for the next read: the chunk's `end` stops before it. A read error (a corrupt or
    cut .gz) ends the read with a reject, after the records read before it."""
    parse = capture_format(fmt).parse_line
    assert parse is not None, fmt
    captures: list[StoredCapture] = []
    events: list[EventRow] = []
    rejects: list[tuple[int, str, bytes, int | None]] = []
    ignored = held = 0
    end = start
    try:
        for ln in lines:
            if not ln.complete and not final and not ln.too_long:
                break  # wait for the rest of the line
            end = (ln.offset + ln.length + (1 if ln.complete else 0), ln.number)
            if ln.too_long:
                rejects.append((ln.number, f"line longer than {MAX_LINE_BYTES} bytes ({ln.length} bytes)", ln.data, ln.length))
                continue
            data = record_bytes(ln)
            if not data.strip():
                if ln.data[:1] == b"\x00":
                    rejects.append((ln.number, "NUL bytes only (a crash left this part of the log unwritten)", ln.data, None))
                continue  # a blank line holds no record (neither writer emits one)
            try:
                rec = parse(data, Source(file=name, line=ln.number, offset=ln.offset))
            except (BadRecord, RecursionError) as exc:
                why = str(exc) if isinstance(exc, BadRecord) else "JSON nested too deeply"
                reason = why if ln.complete else f"truncated last line (no newline at end of file): {why}"
                rejects.append((ln.number, reason, data, None))
                continue
            if type(rec) is StoredCapture:
                captures.append(rec)
                held += ln.length
            elif type(rec) is CaptureRecord:
                captures.append(stored_capture(rec))
                held += ln.length
            elif type(rec) is OutcomeEvent:
                events.append(event_row(rec))
            else:
                ignored += 1
            if len(captures) + len(events) + ignored >= _CHUNK:
                yield Chunk(captures, events, rejects, ignored, held, end)
                captures, events, rejects, ignored, held = [], [], [], 0, 0
    except READ_ERRORS as exc:
        rejects.append((0, f"cannot read: {exc}", b"", None))
    yield Chunk(captures, events, rejects, ignored, held, end)


def scan_stream(f: IO[bytes] | Replayed, fmt: str, name: str) -> Iterator[Chunk]:
    """`_scan` over a whole open stream."""
    yield from scan(iter_lines(f), fmt, name)  # type: ignore[arg-type]


def scan_path(path: Path, fmt: str, name: str) -> Iterator[Chunk]:
    """`_scan` over a whole file (one that cannot be opened, gone already, is a reject)."""
    try:
        f = open_binary(path)
    except OSError as exc:
        yield Chunk([], [], [(0, f"cannot read: {exc}", b"", None)], 0, 0, (0, 0))
        return
    with f:
        yield from scan_stream(f, fmt, name)
