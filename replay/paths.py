"""Where fimreplay keeps its files: the store, the asset cache, rejects.

`FIMREPLAY_HOME` moves everything under one folder (tests and CI use it, as Posting configures
itself through the environment); otherwise the platform's user data and cache dirs are used.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs


def home() -> Path | None:
    value = os.environ.get("FIMREPLAY_HOME")
    return Path(value) if value else None


def data_dir() -> Path:
    base = home()
    path = base / "data" if base else Path(platformdirs.user_data_dir("fimreplay"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_dir() -> Path:
    """The asset cache (vocabularies, the demo model). `FIMREPLAY_CACHE` overrides it alone,
    so that tests with a throw-away home can still share the assets installed once."""
    value = os.environ.get("FIMREPLAY_CACHE")
    if value:
        path = Path(value)
    elif home():
        path = home() / "cache"  # type: ignore[operator]
    else:
        path = Path(platformdirs.user_cache_dir("fimreplay"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_db() -> Path:
    value = os.environ.get("FIMREPLAY_DB")
    return Path(value) if value else data_dir() / "fimreplay.db"
