"""Tail capture folders and import new records as they are written (watchdog).

Threads: watchdog's observer thread runs the handler, which only puts the changed path on a
queue; one worker thread (started by `Watcher.start`) reads files and writes the store, and
calls `on_imported` from there, never from the UI thread or watchdog's. The worker also rescans
every known file when idle, so an event that the OS coalesced or dropped is caught up; a file
whose inode, size, mtime and ctime are those of its last read is not opened by a rescan (an
idle watch only stats its files).

Only what a writer does wakes the worker: creations, writes, attribute changes, moves and a
close after writing (watchdog's FileCreatedEvent, FileModifiedEvent, FileMovedEvent and
FileClosedEvent, asked of inotify as IN_CREATE, IN_MODIFY, IN_ATTRIB, IN_MOVE and
IN_CLOSE_WRITE: watchdog 7.1.0 observers/inotify.py get_event_mask_from_filter). Opens and
closes without a write (FileOpenedEvent, FileClosedNoWriteEvent) are never asked for: the
worker's own reads cause them, and answering them made each read cause the next, a core busy
for as long as the watch ran.

A store another program holds past the lock wait (or a full disk) is said in one line through
`warn`, once until a write succeeds again, and the file is read again at the next rescan: its
offset was not moved, so nothing is lost or read twice.

Per JSON Lines file the store keeps (inode, byte offset, line number, marks) in
`watch_offsets`: only complete lines are read (Tabby flushes a BufWriter every 5 s, so a
partial last line is usual and waits for its newline), a restart continues at the offset, and
a file that was replaced (inode changed), truncated (shorter than the offset) or rewritten (the
marks, its first 64 bytes and a digest of the 64 KiB before the offset, changed) is read again from its start;
each record's identity in the store keeps that from adding anything twice. Text logs (console copies, prompt.log) and `.gz` files are re-read
whole when their size or first bytes change.
"""

from __future__ import annotations

import hashlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

from watchdog.events import (
    FileClosedEvent,
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from replay.importers.common import BadRecord, open_binary
from replay.importers.detect import HEAD_BYTES, EmptyLog, read_head
from replay.importers.formats import LINE_FORMATS
from replay.importers.importer import Importer, ImportSummary, expand_paths
from replay.rejects import Rejects, stamped
from replay.store import Store, StoreFailed

HEAD_LEN = 64
TAIL_LEN = 64 * 1024
OnImported = Callable[[Path, ImportSummary], None]
# What a writer's changes raise (see the module's docstring): the observer's event filter.
WRITES: list[type[FileSystemEvent]] = [FileCreatedEvent, FileModifiedEvent, FileMovedEvent, FileClosedEvent]


class _Handoff(FileSystemEventHandler):
    """Runs on watchdog's thread: hands the paths over and does nothing else (the observer
    passes it only the WRITES events)."""

    def __init__(self, q: queue.Queue[str | None]) -> None:
        self.q = q

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory:
            return
        self.q.put(os.fsdecode(event.src_path))
        dest = getattr(event, "dest_path", "")
        if dest:
            self.q.put(os.fsdecode(dest))


class Watcher:
    """`Watcher(store, [dir], on_imported=cb).start()` ... `.stop()`; `total` sums every import."""

    def __init__(self, store: Store, dirs: Iterable[Path], on_imported: OnImported | None = None,
                 fmt: str | None = None, rejects: Rejects | None = None, rescan_s: float = 1.0,
                 warn: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.dirs = [Path(d).resolve() for d in dirs]
        self.on_imported = on_imported
        self.rejects = rejects if rejects is not None else Rejects(name=stamped("import"), append=True)
        self.importer = Importer(store, self.rejects, fmt)
        self.rescan_s = rescan_s
        self.total = ImportSummary()
        self._q: queue.Queue[str | None] = queue.Queue()
        self._observer = Observer()
        self._worker: threading.Thread | None = None
        self._unrecognized: dict[str, tuple[int, int]] = {}
        self._unreadable: set[str] = set()
        self._read_at: dict[str, tuple[int, int, int, int]] = {}  # path -> its stat at its last read
        self._store_fault: str | None = None  # the store failure said last (said once until a write succeeds)
        self.warn = warn
        self.error: BaseException | None = None

    def start(self) -> None:
        for d in self.dirs:
            self._observer.schedule(_Handoff(self._q), str(d), recursive=True, event_filter=WRITES)
        self._observer.start()
        self._worker = threading.Thread(target=self._run, name="fimreplay-watch", daemon=True)
        self._worker.start()

    def stop(self) -> None:
        self._observer.stop()
        self._observer.join()
        self._q.put(None)
        if self._worker is not None:
            self._worker.join()
        self.rejects.close()

    def __enter__(self) -> Watcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the worker -----------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._scan()
            while True:
                try:
                    first = self._q.get(timeout=self.rescan_s)
                except queue.Empty:
                    self._scan()
                    continue
                paths = {first}
                while True:  # coalesce a burst of events into one read per file
                    try:
                        paths.add(self._q.get_nowait())
                    except queue.Empty:
                        break
                for p in sorted(x for x in paths if x is not None):
                    self._poll_safely(Path(p))
                if None in paths:
                    return
        except BaseException as exc:  # surfaced to the caller through `error`
            self.error = exc
            raise

    def _scan(self) -> None:
        files, errors = expand_paths(self.dirs)
        for folder, why in errors:  # a folder that cannot be listed: reported once, not skipped silently
            self._report_unreadable(folder, f"cannot read folder: {why}")
        for p in files:
            if _stat_key(p) != self._read_at.get(str(p)):
                self._poll_safely(p)

    def _poll_safely(self, path: Path) -> None:
        """poll(), with a file that cannot be read (gone between two calls, no permission)
        reported once as a reject, and a store that cannot be written now said once, instead of
        ending the watch. The file's stat before the read is kept: a rescan reads it again only
        once it changed."""
        before = _stat_key(path)
        try:
            self.poll(path)
        except OSError as exc:
            self._report_unreadable(path, f"cannot read: {exc.strerror or exc}")
        except StoreFailed as exc:  # locked by another writer past the lock wait, a full disk
            if str(exc) != self._store_fault and self.warn is not None:
                self.warn(f"{exc} (the watch goes on and reads {path.name} again)")
            self._store_fault = str(exc)
        else:
            self._unreadable.discard(str(path.resolve()))
            self._store_fault = None
            if before is not None:
                self._read_at[str(path)] = before

    def _report_unreadable(self, path: Path, reason: str) -> None:
        key = str(path.resolve())
        if key not in self._unreadable:
            self._unreadable.add(key)
            summary = ImportSummary()
            summary.count("unreadable", "rejected")
            self.rejects.at(key, 0, reason)
            self._report(path, summary)

    def poll(self, path: Path) -> ImportSummary | None:
        """Read what is new in one file (called on the worker thread; public for tests)."""
        path = path.resolve()
        if not any(path.is_relative_to(d) for d in self.dirs):
            return None
        try:
            st = path.stat()
        except FileNotFoundError:
            return None
        if not path.is_file() or st.st_size == 0:
            return None
        key = str(path)
        with open_binary(path) as f:
            head = read_head(f)
        if b"\n" not in head and len(head) < HEAD_BYTES and b"\x00" not in head.lstrip(b"\x00"):
            return None  # the first line is still being written: detect it once it is whole
        try:
            fmt = self.importer.format_of(head, path.name)
        except EmptyLog:
            return None  # nothing written yet (or only NULs): looked at again when it grows
        except BadRecord as exc:
            if self._unrecognized.get(key) != (st.st_ino, st.st_size):
                self._unrecognized[key] = (st.st_ino, st.st_size)
                summary = ImportSummary()
                summary.count("unrecognized", "rejected")
                self.rejects.at(key, 0, str(exc))
                self._report(path, summary)
            return None
        self._unrecognized.pop(key, None)
        stored = self.store.get_offset(key)
        fresh = (stored is None or stored.inode != st.st_ino or st.st_size < stored.offset
                 or _marks(path, stored.offset) != stored.head)
        offset, line = (0, 0) if fresh else (stored.offset, stored.line)  # type: ignore[union-attr]
        marks: list[bytes] = []
        if fmt in LINE_FORMATS and not key.endswith(".gz"):
            summary, offset, line = self.importer.tail_lines(path, fmt, offset, line,
                                                             at_end=lambda f, end: marks.append(_marks_of(f, end)))
            if not fresh and _marks(path, stored.offset) != stored.head:  # type: ignore[union-attr]
                # Rewritten in place (copytruncate) between the check above and the read: the
                # read went on from an offset of the old file, and the marks taken at its end
                # are of the new one (kept, they would hide its start for good). Read it again
                # from its start; what was stored already counts as duplicates.
                marks.clear()
                again, offset, line = self.importer.tail_lines(path, fmt, 0, 0,
                                                               at_end=lambda f, end: marks.append(_marks_of(f, end)))
                summary.merge(again)
            if offset == 0 and stored is None:
                return None
        else:
            if not fresh and st.st_size == offset:
                return None
            summary = self.importer.import_file(path)
            offset, line = st.st_size, 0
        self.store.set_offset(key, st.st_ino, offset, line, marks[0] if marks else _marks(path, offset))
        self._report(path, summary)
        return summary

    def _report(self, path: Path, summary: ImportSummary) -> None:
        summary.rejects_file = self.rejects.file
        self.total.merge(summary)
        changed = summary.imported or summary.outcomes or summary.rejected or summary.ignored or summary.duplicates
        if changed and self.on_imported is not None:
            self.on_imported(path, summary)


def watch_folders(store: Store, dirs: Iterable[Path], stop: Callable[[], bool], on_imported: OnImported | None = None,
                  fmt: str | None = None, rejects: Rejects | None = None, check_s: float = 0.2,
                  warn: Callable[[str], None] | None = None) -> ImportSummary:
    """Watch until `stop()` is true (checked every `check_s` s), for a caller that gives this a
    thread of its own (the TUI's worker, the CLI's main thread). Returns the sum of every import;
    an error on the watcher's thread is raised here."""
    watcher = Watcher(store, dirs, on_imported=on_imported, fmt=fmt, rejects=rejects, warn=warn)
    watcher.start()
    try:
        while not stop() and watcher.error is None:
            time.sleep(check_s)
    finally:
        watcher.stop()
    if watcher.error is not None:
        raise watcher.error
    return watcher.total


def _stat_key(path: Path) -> tuple[int, int, int, int] | None:
    """What changes whenever a file is written, replaced or truncated (None: it cannot be
    stat'ed): a write moves mtime and ctime, a replacement the inode."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _marks(path: Path, offset: int) -> bytes:
    """What tells that the part of a file already read is still the same (kept in
    watch_offsets.head): its first HEAD_LEN bytes and a digest of the last TAIL_LEN bytes before
    `offset`. If either changed, the file was rewritten (a copytruncate rotation that wrote the
    same number of bytes again included) and is read again from its start."""
    with open(path, "rb") as f:
        return _marks_of(f, offset)


def _marks_of(f: IO[bytes], offset: int) -> bytes:
    """`_marks` of an open file (its position is moved)."""
    n = min(HEAD_LEN, offset)
    start = max(0, offset - TAIL_LEN)
    f.seek(0)
    first = f.read(n)
    f.seek(start)
    return first + hashlib.blake2b(f.read(offset - start), digest_size=16).digest()
