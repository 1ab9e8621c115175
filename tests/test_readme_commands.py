"""Every command the README and docs/ show runs as written on a clean clone, or is named here
with why it is not run.

The commands are read from the pages' code blocks (and the README's figures table); each block
runs, line after line, in a fresh folder that holds the checkout's files (so `examples/...` and
`captures/...` read as from the repo root, and what a command writes stays out of the checkout),
with a throw-away FIMREPLAY_HOME and `fimreplay` on the PATH as this checkout's. A command whose
kind cannot run here offline and quickly matches one rule of SKIPPED, which says why; every
other command must exit 0.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# A line of a code block that is a command (the rest is output, JSON or a layout drawing).
COMMAND = re.compile(r"^(fimreplay|grep|awk|nice|python3?|\.venv/bin/\S+) ")

# (pattern searched in the command, why it is not run here); the first that matches applies.
SKIPPED: list[tuple[str, str]] = [
    (r"^python3 -m venv|^\.venv/bin/|pytest|python -m bench", "the set-up, the test suite and the benchmarks: CI runs them (.ci/run)"),
    (r"fimreplay demo", "the demo replays two benchmarks on a model: minutes on 2 cores (tests/cli/test_demo.py)"),
    (r"fimreplay (run|leaderboard|export) |fimreplay compare .*--sequential", "replays a model: minutes on 2 cores (tests/cli/test_run_*, test_leaderboard*)"),
    (r"fimreplay assets install", "downloads from PyPI"),
    (r"npm:|git:|evalgen (openzeppelin|solady|2024-07-benddao)|post\.jsonl|new\.jsonl",
     "a corpus fetched from the network (npm, GitHub), or the items cut from it"),
    (r"fimreplay (proxy|tui|watch)\b", "runs until stopped (a server, a live view, a tail)"),
    (r"~/", "the reader's own editor logs"),
    (r"\bRUN(_[AB])?\b|\blv-demo\b|\bscore py-open1\b", "names a run made by a replay above (not run here)"),
    (r"\bmodel\.gguf\b", "a GGUF of the reader's own"),
    (r"\[--|…", "a synopsis of the options, not a command"),
]


@dataclass(frozen=True)
class Command:
    page: str
    line: int
    text: str

    @property
    def skipped(self) -> str | None:
        return next((why for pattern, why in SKIPPED if re.search(pattern, self.text)), None)


def _strip_comment(line: str) -> str:
    """The command without its trailing `# comment` (two spaces or more before the #)."""
    return re.split(r"\s{2,}#\s", line, maxsplit=1)[0].rstrip()


def blocks(page: Path) -> list[list[Command]]:
    """The commands of each code block of `page`, a `\\`-continued line joined to the next; and
    for the README, each command of its figures table as a block of its own."""
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(ROOT).as_posix()
    out: list[list[Command]] = []
    for match in re.finditer(r"^```[a-z]*\n(.*?)\n```$", text, flags=re.S | re.M):
        first = text[: match.start()].count("\n") + 2
        commands: list[Command] = []
        pending = ""
        for offset, raw in enumerate(match.group(1).splitlines()):
            line = pending + raw.strip() if pending else raw
            if line.endswith("\\"):
                pending = line[:-1]
                continue
            pending = ""
            if COMMAND.match(line):
                commands.append(Command(name, first + offset, _strip_comment(line)))
        if commands:
            out.append(commands)
    if page.name == "README.md":
        lines = text.splitlines()
        start = lines.index("## Five figures")
        for number, row in enumerate(lines[start + 1:], start + 2):
            if row.startswith("## "):
                break
            cell = row.strip().strip("|").split("|")[-1].strip().strip("`")
            if row.startswith("| ") and COMMAND.match(cell):
                out.append([Command(name, number, cell)])
    return out


ALL_BLOCKS = [block for page in PAGES for block in blocks(page)]


def _id(block: list[Command]) -> str:
    return f"{block[0].page}:{block[0].line}"


@pytest.fixture()
def workdir(tmp_path: Path, home: Path) -> tuple[Path, dict[str, str]]:
    """A folder that reads as the checkout (its entries linked), and the environment whose
    `fimreplay` is this checkout's."""
    work = tmp_path / "work"
    work.mkdir()
    for entry in ROOT.iterdir():
        if not entry.name.startswith("."):
            (work / entry.name).symlink_to(entry)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "fimreplay"
    shim.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m replay "$@"\n', encoding="utf-8")
    shim.chmod(shim.stat().st_mode | stat.S_IEXEC)
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return work, env


# A block whose every command is of a kind not run here (each says why: Command.skipped) is not a
# test of its own; test_the_pages_show_commands_that_run_here keeps the extraction honest.
RUNNABLE_BLOCKS = [block for block in ALL_BLOCKS if any(not c.skipped for c in block)]


@pytest.mark.parametrize("block", RUNNABLE_BLOCKS, ids=_id)
def test_the_commands_of_the_pages_run_as_written(block: list[Command], workdir: tuple[Path, dict[str, str]]) -> None:
    work, env = workdir
    ran = 0
    for command in block:
        if command.skipped:
            continue
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", command.text], cwd=work, env=env, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, f"{command.page}:{command.line}: {command.text}\n{proc.stderr[-2000:]}"
        assert "Traceback" not in proc.stderr, proc.stderr
        ran += 1
    assert ran


def test_the_pages_show_commands_that_run_here() -> None:
    """The extraction finds the pages' commands, and most of the offline kinds are run."""
    commands = [c for block in ALL_BLOCKS for c in block]
    run = [c.text for c in commands if not c.skipped]
    assert len(commands) > 60
    for shown in ("fimreplay render examples/cursors.jsonl --editor llama.vscode --model default",
                  "fimreplay audit copilot.jsonl --render-input examples/py-open1.jsonl --tokenizer qwen2.5-coder",
                  "fimreplay postprocess examples/outputs.jsonl --editor tabby --model TabbyML/Qwen2.5-Coder-1.5B -o shown.jsonl",
                  "fimreplay tokens @examples/prompt.txt --tokenizer qwen2.5-coder --engine llama.cpp --json",
                  "fimreplay import captures/tabby captures/continue captures/jetbrains && fimreplay verify",
                  "fimreplay render examples/cursors.jsonl --editor llama.vim@a1c8e6e --model default -o vim.jsonl"):
        assert shown in run
    assert {c.page for c in commands if not c.skipped} >= {"README.md", "docs/adding-an-editor.md", "docs/proxy.md"}


@pytest.mark.parametrize("text, why", [
    ("fimreplay demo --tui", "the demo"),
    ("fimreplay run examples/items.jsonl --model default --json", "replays a model"),
    ("fimreplay score RUN --json", "names a run"),
    ("fimreplay evalgen solady-0.1.26 -o new.jsonl --new-code-only", "from the network"),
    ("fimreplay render examples/cursors.jsonl --editor tabby --model x", None),
])
def test_each_skip_says_why(text: str, why: str | None) -> None:
    skipped = Command("x.md", 1, text).skipped
    assert (skipped is None) if why is None else (skipped is not None and why in skipped)
