"""How many cores this process may run on (its CPU affinity on Linux, which a container or
`taskset` narrows; the machine's count elsewhere), and whether it may fork workers."""

from __future__ import annotations

import os
import sys
import threading


def usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def fork_is_safe() -> bool:
    """Whether a fork of this process is a sound worker: on Linux (macOS's system libraries may
    start threads of their own, which is why Python's multiprocessing spawns there), in a
    process running one thread (a fork copies only the forking thread, and a lock another one
    held at that moment would stay locked in the child forever)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1
