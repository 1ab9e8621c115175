"""The reader process: a large JSON Lines file parsed in a child process while the importer
writes the chunks before (parsing and SQLite each take about half of an import's CPU).

A plain child that the importer waits for, never multiprocessing: a forkserver or spawn context
leaves its server and resource tracker running after the command returned (they exit only when
they notice their parent gone). On Linux, where this process runs a single thread (the `import`
command), the child is a fork of it: it starts at once with everything imported, where a new
interpreter (`python -m replay.importers.reader PATH FORMAT NAME`) takes about 0.2 s, a sixth
of a 67 MB import, before its first line. A process with other threads (the TUI, `watch`)
starts the new interpreter: a fork copies only the forking thread, and a lock another thread
held at that moment would stay locked in the child forever.

Chunks (flat tuples of store rows) go over a pipe as a stream of pickles, ended by None, or by
a str naming a failure.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

import replay
from replay.cores import fork_is_safe
from replay.importers.scan import Chunk, scan_path

_PIPE_BUFFER = 1024 * 1024


class _Child(NamedTuple):
    """A started reader: the stream of its pickles, how to stop it, how to wait for it (its
    exit code), the last line it wrote on stderr (a new interpreter's own), and how to let go
    of its pipes."""

    stream: IO[bytes]
    kill: Callable[[], None]
    wait: Callable[[], int]
    last_words: Callable[[], str]
    close: Callable[[], None]


def chunks_from_reader(path: Path, fmt: str, name: str) -> Iterator[Chunk]:
    """The chunks of `path`, parsed in a reader process; the process is always waited for (or
    killed, when the caller stops early) before this returns."""
    child = _fork(path, fmt, name) if fork_is_safe() else _spawn(path, fmt, name)
    if child is None:  # no process can be started here (a sandbox, a limit): read in this one
        yield from scan_path(path, fmt, name)
        return
    finished = False
    try:
        while True:
            try:
                item: Any = pickle.load(child.stream)
            except EOFError:
                code = child.wait()
                finished = True
                tail = child.last_words()
                raise RuntimeError(f"{path}: the reader process exited with code {code} before the end"
                                   + (f" ({tail})" if tail else "")) from None
            if item is None:  # all sent: the child is ending
                child.wait()
                finished = True
                return
            if isinstance(item, str):
                raise RuntimeError(item)
            yield item
    finally:
        if not finished:
            child.kill()
            child.wait()
        child.close()


def _fork(path: Path, fmt: str, name: str) -> _Child | None:
    """A fork of this process serving the chunks on a pipe; it ends with os._exit, so that
    nothing of this process's (its store connection, buffered output, exit handlers) runs twice."""
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:  # the reader
        code = 1
        try:
            os.close(r)
            signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C stops the import: the importer kills this
            with open(w, "wb", buffering=_PIPE_BUFFER) as sink:
                _serve(str(path), fmt, name, sink)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    status: list[int] = []

    def wait() -> int:
        if not status:
            status.append(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
        return status[0]

    def kill() -> None:
        if not status:
            os.kill(pid, signal.SIGKILL)

    stream = open(r, "rb", buffering=_PIPE_BUFFER)
    return _Child(stream, kill, wait, lambda: "", stream.close)


def _spawn(path: Path, fmt: str, name: str) -> _Child | None:
    """A new interpreter serving the chunks on its stdout."""
    env = dict(os.environ)
    root = str(Path(replay.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "replay.importers.reader", str(path), fmt, name],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    except OSError:
        return None
    assert proc.stdout is not None and proc.stderr is not None
    stdout, stderr = proc.stdout, proc.stderr

    def kill() -> None:
        if proc.poll() is None:
            proc.kill()

    def last_words() -> str:
        lines = stderr.read().decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else ""

    def close() -> None:
        stdout.close()
        stderr.close()

    return _Child(stdout, kill, proc.wait, last_words, close)


def _serve(path: str, fmt: str, name: str, sink: IO[bytes]) -> None:
    """Send the chunks of one file to `sink`. A thread sends while this one parses on: a chunk
    is far larger than the pipe, and the importer takes none while it is writing."""
    out: queue.Queue[Chunk | str | None] = queue.Queue(maxsize=32)

    def send() -> None:
        try:
            while True:
                item = out.get()
                pickle.dump(item, sink, protocol=pickle.HIGHEST_PROTOCOL)
                if item is None or isinstance(item, str):
                    sink.flush()
                    return
        except OSError:  # the importer stopped reading (it failed, or was stopped): nothing left to do
            os._exit(1)

    sender = threading.Thread(target=send, name="fimreplay-reader-send", daemon=True)
    sender.start()
    try:
        for chunk in scan_path(Path(path), fmt, name):
            out.put(chunk)
        out.put(None)
    except BaseException as exc:  # a bug, not bad input: the importer raises it
        out.put(f"reader process failed on {path}: {exc!r}")
    sender.join()


if __name__ == "__main__":
    _serve(*sys.argv[1:4], sys.stdout.buffer)
