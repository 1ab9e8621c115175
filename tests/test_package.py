"""The package itself: the library is usable without the TUI, the CLI answers, the store migrates."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys

import pytest

from replay.store import SCHEMA_VERSION, Store, StoreError
from tests.conftest import ROOT


def test_library_does_not_load_textual() -> None:
    code = (
        "import sys, importlib, pkgutil, replay\n"
        "for m in pkgutil.walk_packages(replay.__path__, 'replay.'):\n"
        "    if not m.name.endswith('__main__'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n == 'textual' or n.startswith(('textual.', 'tui')))\n"
        "print(','.join(bad))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


def test_cli_help_and_version(cli) -> None:
    out = cli("--help")
    assert out.returncode == 0 and "fimreplay" in out.stdout
    assert cli("--version").returncode == 0


def test_store_is_created_with_current_schema_and_wal(tmp_path) -> None:
    path = tmp_path / "s.db"
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_store_refuses_a_newer_schema(tmp_path) -> None:
    path = tmp_path / "s.db"
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(StoreError, match="newer"):
        Store(path)


def test_store_migrates_from_every_earlier_version(tmp_path) -> None:
    """A store at version 0 (empty file) reaches the current version through each migration."""
    path = tmp_path / "old.db"
    sqlite3.connect(path).close()
    with Store(path) as store:
        tables = {r[0] for r in store.query("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"captures", "outcome_events", "items", "runs", "completions", "scores", "watch_offsets"} <= tables
