"""The reader process: a large JSON Lines file parsed in a child process while the importer
writes the chunks before (parsing and SQLite each take about half of an import's CPU).

A plain child (`python -m replay.importers.reader PATH FORMAT NAME`) that the importer waits
for, rather than multiprocessing: a forkserver or spawn context leaves its server and resource
tracker running after the command returned (they exit only when they notice their parent
gone). Chunks (flat tuples of store rows) go over the child's stdout as a stream of pickles,
ended by None, or by a str naming a failure.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import replay
from replay.importers.scan import Chunk, scan_path


def chunks_from_reader(path: Path, fmt: str, name: str) -> Iterator[Chunk]:
    """The chunks of `path`, parsed in a reader process; the process is always waited for (or
    killed, when the caller stops early) before this returns."""
    env = dict(os.environ)
    root = str(Path(replay.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "replay.importers.reader", str(path), fmt, name],
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    except OSError:  # no process can be started here (a sandbox, a limit): read in this one
        yield from scan_path(path, fmt, name)
        return
    assert proc.stdout is not None and proc.stderr is not None
    try:
        while True:
            try:
                item: Any = pickle.load(proc.stdout)
            except EOFError:
                proc.wait()
                tail = proc.stderr.read().decode("utf-8", "replace").strip().splitlines()[-1:]
                raise RuntimeError(f"{path}: the reader process exited with code {proc.returncode} before the end"
                                   + (f" ({tail[0]})" if tail else "")) from None
            if item is None:
                return
            if isinstance(item, str):
                raise RuntimeError(item)
            yield item
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def _serve(path: str, fmt: str, name: str) -> None:
    """Send the chunks of one file on stdout. A thread sends while this one parses on: a chunk
    is far larger than the pipe, and the importer takes none while it is writing."""
    out: queue.Queue[Chunk | str | None] = queue.Queue(maxsize=32)
    sink = sys.stdout.buffer

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
    _serve(*sys.argv[1:4])
