"""Running a benchmark's test program, one process per program, contained.

What contains a program (`isolation()` says which this machine gives):

- "namespaces" (Linux, root or unprivileged user namespaces, util-linux `unshare` and `setpriv`):
  the program runs in new mount, network, PID, UTS and IPC namespaces. The network namespace
  has only a loopback that is down: no connection leaves it. In the mount namespace the whole
  file system is read-only (the root mount and /sys, /proc/sys remounted read-only); /tmp and
  /dev/shm are fresh tmpfs mounts the program's working folder is made in, gone when it ends:
  a write outside its folder fails or lands in that throwaway tmpfs. The program is PID 1's only
  child of its PID namespace (`unshare --fork --kill-child`): when its time is up the parent
  kills `unshare`, the kernel kills the namespace's init and with it every process the program
  forked, even one that left its process group. Every capability is dropped before the
  interpreter starts (`setpriv --bounding-set=-all`), so the program cannot remount anything.
- "guards" (anywhere else): a temporary folder per program, its own session (the whole process
  group killed when its time is up: a process that makes a session of its own escapes it), and
  in Python `socket.socket` refusing to be made and open/os.open refusing to write outside the
  folder. These hold a program that errs, not one that works around them (ctypes reaches libc);
  JavaScript and Java get only the folder and the session.

Both add the standard harness's guards in Python (openai/human-eval-infilling,
human_eval_infilling/execution.py, reliability_guard: os.system, os.kill, os.fork, os.remove,
os.unlink, os.rename, os.chdir, shutil.rmtree, shutil.move, subprocess.Popen and the others
there set to None; exit, quit and help gone; the program run by exec in fresh globals, its
output swallowed), and resource limits set in the child before it starts: address space
(RLIMIT_AS, Python only: node and the JVM reserve more address space than they use and are
held by --max-old-space-size and -Xmx instead), CPU seconds, file size. The wall-clock limit is the harness's
timeout plus one second (its `p.join(timeout + 1)`): the interpreter's start is inside it.

A program passes when it ran to its end: the runner writes "passed" on a descriptor of its own
after the program returns (the program's own output goes to stderr, kept up to
Limits.output_bytes), so a program that exits early (os._exit, process.exit) does not pass.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Literal

import msgspec

from replay.records import UnitTest
from replay.scoring.runners import START_SECONDS, interpreter
from replay.scoring.stdio import accepted

Status = Literal["passed", "failed", "timed out"]

# Inside the namespaces: the file system read-only but for a fresh /tmp and /dev/shm, a working
# folder in /tmp, then every capability dropped before the interpreter ("$@") starts.
_CONTAIN = ("mount --make-rprivate / && mount -o remount,bind,ro / && mount -t tmpfs -o size=64m,mode=1777 tmpfs /tmp"
            " && mount -t tmpfs -o size=16m tmpfs /dev/shm && mount -o remount,bind,ro /sys"
            " && mount --bind /proc/sys /proc/sys && mount -o remount,bind,ro /proc/sys"
            " && mkdir /tmp/work && cd /tmp/work"
            ' && exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs "$@"')
_UNSHARE = ("unshare", "--mount", "--net", "--pid", "--uts", "--ipc", "--fork", "--kill-child", "--mount-proc")

STDOUT_BYTES = 16 * 2**20  # what is read of a program's printed output (an accepted one is far shorter)


@dataclass(frozen=True)
class Limits:
    """What a program may take: `seconds` is the harness's timeout (evaluate_functional_correctness's
    default, 3.0), `memory_mb` its address space (Python) or V8 heap (node)."""

    seconds: float = 3.0
    memory_mb: int = 1024
    output_bytes: int = 4096


class Outcome(msgspec.Struct, frozen=True):
    """How a program ended: "passed", "failed" (detail: its last error line) or "timed out"."""

    status: Status
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.status == "passed"


@functools.lru_cache(maxsize=1)
def isolation() -> str:
    """"namespaces" when Python starts contained as the module's docstring says (an interpreter
    installed under /tmp would not: the namespaces hide it), else "guards"."""
    if not sys.platform.startswith("linux") or not all(map(shutil.which, ("unshare", "setpriv", "mount"))):
        return "guards"
    for prefix in ((), ("--map-root-user",)):
        try:
            probe = subprocess.run([*_UNSHARE[:1], *prefix, *_UNSHARE[1:], "sh", "-c", _CONTAIN, "sh",
                                    os.path.realpath(sys.executable), "-I", "-S", "-c", "pass"],
                                   stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            _MAP_ROOT[:] = prefix
            return "namespaces"
    return "guards"


_MAP_ROOT: list[str] = []  # the user-namespace flag the probe needed (none when root)


def _limits(limits: Limits, language: str) -> None:
    """Set in the child between fork and exec (no thread runs there: the parent starts its
    children from one thread)."""
    memory = limits.memory_mb * 2**20
    if language == "python":
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(limits.seconds + START_SECONDS.get(language, 0.0)) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 2**20, 64 * 2**20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class _Job:
    """One program running: its process, its deadline, its output files, its folder (guards)."""

    def __init__(self, language: str, program: str, limits: Limits, how: str, case: UnitTest | None) -> None:
        argv = interpreter(language)
        assert argv is not None
        if language == "javascript":
            argv = [argv[0], f"--max-old-space-size={limits.memory_mb}", *argv[1:]]
        elif language == "java":
            argv = [*argv[:-1], f"-Xmx{limits.memory_mb}m", argv[-1]]  # a JVM option: before the source file
        self.folder: str | None = None
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}
        if how == "namespaces":
            argv = [*_UNSHARE[:1], *_MAP_ROOT, *_UNSHARE[1:], "sh", "-c", _CONTAIN, "sh", *argv]
            cwd = "/"
        else:
            self.folder = cwd = tempfile.mkdtemp(prefix="fimreplay-exec-")
            env["SANDBOX_GUARDS"] = "1"
            env["HOME"] = env["TMPDIR"] = cwd
        self.stdin, self.stdout, self.stderr = (tempfile.TemporaryFile() for _ in range(3))
        source = program.encode("utf-8", "surrogatepass")
        head = f"{len(source)} {'stdio' if case is not None else 'check'}\n".encode()
        self.stdin.write(head + source + (case.input.encode("utf-8", "surrogatepass") if case is not None else b""))
        self.stdin.seek(0)
        self.proc = subprocess.Popen(argv, stdin=self.stdin, stdout=self.stdout, stderr=self.stderr, cwd=cwd, env=env,
                                     start_new_session=True, preexec_fn=lambda: _limits(limits, language))
        self.deadline = time.monotonic() + limits.seconds + 1.0 + START_SECONDS.get(language, 0.0)
        self.limits = limits
        self.case = case

    def outcome(self, timed_out: bool) -> Outcome:
        if timed_out:
            result = Outcome("timed out")
        else:
            said, _, printed = _read(self.stdout, STDOUT_BYTES if self.case is not None else 64).partition("\n")
            if said.strip() != "passed":
                result = Outcome("failed", _last_line(self.stderr, self.limits))
            elif self.case is not None and not accepted(self.case.output, printed):
                result = Outcome("failed", "wrong answer: " + printed.strip()[:200])
            else:
                result = Outcome("passed")
        for f in (self.stdin, self.stdout, self.stderr):
            f.close()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
        return result

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # the session: every process it started (guards)
        except ProcessLookupError:
            pass
        self.proc.wait()


def _read(f: IO[bytes], limit: int) -> str:
    f.seek(0)
    return f.read(limit).decode("utf-8", "replace")


def _last_line(f: IO[bytes], limits: Limits) -> str:
    """The program's last line of output (its error, the runner's "failed: ..." line), or how
    the process ended when it wrote none (killed by a signal: a limit)."""
    f.seek(0, os.SEEK_END)
    size = f.tell()
    f.seek(max(0, size - limits.output_bytes))
    lines = [line for line in f.read().decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1][:300] if lines else "failed: ended without a verdict"


Program = tuple[str, str] | tuple[str, str, UnitTest]


def run_programs(programs: Sequence[Program], limits: Limits = Limits(), workers: int = 1,
                 how: str | None = None) -> list[Outcome]:
    """The outcome of each (language, program[, unit test]), `workers` running at once; every
    language must have an interpreter (interpreter()). A program with a unit test is fed its
    input and passes when it ends and prints an accepted output (replay.scoring.stdio); one
    without checks itself. `how`: "namespaces" or "guards" (default: isolation())."""
    how = how or isolation()
    outcomes: list[Outcome | None] = [None] * len(programs)
    running: dict[int, _Job] = {}
    todo = iter(enumerate(programs))
    pending = True
    try:
        while pending or running:
            while pending and len(running) < workers:
                nxt = next(todo, None)
                if nxt is None:
                    pending = False
                    break
                n, (language, program, *case) = nxt
                running[n] = _Job(language, program, limits, how, case[0] if case else None)
            now = time.monotonic()
            for n, job in list(running.items()):
                if job.proc.poll() is not None:
                    job.kill()  # the exit of its first process ends no process it left behind (guards)
                    outcomes[n] = job.outcome(timed_out=False)
                    del running[n]
                elif now > job.deadline:
                    job.kill()
                    outcomes[n] = job.outcome(timed_out=True)
                    del running[n]
            if running:
                time.sleep(0.002)
    finally:
        for job in running.values():
            job.kill()
            job.outcome(timed_out=True)
    return [o for o in outcomes if o is not None]
