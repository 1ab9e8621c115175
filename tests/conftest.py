"""Shared fixtures. Tests configure fimreplay through the environment (as Posting does):
FIMREPLAY_HOME points at a throw-away folder, FIMREPLAY_CACHE at the asset cache that
`fimreplay assets install` filled once (so tests stay offline)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
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


def free_port() -> int:
    """A loopback port nothing listens on now (for a server a test starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port: int, timeout: float = 30) -> None:
    """Return once something accepts connections on the loopback `port`; fail after `timeout` s."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"nothing listens on {port}")


def refuse_folders(monkeypatch: pytest.MonkeyPatch, suffix: str) -> None:
    """Make listing any folder whose path ends with `suffix` fail as an unreadable folder does.
    The suite runs as root, which reads every folder, so the refusal is made here: os.scandir
    raising what the OS raises."""
    real = os.scandir

    def scandir(path: object = ".") -> object:
        if str(path).endswith(suffix):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)


@pytest.fixture()
def anyio_backend() -> str:
    """The TUI's async tests (Textual's Pilot) run on asyncio."""
    return "asyncio"


# -- secrets never reach the disk ---------------------------------------------------------------
# A key planted for the whole suite: tests that exercise credentials pass it through
# `--api-key-env FIMREPLAY_TEST_API_KEY` (or read PLANTED_KEY), and servers in them echo it
# back. It has no known key shape, so only the registered-value part of the secrets rule can
# take it out: the check below fails the session if any file written under the suite's
# temporary base holds it, plain or inside a store's compressed capture bodies.
PLANTED_KEY_ENV = "FIMREPLAY_TEST_API_KEY"
PLANTED_INPUTS = "planted-inputs"  # a folder for the inputs a test plants the key in: not checked
PLANTED_KEY = "planted-" + os.urandom(12).hex()
os.environ[PLANTED_KEY_ENV] = PLANTED_KEY


def files_holding(base: Path, needle: str) -> list[Path]:
    """Every file under `base` that holds `needle`: its bytes, and for an SQLite store the
    decompressed bodies of its captures too (lz4 would hide a key from a byte search)."""
    import sqlite3

    found = []
    data = needle.encode()
    for path in sorted(base.rglob("*")):
        if not path.is_file() or path.is_symlink() or PLANTED_INPUTS in path.parts:
            continue
        try:
            with path.open("rb") as fh:
                head = fh.read(16)
                fh.seek(0)
                hit = any(data in chunk for chunk in _overlapping(fh, len(data)))
        except OSError:
            continue
        if not hit and head.startswith(b"SQLite format 3"):
            try:
                with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
                    rows = con.execute("SELECT codec, record FROM capture_records").fetchall()
                hit = any(data in _body(r[0], r[1]) for r in rows)
            except sqlite3.Error:
                pass
        if hit:
            found.append(path)
    return found


def _body(codec: str, blob: bytes) -> bytes:
    """A stored capture body as text (a damaged one as it is)."""
    import lz4.block

    if codec == "record":
        return blob
    try:
        return lz4.block.decompress(blob)
    except (lz4.block.LZ4BlockError, ValueError):
        return blob


def _overlapping(fh, overlap: int, size: int = 1 << 22):  # type: ignore[no-untyped-def]
    """A file in chunks that overlap by `overlap` bytes (a needle across a boundary is found)."""
    tail = b""
    while chunk := fh.read(size):
        yield tail + chunk
        tail = chunk[-overlap:]


@pytest.fixture(scope="session", autouse=True)
def planted_key_never_on_disk(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """After the whole session: no file the suite wrote holds the planted key."""
    yield
    leaks = files_holding(tmp_path_factory.getbasetemp(), PLANTED_KEY)
    assert not leaks, f"the planted API key was written to disk: {[str(p) for p in leaks[:10]]}"
