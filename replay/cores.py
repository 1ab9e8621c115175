"""How many cores this process may run on (its CPU affinity on Linux, which a container or
`taskset` narrows; the machine's count elsewhere): what a pool of worker processes can use."""

from __future__ import annotations

import os


def usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1
