"""Import capture files and folders into the store: detect, parse, count, reject, batch-insert.

Idempotent by construction: captures and outcome events are keyed by their content hash in the
store, so a file imported twice (or re-read by `watch` after a truncation) adds nothing; the
second pass counts them as duplicates. Outcome events are joined to their capture by
completion_id in the store, whichever file or run brings either of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replay.importers import continue_console, continue_devdata, continue_jetbrains, tabby
from replay.importers.common import MAX_LINE_BYTES, READ_ERRORS, Ignored, Line, Parsed, Reject, RejectLog, iter_lines, open_binary, read_text
from replay.importers.detect import FORMATS, LINE_FORMATS, check_head, detect_file, read_head
from replay.records import CaptureRecord, OutcomeEvent, Source
from replay.store import Store

_LINE_PARSERS: dict[str, Callable[[bytes, Source], Parsed]] = {
    "tabby": tabby.parse_line,
    "continue-devdata": continue_devdata.parse_line,
}
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

    def __init__(self, store: Store, rejects: RejectLog, fmt: str | None = None, batch: int = 2000) -> None:
        if fmt is not None and fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
        self.store = store
        self.rejects = rejects
        self.fmt = fmt
        self.batch = batch
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fimreplay-store")
        self._pending: list[tuple[str, str, Future[tuple[int, int]]]] = []

    def close(self) -> None:
        """Stop the writer thread (every batch was committed by the call that queued it)."""
        self._writer.shutdown(wait=True)

    def __enter__(self) -> Importer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def import_paths(self, paths: Iterable[Path]) -> ImportSummary:
        summary = ImportSummary()
        for path in expand_paths(paths):
            summary.merge(self.import_file(path))
        summary.rejects_file = str(self.rejects.path) if self.rejects.count else None
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
        except Reject as exc:
            summary.count("unrecognized", "files")
            self._reject(summary, "unrecognized", name, 0, str(exc), b"")
            return summary
        summary.count(fmt, "files")
        if fmt in LINE_FORMATS:
            try:
                with open_binary(path) as f:
                    self._read_lines(summary, fmt, name, iter_lines(f), final=True)
            except READ_ERRORS as exc:  # a corrupt .gz, a file that vanished
                self._reject(summary, fmt, name, 0, f"cannot read: {exc}", b"")
        else:
            self._read_text(summary, fmt, path, name)
        summary.rejects_file = str(self.rejects.path) if self.rejects.count else None
        return summary

    def tail_lines(self, path: Path, fmt: str, offset: int, line: int) -> tuple[ImportSummary, int, int]:
        """Import the complete lines of a JSON Lines file from byte `offset` on; a partial last
        line is left for the next call. Returns (summary, new offset, new line number)."""
        summary = ImportSummary()
        name = str(path.resolve())
        with open(path, "rb") as f:
            f.seek(offset)
            end = self._read_lines(summary, fmt, name, iter_lines(f, offset, line), final=False, start=(offset, line))
        return summary, end[0], end[1]

    # -- internals ------------------------------------------------------------------------
    def _reject(self, summary: ImportSummary, fmt: str, file: str, line: int, reason: str, raw: bytes | str, length: int | None = None) -> None:
        summary.count(fmt, "rejected")
        self.rejects.add(file, line, reason, raw, length)

    def _read_lines(self, summary: ImportSummary, fmt: str, name: str, lines: Iterator[Line], final: bool,
                    start: tuple[int, int] = (0, 0)) -> tuple[int, int]:
        parse = _LINE_PARSERS[fmt]
        captures: list[CaptureRecord] = []
        events: list[OutcomeEvent] = []
        end_offset = end_line = None
        last = start
        try:
            for ln in lines:
                if not ln.complete and not final and not ln.too_long:
                    end_offset, end_line = ln.offset, ln.number - 1  # wait for the rest of the line
                    break
                last = (ln.offset + ln.length + (1 if ln.complete else 0), ln.number)
                if ln.too_long:
                    self._reject(summary, fmt, name, ln.number, f"line longer than {MAX_LINE_BYTES} bytes ({ln.length} bytes)", ln.data, ln.length)
                    continue
                data = ln.data
                if not data.strip():
                    continue  # a blank line holds no record (neither writer emits one)
                try:
                    rec = parse(data, Source(file=name, line=ln.number, offset=ln.offset))
                except Reject as exc:
                    reason = str(exc) if ln.complete else f"truncated last line (no newline at end of file): {exc}"
                    self._reject(summary, fmt, name, ln.number, reason, data)
                    continue
                if type(rec) is CaptureRecord:
                    captures.append(rec)
                    if len(captures) >= self.batch:
                        self._flush(summary, fmt, captures, events, wait=False)
                elif type(rec) is OutcomeEvent:
                    events.append(rec)
                    if len(events) >= self.batch:
                        self._flush(summary, fmt, captures, events, wait=False)
                else:
                    summary.count(fmt, "ignored")
        finally:  # what was read before a read error (a cut .gz) is still stored
            self._flush(summary, fmt, captures, events)
        if end_offset is None:
            end_offset, end_line = last
        return end_offset, end_line  # type: ignore[return-value]

    def _flush(self, summary: ImportSummary, fmt: str, captures: list[CaptureRecord], events: list[OutcomeEvent], wait: bool = True) -> None:
        """Hand the batches to the writer thread (SQLite runs without the GIL there while this
        thread parses on); with `wait`, block until every batch of the file is committed."""
        # Events first: a capture inserted after its events is written once, with its outcome.
        if events:
            self._pending.append((fmt, "outcomes", self._writer.submit(self.store.add_outcome_events, list(events))))
            events.clear()
        if captures:
            self._pending.append((fmt, "imported", self._writer.submit(self.store.add_captures, list(captures))))
            captures.clear()
        while self._pending and (wait or len(self._pending) > 2):
            f_fmt, key, fut = self._pending.pop(0)
            new, dup = fut.result()
            summary.count(f_fmt, key, new)
            summary.count(f_fmt, "duplicates", dup)

    def _read_text(self, summary: ImportSummary, fmt: str, path: Path, name: str) -> None:
        try:
            text = read_text(path)
        except Reject as exc:
            self._reject(summary, fmt, name, 0, str(exc), b"")
            return
        except READ_ERRORS as exc:
            self._reject(summary, fmt, name, 0, f"cannot read: {exc}", b"")
            return
        parser = continue_console.parse_text if fmt == "continue-console" else continue_jetbrains.parse
        captures: list[CaptureRecord] = []
        for line, rec in parser(text, name):
            if isinstance(rec, Reject):
                raw = _line_text(text, line)
                self._reject(summary, fmt, name, line, str(rec), raw)
            elif isinstance(rec, Ignored):
                summary.count(fmt, "ignored")
            else:
                captures.append(rec)
        self._flush(summary, fmt, captures, [])


def _line_text(text: str, line: int) -> str:
    """The text of a 1-based line, for the rejects file."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)]
