"""A recording proxy started in the test's process (replay.usecases.proxy.start_proxy) and the
captures it wrote, read back from the store."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from replay.records import CaptureRecord
from replay.store import Store
from replay.usecases.proxy import ProxyHandle, ProxyOptions, start_proxy


@contextmanager
def running_proxy(db: Path, upstream: str, **options: object) -> Iterator[ProxyHandle]:
    handle = start_proxy(db, ProxyOptions(upstream, "127.0.0.1:0", **options))  # type: ignore[arg-type]
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
