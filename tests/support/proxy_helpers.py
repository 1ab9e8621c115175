"""A recording proxy started in the test's process (replay.usecases.proxy.start_proxy) and the
captures it wrote, read back from the store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from replay.records import CaptureRecord
from replay.store import Store
from replay.usecases.proxy import ProxyHandle, ProxyOptions, start_proxy


@contextmanager
def running_proxy(db: Path, upstream: str, warn: Callable[[str], None] | None = None,
                  **options: object) -> Iterator[ProxyHandle]:
    """A proxy whose bodies that cannot be recorded go to DB.rejects.jsonl beside the store
    (not the user's data dir); stopped when the block ends, whatever ends it."""
    options.setdefault("rejects_path", db.with_name(db.name + ".rejects.jsonl"))
    handle = start_proxy(db, ProxyOptions(upstream, "127.0.0.1:0", **options),  # type: ignore[arg-type]
                         warn=warn if warn is not None else (lambda _: None))
    try:
        yield handle
    finally:
        handle.stop()


def captures(db: Path) -> list[tuple[CaptureRecord, str]]:
    with_store = Store(db)
    try:
        return [(rec, outcome) for _, rec, outcome in with_store.captures()]
    finally:
        with_store.close()
