"""Import capture files and folders into the store: detect, parse, count, reject, batch-insert.

Idempotent by construction: captures and outcome events are keyed by their identity in the
store (a Tabby capture's is its log line; see replay.store), so a file imported twice (or re-read
by `watch` after a truncation) adds nothing; the second pass counts them as duplicates. Outcome
events are joined to their capture by completion_id in the store, whichever file or run brings
either of them.

Parsing (`_scan`: lines -> chunks of store rows, rejects and counts) never touches the store;
writing (`Importer._write`) never parses. A large file is parsed in a reader process while
this one writes.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from multiprocessing.connection import Connection
from typing import Any, NamedTuple

from replay.importers.common import MAX_LINE_BYTES, READ_ERRORS, BadRecord, Ignored, Line, iter_lines, open_binary, read_text, snippet_of
from replay.secrets import scrub_text
from replay.importers.detect import check_head, detect_file, read_head
from replay.importers.formats import LINE_FORMATS, capture_format
from replay.records import CaptureRecord, OutcomeEvent, Source
from replay.rejects import Rejects
from replay.store import EventRow, Store, StoredCapture, event_row, stored_capture

_COUNTERS = ("files", "imported", "duplicates", "outcomes", "ignored", "rejected")


@dataclass
class ImportSummary:
    """What one import did. `imported` counts new captures (one per completion request),
    `outcomes` new view/select/dismiss events, `duplicates` records already stored (captures
    and events), `ignored` valid records that are not completions, `rejected` unusable ones."""

    imported: int = 0
    duplicates: int = 0
    outcomes: int = 0
    ignored: int = 0
    rejected: int = 0
    rejects_file: str | None = None
    by_format: dict[str, dict[str, int]] = field(default_factory=dict)

    def count(self, fmt: str, key: str, n: int = 1) -> None:
        if n == 0 and key != "files":
            return
        if key != "files":
            setattr(self, key, getattr(self, key) + n)
        per = self.by_format.setdefault(fmt, dict.fromkeys(_COUNTERS, 0))
        per[key] += n

    def merge(self, other: ImportSummary) -> None:
        for fmt, per in other.by_format.items():
            for key, n in per.items():
                self.count(fmt, key, n)
        self.rejects_file = other.rejects_file or self.rejects_file

    def to_json(self) -> dict[str, Any]:
        return {
            "imported": self.imported, "duplicates": self.duplicates, "outcomes": self.outcomes,
            "ignored": self.ignored, "rejected": self.rejected, "rejects_file": self.rejects_file,
            "by_format": self.by_format,
        }


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files named, and every file below the folders named (sorted, so runs are repeatable)."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*") if q.is_file()))
        else:
            out.append(p)
    return out


class Importer:
    """Reads capture files into a store, counting everything and keeping rejects in a file."""

    def __init__(self, store: Store, rejects: Rejects, fmt: str | None = None, batch: int = 20_000,
                 batch_bytes: int = 32 * 1024 * 1024, reader_min_bytes: int = 16 * 1024 * 1024) -> None:
        """`batch` records or `batch_bytes` of capture lines make one transaction: few large
        commits, because every commit writes each index page it touched again (the identity and
        completion_id keys are random, so a batch touches most of them).

        A line-format file of `reader_min_bytes` or more is parsed in a reader process while
        this one writes the chunks before: parsing and SQLite each take about half of an
        import's CPU. (Measured on the import bench, 2 cores: a writer thread is slower than
        none, as executemany takes the GIL back for every row while the parser holds it; the
        process needs flat rows, since unpickling a struct costs more than parsing its line.)
        Smaller files are read here: starting a process costs more than they take."""
        if fmt is not None:
            capture_format(fmt)  # an unknown name is bad usage
        self.store = store
        self.rejects = rejects
        self.fmt = fmt
        self.batch = batch
        self.batch_bytes = batch_bytes
        self.reader_min_bytes = reader_min_bytes

    def import_paths(self, paths: Iterable[Path]) -> ImportSummary:
        summary = ImportSummary()
        for path in expand_paths(paths):
            summary.merge(self.import_file(path))
        summary.rejects_file = self.rejects.file
        return summary

    def format_of(self, path: Path) -> str:
        """The forced format (the file must still be non-empty text) or the detected one."""
        if self.fmt:
            check_head(read_head(path))
            return self.fmt
        return detect_file(path)

    def import_file(self, path: Path) -> ImportSummary:
        """Import one whole file (the last line is taken even without its newline)."""
        summary = ImportSummary()
        name = str(path.resolve())
        try:
            fmt = self.format_of(path)
        except BadRecord as exc:
            summary.count("unrecognized", "files")
            self._reject(summary, "unrecognized", name, 0, str(exc), b"")
            return summary
        summary.count(fmt, "files")
        if fmt in LINE_FORMATS:
            try:
                big = path.stat().st_size >= self.reader_min_bytes
            except OSError:
                big = False  # gone already: the read in this process reports it
            read = _chunks_from_reader if big else _scan_file
            self._write(summary, fmt, name, read(path, fmt, name))
        else:
            self._read_text(summary, fmt, path, name)
        summary.rejects_file = self.rejects.file
        return summary

    def tail_lines(self, path: Path, fmt: str, offset: int, line: int) -> tuple[ImportSummary, int, int]:
        """Import the complete lines of a JSON Lines file from byte `offset` on; a partial last
        line is left for the next call. Returns (summary, new offset, new line number)."""
        summary = ImportSummary()
        name = str(path.resolve())
        with open(path, "rb") as f:
            f.seek(offset)
            chunks = _scan(iter_lines(f, offset, line), fmt, name, final=False, start=(offset, line))
            end = self._write(summary, fmt, name, chunks)
        return summary, end[0], end[1]

    # -- internals ------------------------------------------------------------------------
    def _reject(self, summary: ImportSummary, fmt: str, file: str, line: int, reason: str, raw: bytes | str, length: int | None = None) -> None:
        summary.count(fmt, "rejected")
        data = raw.encode("utf-8", errors="surrogatepass") if isinstance(raw, str) else raw
        self.rejects.at(file, line, reason, scrub_text(snippet_of(data)), len(data) if length is None else length)

    def _write(self, summary: ImportSummary, fmt: str, name: str, chunks: Iterable[_Chunk]) -> tuple[int, int]:
        """Count and store what the chunks hold, `batch` records or `batch_bytes` of capture
        lines per transaction; return where the read ended (byte offset, line number)."""
        captures: list[StoredCapture] = []
        events: list[EventRow] = []
        held = 0
        end = (0, 0)
        try:
            for chunk in chunks:
                for line, reason, raw, length in chunk.rejects:
                    self._reject(summary, fmt, name, line, reason, raw, length)
                summary.count(fmt, "ignored", chunk.ignored)
                captures += chunk.captures
                events += chunk.events
                held += chunk.capture_bytes
                end = chunk.end
                if len(captures) + len(events) >= self.batch or held >= self.batch_bytes:
                    self._flush(summary, fmt, captures, events)
                    held = 0
        finally:  # what was read before a failure is still stored
            self._flush(summary, fmt, captures, events)
        return end

    def _flush(self, summary: ImportSummary, fmt: str, captures: list[StoredCapture], events: list[EventRow]) -> None:
        """One transaction for the events, then one for the captures: a capture inserted after
        its events gets its outcome as it is written."""
        for key, rows, add in (("outcomes", events, self.store.add_outcome_events), ("imported", captures, self.store.add_captures)):
            if rows:
                new, dup = add(rows)  # type: ignore[operator]
                summary.count(fmt, key, new)
                summary.count(fmt, "duplicates", dup)
                rows.clear()

    def _read_text(self, summary: ImportSummary, fmt: str, path: Path, name: str) -> None:
        try:
            text = read_text(path)
        except BadRecord as exc:
            self._reject(summary, fmt, name, 0, str(exc), b"")
            return
        except READ_ERRORS as exc:
            self._reject(summary, fmt, name, 0, f"cannot read: {exc}", b"")
            return
        parse = capture_format(fmt).parse_text
        assert parse is not None, fmt
        captures: list[CaptureRecord] = []
        for line, rec in parse(text, name):
            if isinstance(rec, BadRecord):
                raw = _line_text(text, line)
                self._reject(summary, fmt, name, line, str(rec), raw)
            elif isinstance(rec, Ignored):
                summary.count(fmt, "ignored")
            else:
                captures.append(rec)
        self._write(summary, fmt, name, [_Chunk([stored_capture(c) for c in captures], [], [], 0, 0, (0, 0))])


class _Chunk(NamedTuple):
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


def _scan(lines: Iterator[Line], fmt: str, name: str, final: bool = True, start: tuple[int, int] = (0, 0)) -> Iterator[_Chunk]:
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
            data = ln.data
            if not data.strip():
                continue  # a blank line holds no record (neither writer emits one)
            try:
                rec = parse(data, Source(file=name, line=ln.number, offset=ln.offset))
            except BadRecord as exc:
                reason = str(exc) if ln.complete else f"truncated last line (no newline at end of file): {exc}"
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
                yield _Chunk(captures, events, rejects, ignored, held, end)
                captures, events, rejects, ignored, held = [], [], [], 0, 0
    except READ_ERRORS as exc:
        rejects.append((0, f"cannot read: {exc}", b"", None))
    yield _Chunk(captures, events, rejects, ignored, held, end)


def _scan_file(path: Path, fmt: str, name: str) -> Iterator[_Chunk]:
    """`_scan` over a whole file (one that cannot be opened, gone already, is a reject)."""
    try:
        f = open_binary(path)
    except OSError as exc:
        yield _Chunk([], [], [(0, f"cannot read: {exc}", b"", None)], 0, 0, (0, 0))
        return
    with f:
        yield from _scan(iter_lines(f), fmt, name)


def _reader(path: str, fmt: str, name: str, conn: Connection) -> None:
    """The reader process: send the chunks of one file, then None (or the failure's text).

    A thread sends while this one parses on: a chunk is far larger than the pipe, so sending it
    waits for the importer to take it, and the importer takes none while it is writing."""
    out: queue.Queue[_Chunk | str | None] = queue.Queue(maxsize=32)

    def send() -> None:
        try:
            while (item := out.get()) is not None and not isinstance(item, str):
                conn.send(item)
            conn.send(item)
        except OSError:  # the importer stopped reading (it failed, or was stopped): nothing left to do
            os._exit(1)

    sender = threading.Thread(target=send, name="fimreplay-reader-send", daemon=True)
    sender.start()
    try:
        for chunk in _scan_file(Path(path), fmt, name):
            out.put(chunk)
        out.put(None)
    except BaseException as exc:  # a bug, not bad input: the importer raises it
        out.put(f"reader process failed on {path}: {exc!r}")
    finally:
        sender.join()
        conn.close()


def _chunks_from_reader(path: Path, fmt: str, name: str) -> Iterator[_Chunk]:
    """The chunks of `path`, parsed in a reader process while the caller writes the ones
    before (forkserver: the child is not a copy of this process's threads and locks)."""
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_reader, args=(str(path), fmt, name, send), name="fimreplay-reader", daemon=True)
    try:
        proc.start()
    except OSError:  # no process can be started here (a sandbox, a limit): read in this one
        receive.close()
        send.close()
        yield from _scan_file(path, fmt, name)
        return
    send.close()
    try:
        while True:
            try:
                item = receive.recv()
            except EOFError:
                proc.join()
                raise RuntimeError(f"{path}: the reader process exited with code {proc.exitcode} before the end") from None
            if item is None:
                return
            if isinstance(item, str):
                raise RuntimeError(item)
            yield item
    finally:
        receive.close()
        proc.join(timeout=5)
        if proc.is_alive():
            proc.kill()
            proc.join()


def _line_text(text: str, line: int) -> str:
    """The text of a 1-based line, for the rejects file."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)]
