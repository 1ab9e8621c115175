"""Record what an editor sends its model, on the wire: run the recording proxy in front of the
editor's model server, in the foreground (`fimreplay proxy`) or beside the TUI."""

from __future__ import annotations

import asyncio
import ipaddress
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from replay.errors import UsageError, WorkError
from replay.proxy.clients import CLIENTS, UNKNOWN
from replay.proxy.exchange import DEFAULT_MAX_BODY
from replay.proxy.recorder import OnRecorded, Recorder
from replay.proxy.server import ProxyServer, ProxyThread
from replay.rejects import Rejects, stamped
from replay.secrets import scrub_text
from replay.usecases.base import Say, quiet

__all__ = ["EDITORS", "ProxyHandle", "ProxyOptions", "ProxySummary", "check_options", "run_proxy", "start_proxy"]

EDITORS = (*CLIENTS, UNKNOWN)  # what `--editor` may force
DEFAULT_LISTEN = "127.0.0.1:8765"


@dataclass(frozen=True)
class ProxyOptions:
    upstream: str
    listen: str = DEFAULT_LISTEN
    editor: str | None = None  # the client of every capture (default: told from each request) ...
    max_body: int = DEFAULT_MAX_BODY
    rejects_path: Path | None = None  # where bodies that cannot be recorded go (default: rejects/ beside the store)
    editor_version: str | None = None  # ... and its release (replay.proxy.clients.named)


@dataclass(frozen=True)
class ProxySummary:
    """What a proxy recorded: captures and outcome events; `rejected` exchanges whose body could
    not be recorded (forwarded all the same; each in `rejects_file` with why), `refused` requests
    never forwarded (malformed on the wire; each said in one line), `unwritten` exchanges the
    store could not take before the proxy stopped (said in one line)."""

    address: str
    captures: int
    outcomes: int
    rejected: int = 0
    refused: int = 0
    unwritten: int = 0
    rejects_file: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"address": self.address, "captures": self.captures, "outcomes": self.outcomes, "rejected": self.rejected,
                "refused": self.refused, "unwritten": self.unwritten, "rejects_file": self.rejects_file}

    @classmethod
    def of(cls, address: str, recorder: Recorder, server: ProxyServer) -> ProxySummary:
        return cls(address, recorder.captures, recorder.events, len(recorder.rejects), server.refused, recorder.unwritten,
                   recorder.rejects.file)


def _checked(opts: ProxyOptions) -> tuple[str, str, int]:
    """(upstream, host, port), or a UsageError naming what is wrong."""
    parts = urlsplit(opts.upstream)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--upstream {scrub_text(opts.upstream)!r}: not an http(s) URL")
    if opts.editor is not None and opts.editor not in EDITORS:
        raise UsageError(f"unknown editor {opts.editor!r} (one of {', '.join(EDITORS)})")
    if opts.editor_version is not None and (opts.editor is None or not opts.editor_version.strip()):
        raise UsageError("--editor-version needs --editor NAME and a release (or give --editor NAME@VERSION)")
    if opts.max_body < 0:
        raise UsageError("--max-body: must be 0 or more bytes")
    host, sep, port = opts.listen.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        raise UsageError(f"--listen {opts.listen!r}: expected HOST:PORT")
    return opts.upstream, host.strip("[]") or "127.0.0.1", int(port)


def check_options(opts: ProxyOptions) -> ProxyOptions:
    """`opts`, checked before anything starts (a UsageError names what is wrong)."""
    _checked(opts)
    return opts


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _exposed_warning(host: str) -> str:
    return (f"WARNING: listening on {host}, not on loopback: anyone who can reach this address can use your upstream "
            "(and the API keys your editor sends through it), and what they send is recorded")


def _parts(store_path: Path, opts: ProxyOptions, on_recorded: OnRecorded | None, warn: Say) -> tuple[Recorder, ProxyServer]:
    upstream, host, port = _checked(opts)
    # Added to, as `import` and `watch` do with a rejects file the user named.
    rejects = Rejects(opts.rejects_path, name=stamped("proxy"), echo=warn, append=True)
    recorder = Recorder(store_path, source_name=f"proxy:{scrub_text(upstream)}", editor=opts.editor,
                        max_body=opts.max_body, on_recorded=on_recorded, on_error=warn, rejects=rejects,
                        editor_version=opts.editor_version)
    return recorder, ProxyServer(upstream, recorder.put, host, port, opts.max_body, warn=warn)


def run_proxy(store_path: Path, opts: ProxyOptions, say: Say = quiet, warn: Say = quiet,
              on_recorded: OnRecorded | None = None, on_listening: Callable[[str], None] | None = None) -> ProxySummary:
    """Forward and record until Ctrl-C or SIGTERM, on the caller's thread; every exchange that
    finished is in the store when this returns."""
    recorder, server = _parts(store_path, opts, on_recorded, warn)
    if not is_loopback(server.host):
        warn(_exposed_warning(server.host))

    async def serve() -> str:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        try:
            address = await server.start()
        except OSError as exc:
            raise WorkError(f"cannot listen on {opts.listen}: {exc.strerror or exc}") from None
        say(f"proxy on http://{address} -> {scrub_text(opts.upstream)} (Ctrl-C stops)")
        if on_listening is not None:
            on_listening(address)
        try:
            await stop.wait()
        finally:
            say("stopping: finishing the exchanges under way and writing what was recorded")
            await server.close()
        return address

    recorder.start()
    try:
        address = asyncio.run(serve())
    finally:
        recorder.close()
    return ProxySummary.of(address, recorder, server)


class ProxyHandle:
    """A proxy running in the background (the TUI's `--proxy`): its own thread, event loop and
    store connection; `stop()` finishes what is under way and writes what was recorded."""

    def __init__(self, recorder: Recorder, thread: ProxyThread) -> None:
        self._recorder, self._thread = recorder, thread
        self.address = ""

    def start(self) -> ProxyHandle:
        self._recorder.start()
        try:
            self.address = self._thread.start()
        except OSError as exc:
            self._recorder.close()
            raise WorkError(f"cannot listen on {self._thread.server.host}:{self._thread.server.port}: "
                            f"{exc.strerror or exc}") from None
        return self

    def stop(self) -> ProxySummary:
        self._thread.stop()
        self._recorder.close()
        return ProxySummary.of(self.address, self._recorder, self._thread.server)


def start_proxy(store_path: Path, opts: ProxyOptions, on_recorded: OnRecorded | None = None,
                warn: Say = quiet) -> ProxyHandle:
    """Start a proxy in the background; warns (through `warn`) when it is not on loopback."""
    recorder, server = _parts(store_path, opts, on_recorded, warn)
    if not is_loopback(server.host):
        warn(_exposed_warning(server.host))
    return ProxyHandle(recorder, ProxyThread(server)).start()
