"""Processes a test starts (a `fimreplay watch` or `proxy`, a model server) end with the test,
however it ends: `spawned` stops its process when the block is left, a failed assertion or a
timeout included (the stop signal, then SIGKILL after a grace period), and every process it
starts is killed by the kernel if the test run itself dies (Linux PR_SET_PDEATHSIG), so that no
watcher or server outlives the run that started it. Each starts with Ctrl-C's default action: a
test run started in the background of a shell without job control (`nohup … &`) inherits SIGINT
ignored, and Python then installs no KeyboardInterrupt for it, so the Ctrl-C tests would wait for
a process that never hears them."""

from __future__ import annotations

import ctypes
import signal
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

_PR_SET_PDEATHSIG = 1
_SIG_DFL = 0
_libc = ctypes.CDLL(None, use_errno=True)
_prctl, _signal = _libc.prctl, _libc.signal  # resolved here: the child only calls them


def _die_with_the_run() -> None:
    """In the child, before exec: SIGKILL when the thread that started it goes away, and Ctrl-C's
    default action however the run was started (the module's docstring)."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    _signal(signal.SIGINT, _SIG_DFL)


def start(args: Sequence[str], **popen: Any) -> subprocess.Popen[Any]:
    """subprocess.Popen that dies with the test run."""
    return subprocess.Popen(args, preexec_fn=_die_with_the_run, **popen)  # noqa: PLW1509 - a fixed C call only


def stop(proc: subprocess.Popen[Any], sig: int = signal.SIGTERM, grace: float = 20.0) -> None:
    """Stop `proc` if it still runs (`sig`, then SIGKILL after `grace` s) and reap it."""
    if proc.poll() is None:
        try:
            proc.send_signal(sig)
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


@contextmanager
def spawned(args: Sequence[str], sig: int = signal.SIGTERM, grace: float = 20.0, **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """`with spawned([...]) as proc:` a process stopped when the block ends, whatever ends it."""
    proc = start(args, **popen)
    try:
        yield proc
    finally:
        stop(proc, sig, grace)
