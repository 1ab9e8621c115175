"""The runner of each language a test program can be run in (replay.scoring.sandbox starts them).

Every runner reads from its stdin a header line "<bytes of the program> <mode>", the program,
and in mode "stdio" the input the program is fed; it writes "passed" on its own stdout when the
program ran to its end, followed in mode "stdio" by what the program wrote to its stdout (the
sandbox compares that with the accepted outputs). In mode "check" the program's stdout goes to
stderr: the program checks itself (HumanEval's `check`, MultiPL-E's asserts).

In mode "stdio" a program may end through its language's exit with status 0 (sys.exit(),
System.exit(0)), as a judge's process exits: ExecEval (ntunlp/ExecEval
execution_engine/execution_engine.py check_output_match) reads stdout when the exit code is 0.
"""

from __future__ import annotations

import os
import shutil
import sys
from importlib import resources

# Python: the verdict descriptor kept, the program's stdout sent to stderr (check) or to a file
# of its working folder (stdio), the harness's guards, the program run by exec in fresh globals.
PY_RUNNER = r"""
import os, sys
verdict = os.dup(1)
data = sys.stdin.buffer.read()
head, _, rest = data.partition(b"\n")
size, mode = head.split()
source, given, stdio = rest[:int(size)].decode("utf-8", "surrogatepass"), rest[int(size):], mode == b"stdio"
sys.stdin.close()
if stdio:
    with open("stdin.txt", "wb") as f:
        f.write(given)
    os.dup2(os.open("stdin.txt", os.O_RDONLY), 0)
    os.dup2(os.open("stdout.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 1)
else:
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
sys.stdin = open(0)
if os.environ.get("SANDBOX_GUARDS"):
    import builtins, io, socket
    def _refused(*a, **k):
        raise OSError("network access is disabled here")
    socket.socket = socket.create_connection = socket.socketpair = _refused
    here, _open, _os_open = os.path.realpath("."), io.open, os.open
    def _inside(path):
        if isinstance(path, int):
            return True
        path = os.fsdecode(os.fspath(path))
        return os.path.realpath(os.path.join(here, path)).startswith(here + os.sep)
    def _guarded_open(file, mode="r", *a, **k):
        if any(c in mode for c in "wax+") and not _inside(file):
            raise PermissionError(f"writing outside the sandbox folder: {file}")
        return _open(file, mode, *a, **k)
    def _guarded_os_open(path, flags, *a, **k):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC) and not _inside(path):
            raise PermissionError(f"writing outside the sandbox folder: {path}")
        return _os_open(path, flags, *a, **k)
    builtins.open = io.open = _guarded_open
    os.open = _guarded_os_open
import builtins, shutil, subprocess, faulthandler
faulthandler.disable()
builtins.exit = builtins.quit = sys.exit if stdio else None
builtins.help = None
os.environ["OMP_NUM_THREADS"] = "1"
for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork", "forkpty",
             "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown", "chmod", "chown",
             "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"):
    setattr(os, name, None)
shutil.rmtree = shutil.move = shutil.chown = None
subprocess.Popen = None
for name in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
    sys.modules[name] = None
from io import FileIO
write, close = os.write, os.close
def ended():
    if stdio:
        sys.stdout.flush()
        with FileIO("stdout.txt", "r") as f:
            write(verdict, b"passed\n" + f.readall())
    else:
        write(verdict, b"passed\n")
try:
    exec(compile(source, "program.py", "exec"), {"__name__": "__main__"} if stdio else {})
except SystemExit as exc:
    if stdio and exc.code in (None, 0):
        ended()
    else:
        print(f"failed: exit {exc.code}", file=sys.stderr)
except BaseException as exc:
    print(f"failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    sys.stderr.flush()
else:
    ended()
close(verdict)
sys.stderr.flush()
os._exit(0)
"""

# JavaScript: the same verdict descriptor; console output to stderr; the program written to the
# working folder and required there (so `require` works); it passes when the event loop empties
# with no uncaught error or rejected promise ('beforeExit', which an explicit process.exit skips).
JS_RUNNER = r"""
const fs = require('fs'), path = require('path');
const data = fs.readFileSync(0);
const nl = data.indexOf(10);
const size = parseInt(data.subarray(0, nl).toString().split(' ')[0], 10);
const source = data.subarray(nl + 1, nl + 1 + size).toString('utf8');
process.stdout.write = process.stderr.write.bind(process.stderr);
console.log = console.info = console.error;
let failed = false;
const fail = (e) => { if (!failed) { failed = true; fs.writeSync(2, 'failed: ' + String(e && e.stack || e).split('\n')[0] + '\n'); } process.exitCode = 1; };
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
let done = false;
process.on('beforeExit', () => { if (!failed && !done) { done = true; fs.writeSync(1, 'passed\n'); } });
const file = path.resolve('program.js');
fs.writeFileSync(file, source);
try { require(file); } catch (e) { fail(e); }
"""

# C++: compiled with g++ as GNU C++17 (SAFIM's LANG_TO_COMPILER names "GNU C++17") in the working
# folder, then run with the input; a Python script drives both, contained as any program is.
CPP_RUNNER = r"""
import os, subprocess, sys
verdict = os.dup(1)
os.dup2(2, 1)
data = sys.stdin.buffer.read()
head, _, rest = data.partition(b"\n")
size, mode = head.split()
with open("program.cpp", "wb") as f:
    f.write(rest[:int(size)])
built = subprocess.run(["g++", "-std=c++17", "-O2", "-pipe", "-o", "program", "program.cpp"], stdin=subprocess.DEVNULL,
                       capture_output=True)
if built.returncode != 0:
    said = [l for l in built.stderr.decode("utf-8", "replace").splitlines() if "error" in l]
    print("failed: does not compile: " + (said[0] if said else f"g++ {built.returncode}"), file=sys.stderr)
    sys.exit(0)
ran = subprocess.run(["./program"], input=rest[int(size):] if mode == b"stdio" else b"", capture_output=True)
sys.stderr.buffer.write(ran.stderr[-4096:])
if ran.returncode == 0:
    os.write(verdict, b"passed\n" + (ran.stdout if mode == b"stdio" else b""))
else:
    print(f"failed: exit {ran.returncode}", file=sys.stderr)
"""

# Java (replay/data/JavaRunner.java), run by the JDK's source-file launcher: it compiles the
# program in its JVM and runs its main class. -ea: MultiPL-E's Java tests are `assert`
# statements, which the JVM skips unless asked. A small JVM that starts fast: one garbage
# collector thread, the quick compiler tier only, no performance-data file. The security
# manager is allowed so that the runner can see a System.exit(0) in mode stdio.
JAVA_FLAGS = ("-ea", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Xss64m",
              "-Djava.security.manager=allow")

# Seconds a language's runner takes before the program's own time starts, added to its wall and
# CPU limits: the JVM's start and javac's compilation of the runner and the program (about 2-4 s
# of CPU on this machine's cores), g++'s compilation; Python's and node's start fit in the
# harness's one second of slack.
START_SECONDS = {"java": 10.0, "cpp": 20.0}


# MultiPL-E's Java programs import org.javatuples (its evaluation image puts javatuples 1.2 on
# the class path): the jar Debian's libjavatuples-java installs, or FIMREPLAY_JAVA_CLASSPATH.
JAVATUPLES = "/usr/share/java/javatuples.jar"


# The source-file launcher reads the runner from a file in the program's own working folder,
# written there by the shell that starts it: the package's copy may sit under a /tmp the
# namespaces hide (a clone or a virtualenv in /tmp), and the working folder is always there.
_PLACE_RUNNER = 'printf %s "$1" > JavaRunner.java && shift && exec "$@"'


def java_runner_source() -> str:
    return resources.files("replay").joinpath("data/JavaRunner.java").read_text(encoding="utf-8")


def java_class_path() -> list[str]:
    """The class path the Java runner compiles and runs the program with: FIMREPLAY_JAVA_CLASSPATH
    when set, else javatuples where Debian installs it, else none (the JDK alone)."""
    given = os.environ.get("FIMREPLAY_JAVA_CLASSPATH", "")
    if given:
        return ["--class-path", given]
    return ["--class-path", JAVATUPLES] if os.path.isfile(JAVATUPLES) else []


def interpreter(language: str) -> list[str] | None:
    """The command that runs a program of this language read from stdin; None when the machine
    has none (JavaScript needs node; Java a JDK: java with javac beside it; C++ g++)."""
    python = os.path.realpath(sys.executable)  # the real binary: a venv's link may sit under the /tmp the namespaces hide
    if language == "python":
        return [python, "-I", "-S", "-c", PY_RUNNER]
    if language == "javascript":
        node = shutil.which("node")
        return None if node is None else [node, "-e", JS_RUNNER]
    if language == "java":
        java = shutil.which("java")
        if java is None or shutil.which("javac") is None:
            return None
        return ["/bin/sh", "-c", _PLACE_RUNNER, "sh", java_runner_source(), os.path.realpath(java), *JAVA_FLAGS,
                *java_class_path(), "JavaRunner.java"]
    if language == "cpp":
        return None if shutil.which("g++") is None else [python, "-I", "-S", "-c", CPP_RUNNER]
    return None
