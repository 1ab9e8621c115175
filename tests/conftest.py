"""Shared fixtures. Tests configure fimreplay through the environment (as Posting does):
FIMREPLAY_HOME points at a throw-away folder, FIMREPLAY_CACHE at the asset cache that
`fimreplay assets install` filled once (so tests stay offline)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT / "captures"

os.environ.setdefault("FIMREPLAY_CACHE", platformdirs.user_cache_dir("fimreplay"))


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh FIMREPLAY_HOME for the test: its store and data live under tmp_path."""
    monkeypatch.setenv("FIMREPLAY_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("FIMREPLAY_DB", raising=False)
    return tmp_path / "home"


def run_cli(*args: str, env: dict[str, str] | None = None, input: str | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Run `fimreplay ARGS` as a user would: a separate process, this checkout first on the path."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "replay", *args], capture_output=True, text=True, env=full_env,
                          input=input, timeout=timeout, cwd=str(ROOT))


@pytest.fixture()
def cli(home: Path):
    """`cli("import", path, "--json")` -> CompletedProcess, with the test's own home and store."""
    return run_cli


@pytest.fixture()
def anyio_backend() -> str:
    """The TUI's async tests (Textual's Pilot) run on asyncio."""
    return "asyncio"
