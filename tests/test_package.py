"""The package itself: the library is usable without the TUI, the CLI answers, the store migrates."""

from __future__ import annotations

import json
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
    assert {"captures", "outcome_events", "items", "runs", "completions", "score_sets", "item_references", "scored_inputs",
            "watch_offsets"} <= tables


def _schema_3_without_capture_records(path) -> None:
    """A store that says schema 3 but lacks a table of it (written by unreleased code)."""
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                      "CREATE TABLE captures (id INTEGER PRIMARY KEY, hash TEXT);"
                      "CREATE TABLE outcome_events (id INTEGER PRIMARY KEY, hash TEXT, record BLOB);"
                      "CREATE INDEX outcome_events_completion_id ON outcome_events(hash);")
    con.execute("PRAGMA user_version=3")
    con.close()


def test_a_failed_migration_is_one_clear_error_and_changes_nothing(tmp_path, cli) -> None:
    path = tmp_path / "odd.db"
    _schema_3_without_capture_records(path)
    with pytest.raises(StoreError, match=r"odd\.db: cannot migrate the store from schema 3 to 4: no such column"):
        Store(path)
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 3
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
    assert {"captures", "outcome_events"} <= names and "captures_4" not in names
    out = cli("captures", "--db", str(path))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "cannot migrate" in out.stderr


def test_assets_commands_do_not_open_the_store(tmp_path, cli) -> None:
    """`assets install` is a set-up step: a store it cannot open must not stop it."""
    path = tmp_path / "odd.db"
    _schema_3_without_capture_records(path)
    env = {"FIMREPLAY_DB": str(path)}
    assert cli("captures", env=env).returncode == 2  # the store commands do open it
    out = cli("assets", "list", "--json", env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["assets"]
