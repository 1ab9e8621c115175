"""Capture files into the store: import them once, list what is stored, or watch folders and
import what editors write as they write it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from replay.errors import FimreplayError, UsageError, WorkError
from replay.importers.formats import NAMES as FORMATS
from replay.importers.importer import Importer, ImportSummary
from replay.rejects import Rejects, stamped
from replay.store import Store
from replay.usecases.base import Say, quiet

__all__ = ["FORMATS", "CaptureListing", "ImportSummary", "Watch", "import_captures", "list_captures", "start_watch",
           "watch"]

if TYPE_CHECKING:
    from replay.scoring import CaptureReference

OnImported = Callable[[Path, ImportSummary], None]


def _rejects(path: Path | None, warn: Say | None) -> Rejects:
    # A rejects file named by the user is added to: a watch or an import started again keeps
    # what the earlier one rejected.
    return Rejects(path, name=stamped("import"), echo=warn, append=True)


def import_captures(store: Store, paths: Sequence[Path], fmt: str | None = None, rejects_path: Path | None = None,
                    warn: Say | None = None) -> ImportSummary:
    """Import capture files and folders (each file's format detected unless `fmt` forces one).
    Rejected records go to `rejects_path` (default: rejects/ beside the store), each told to `warn`."""
    for p in paths:
        if not p.exists():
            raise UsageError(f"{p}: no such file or directory")
    with _rejects(rejects_path, warn) as rejects:
        return Importer(store, rejects, fmt).import_paths(paths)


@dataclass(frozen=True)
class CaptureListing:
    """One stored capture, as `fimreplay captures` lists it."""

    id: int
    completion_id: str | None
    editor: str
    model: str | None
    language: str | None
    filepath: str | None
    outcome: str
    source: str
    editor_version: str | None = None  # the release the capture names (its log's, or `proxy --editor NAME@VERSION`)
    full: dict[str, Any] | None = None  # `--full`: route, http_status, request, completion
    reference: CaptureReference | None = None  # what a replay of it is scored against (`references`)
    reference_why: str | None = None  # why it has none

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        full = out.pop("full")
        out["reference"] = None if self.reference is None else msgspec.to_builtins(self.reference)
        if self.reference is not None or self.reference_why is None:
            out.pop("reference_why")
        return out if full is None else {**out, **full}


def list_captures(store: Store, limit: int | None = None, full: bool = False, references: bool = False) -> Iterator[CaptureListing]:
    """The stored captures in import order. `full` adds what was on the wire, for captures the
    proxy recorded (replay.proxy): the HTTP route and status, the request body as sent (secrets
    scrubbed) and the text the editor received; for an imported capture route, status and
    request are null (its log holds no request) and the completion is the logged one.
    `references` adds each capture's reference (replay.scoring.CaptureReferences: what the user
    typed at its cursor, else the accepted text), or why it has none."""
    from replay.scoring import CaptureReferences, reference_of

    known = CaptureReferences(store)
    for cid, rec, outcome in store.captures(limit=limit):
        ref, why = reference_of(rec, known.typed(cid)) if references else (None, None)
        details = None
        if full:
            wire = rec.extra.get("wire") if rec.format == "proxy" else None
            details = {"route": wire.get("route") if wire else None, "http_status": wire.get("http_status") if wire else None,
                       "request": rec.raw if wire else None, "completion": rec.completion}
        yield CaptureListing(cid, rec.completion_id, rec.editor, rec.model, rec.language, rec.filepath, outcome,
                             rec.source.where(), rec.editor_version, details, ref, why or None)


def watch(store: Store, dirs: Sequence[Path], stop: Callable[[], bool], on_imported: OnImported | None = None,
          fmt: str | None = None, rejects_path: Path | None = None, say: Say = quiet,
          warn: Say | None = None) -> ImportSummary:
    """Tail capture folders and import new records until `stop()` is true or Ctrl-C, on the
    caller's thread; returns the sum of every import. A failure of the watcher is a WorkError."""
    from replay.importers.watch import watch_folders

    for d in dirs:
        if not d.is_dir():
            raise UsageError(f"{d}: not a directory")
    say(f"watching {', '.join(str(d) for d in dirs)} (Ctrl-C stops)")
    with _rejects(rejects_path, warn) as rejects:
        try:
            return watch_folders(store, dirs, stop=stop, on_imported=on_imported, fmt=fmt, rejects=rejects, warn=warn)
        except KeyboardInterrupt:  # Ctrl-C is how a watch from a terminal ends
            return ImportSummary()
        except FimreplayError:
            raise
        except Exception as exc:  # the watcher thread's error, surfaced by watch_folders
            raise WorkError(f"watch failed: {exc}") from exc


class Watch:
    """A watch in the background (the TUI's `--watch`): its own store connection and thread,
    `on_imported` called from that thread; `stop()` ends both."""

    def __init__(self, store_path: Path, dirs: Sequence[Path], on_imported: OnImported | None = None) -> None:
        from replay.importers.watch import Watcher

        self._store = Store(store_path)
        self._watcher = Watcher(self._store, dirs, on_imported=on_imported)

    def start(self) -> Watch:
        self._watcher.start()
        return self

    def stop(self) -> None:
        self._watcher.stop()
        self._store.close()


def start_watch(store_path: Path, dirs: Sequence[Path], on_imported: OnImported | None = None) -> Watch:
    return Watch(store_path, dirs, on_imported).start()
