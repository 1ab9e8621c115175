"""Import capture files and folders into the store: detect, parse, count, reject, batch-insert.

Idempotent by construction: captures and outcome events are keyed by their identity in the
store (a Tabby capture's is its log line; see replay.store), so a file imported twice (or re-read
by `watch` after a truncation) adds nothing; the second pass counts them as duplicates. Outcome
events are joined to their capture by completion_id in the store, whichever file or run brings
either of them.

Parsing (replay.importers.scan: lines -> chunks of store rows, rejects and counts) never touches the store;
writing (`Importer._write`) never parses. A large file is parsed in a reader process
(replay.importers.reader) while this one writes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import msgspec

from replay.importers.common import (MAX_TEXT_BYTES, READ_ERRORS, BadRecord, Ignored, Replayed, bad_byte, decode_text, iter_lines,
                                     open_binary, snippet_of)
from replay.importers.continue_console import FORMAT as CONSOLE_FORMAT
from replay.importers.detect import EmptyLog, check_head, detect_bytes, read_head
from replay.importers.formats import LINE_FORMATS, capture_format
from replay.importers.reader import chunks_from_reader
from replay.importers.scan import Chunk, scan, scan_stream
from replay.records import CaptureRecord
from replay.rejects import Rejects
from replay.secrets import scrub_text
from replay.store import EventRow, Store, StoredCapture, stored_capture

_COUNTERS = ("files", "imported", "duplicates", "outcomes", "ignored", "rejected")

# The records of an import's first transaction (see Importer._write).
_FIRST_BATCH = 2_000


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


def expand_paths(paths: Iterable[Path]) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Files named, and every file below the folders named (sorted, so runs are repeatable),
    and the folders that could not be listed with why (reported, never skipped silently)."""
    out: list[Path] = []
    errors: list[tuple[Path, str]] = []
    for p in paths:
        if not p.is_dir():
            out.append(p)
            continue
        found: list[Path] = []
        for root, dirs, files in os.walk(p, onerror=lambda exc: errors.append((Path(exc.filename), exc.strerror or str(exc)))):
            dirs.sort()
            found.extend(q for q in (Path(root) / f for f in files) if q.is_file())
        out.extend(sorted(found))
    return out, errors


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
        files, errors = expand_paths(paths)
        for folder, why in errors:
            summary.count("unreadable", "files")
            self._reject(summary, "unreadable", str(folder), 0, f"cannot read folder: {why}", b"")
        for path in files:
            summary.merge(self.import_file(path))
        summary.rejects_file = self.rejects.file
        return summary

    def format_of(self, head: bytes, name: str) -> str:
        """The forced format (the file must still hold something) or the detected one."""
        if self.fmt:
            check_head(head)
            return self.fmt
        return detect_bytes(head, name)

    def import_file(self, path: Path) -> ImportSummary:
        """Import one whole file (the last line is taken even without its newline). The file is
        opened and read once: its head tells the format, and the read goes on from there."""
        summary = ImportSummary()
        name = str(path.resolve())
        try:
            f = open_binary(path)
        except OSError as exc:
            summary.count("unreadable", "files")
            self._reject(summary, "unreadable", name, 0, f"cannot read: {exc.strerror or exc}", b"")
            return summary
        with f:
            try:
                head = read_head(f)
                fmt = self.format_of(head, path.name)
            except EmptyLog:
                summary.count("empty", "files")  # an install's unused log: nothing to import, nothing wrong
                return summary
            except BadRecord as exc:
                summary.count("unrecognized", "files")
                self._reject(summary, "unrecognized", name, 0, str(exc), b"")
                return summary
            summary.count(fmt, "files")
            stream = Replayed(head, f)
            if fmt not in LINE_FORMATS:
                self._read_text(summary, fmt, stream, name)
            elif _is_big(f, name, self.reader_min_bytes) and not name.endswith(".gz"):
                self._write(summary, fmt, name, chunks_from_reader(Path(name), fmt, name))
            else:
                self._write(summary, fmt, name, scan_stream(stream, fmt, name))
        summary.rejects_file = self.rejects.file
        return summary

    def tail_lines(self, path: Path, fmt: str, offset: int, line: int,
                   at_end: Callable[[IO[bytes], int], None] | None = None) -> tuple[ImportSummary, int, int]:
        """Import the complete lines of a JSON Lines file from byte `offset` on; a partial last
        line is left for the next call. Returns (summary, new offset, new line number).
        `at_end(f, offset)` is called once the lines are read and before the last of them are
        stored (watch takes the file's marks there, so a rewrite after the store shows the
        records cannot slip in between)."""
        summary = ImportSummary()
        name = str(path.resolve())
        with open(path, "rb") as f:
            f.seek(offset)
            chunks = scan(iter_lines(f, offset, line), fmt, name, final=False, start=(offset, line))
            end = self._write(summary, fmt, name, _then(chunks, lambda c: at_end(f, c.end[0])) if at_end else chunks)
        return summary, end[0], end[1]

    # -- internals ------------------------------------------------------------------------
    def _reject(self, summary: ImportSummary, fmt: str, file: str, line: int, reason: str, raw: bytes | str, length: int | None = None) -> None:
        summary.count(fmt, "rejected")
        data = raw.encode("utf-8", errors="surrogatepass") if isinstance(raw, str) else raw
        self.rejects.at(file, line, reason, scrub_text(snippet_of(data)), len(data) if length is None else length)

    def _write(self, summary: ImportSummary, fmt: str, name: str, chunks: Iterable[Chunk]) -> tuple[int, int]:
        """Count and store what the chunks hold, `batch` records or `batch_bytes` of capture
        lines per transaction; return where the read ended (byte offset, line number).

        The first transactions are smaller (_FIRST_BATCH records, then twice as many each time,
        up to `batch`): the store starts writing as soon as the first lines are parsed instead
        of waiting for a whole batch (a third of a 67 MB import's time, with the reader
        process), while the store is still small enough that a commit rewrites few pages."""
        captures: list[StoredCapture] = []
        events: list[EventRow] = []
        held = 0
        limit = min(_FIRST_BATCH, self.batch)
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
                if len(captures) + len(events) >= limit or held >= self.batch_bytes:
                    self._flush(summary, fmt, captures, events)
                    held = 0
                    limit = min(2 * limit, self.batch)
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

    def _read_text(self, summary: ImportSummary, fmt: str, stream: IO[bytes] | Replayed, name: str) -> None:
        """A text log, parsed whole; an entry holding a byte that is not UTF-8 is rejected alone."""
        try:
            text = decode_text(stream.read(MAX_TEXT_BYTES + 1))
        except BadRecord as exc:
            self._reject(summary, fmt, name, 0, str(exc), b"")
            return
        except READ_ERRORS as exc:
            self._reject(summary, fmt, name, 0, f"cannot read: {exc}", b"")
            return
        parse = capture_format(fmt).parse_text
        assert parse is not None, fmt
        captures: list[StoredCapture] = []
        for line, rec in parse(text, name):
            if isinstance(rec, CaptureRecord) and (at := bad_byte(rec.raw)) is not None:
                rec = BadRecord(f"invalid UTF-8 in this entry (line {line + rec.raw.count(chr(10), 0, at)})")
            if isinstance(rec, BadRecord):
                raw = _line_text(text, line)
                self._reject(summary, fmt, name, line, str(rec), raw)
            elif isinstance(rec, Ignored):
                summary.count(fmt, "ignored")
            else:
                captures.append(_text_capture(rec))
        self._write(summary, fmt, name, [Chunk(captures, [], [], 0, 0, (0, 0))])


def _then(chunks: Iterable[Chunk], last: Callable[[Chunk], None]) -> Iterator[Chunk]:
    """The chunks, with `last` called on the last one before it is handed on."""
    held: Chunk | None = None
    for chunk in chunks:
        if held is not None:
            yield held
        held = chunk
    if held is not None:
        last(held)
        yield held


def _is_big(f: IO[bytes], name: str, min_bytes: int) -> bool:
    """Whether an open file is a regular file of `min_bytes` or more that the reader process
    can open again by `name` (its resolved path). A pipe or FIFO cannot be read twice, and
    /dev/stdin names another file in another process."""
    try:
        st = os.fstat(f.fileno())
        again = os.stat(name)
    except (OSError, ValueError, AttributeError):
        return False
    same = (st.st_dev, st.st_ino) == (again.st_dev, again.st_ino)
    return same and stat.S_ISREG(st.st_mode) and st.st_size >= min_bytes


def _text_capture(rec: CaptureRecord) -> StoredCapture:
    """A text log's capture row, identified by what it is: a console copy saved with CRLF line
    ends is marked lossy (its own CRs cannot be told from the copy's), which says how it was
    read, not what was sent, so the mark is left out of its identity and the LF original and
    the copy are one capture. (JetBrains captures are always lossy: their identity keeps it.)"""
    row = stored_capture(rec)
    if rec.lossy and rec.format == CONSOLE_FORMAT:
        row = row._replace(digest=bytes.fromhex(msgspec.structs.replace(rec, lossy=False).content_hash()))
    return row


def _line_text(text: str, line: int) -> str:
    """The text of a 1-based line, for the rejects file."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)]
