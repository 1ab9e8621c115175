"""End to end: `fimreplay tui` in a real terminal (tmux) against a store with captures; the
screen text is read back with `tmux capture-pane`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from tests.conftest import ROOT
from tests.support.tui_data import add_runs, captures, make_store
from replay.store import Store

TMUX = shutil.which("tmux") or "/usr/bin/tmux"


class Terminal:
    def __init__(self, socket: str, session: str) -> None:
        self.base = [TMUX, "-L", socket]
        self.session = session

    def keys(self, *keys: str) -> None:
        for key in keys:  # one at a time: ESC followed at once by a key reads as alt+key
            subprocess.run([*self.base, "send-keys", "-t", self.session, key], check=True)
            time.sleep(0.15)

    def text(self, escapes: bool = False) -> str:
        return subprocess.run([*self.base, "capture-pane", "-p", *(["-e"] if escapes else []), "-t", self.session],
                              check=True, capture_output=True, text=True).stdout

    def wait_for(self, predicate: Callable[[str], bool], timeout: float = 60) -> str:
        """The screen once `predicate` holds; the screen as it was, whole, in the failure when
        it does not within `timeout` seconds."""
        end = time.monotonic() + timeout
        while True:
            screen = self.text()
            if predicate(screen):
                return screen
            if time.monotonic() > end:
                pytest.fail(f"the screen did not change as expected within {timeout} s; it shows:\n{screen}")
            time.sleep(0.1)

    def press_until(self, key: str, predicate: Callable[[str], bool], tries: int = 3, timeout: float = 10) -> str:
        """Press `key` until the screen shows its effect: a key the app reads before it has
        bound it (the first paint can come before the bindings) is pressed again."""
        for _ in range(tries - 1):
            self.keys(key)
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                screen = self.text()
                if predicate(screen):
                    return screen
                time.sleep(0.1)
        self.keys(key)
        return self.wait_for(predicate, timeout)

    def alive(self) -> bool:
        return subprocess.run([*self.base, "has-session", "-t", self.session], capture_output=True).returncode == 0


@pytest.fixture(params=["xterm-256color"])
def terminal(request, tmp_path) -> Iterator[tuple[Terminal, object]]:
    db = tmp_path / "s.db"
    with make_store(db, 3000) as store:
        add_runs(store)
    socket = f"fimreplay-test-{os.getpid()}"
    env = {"PYTHONPATH": str(ROOT), "FIMREPLAY_HOME": str(tmp_path / "home"), "TERM": request.param}
    exports = " ".join(f"{k}={v}" for k, v in env.items())
    # Textual sizes itself from $COLUMNS/$LINES when set (pytest sets them): unset, it asks tmux.
    command = f"cd {ROOT} && unset COLUMNS LINES; {exports} {sys.executable} -m replay tui --db {db}; echo EXIT=$?; sleep 30"
    subprocess.run([TMUX, "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "e2e", "-x", "120", "-y", "32", command], check=True)
    term = Terminal(socket, "e2e")
    try:
        yield term, db
    finally:
        subprocess.run([TMUX, "-L", socket, "kill-server"], capture_output=True)


def test_fimreplay_tui_in_tmux(terminal) -> None:
    term, db = terminal
    screen = term.wait_for(lambda s: "3,000 captures" in s and "gotchas" in s and "02:52:20" in s)
    assert "3,000 captures · sorted by time (descending)" in screen
    assert "time (UTC)" in screen and "gotchas" in screen
    assert "2025-11-22 02:52:20 tabby    deepseek-coder-1.3b" in screen  # newest first
    term.press_until("/", lambda s: "s Sort" not in s)  # the filter has the focus: the table's keys left the footer
    term.keys("C", "4", "2", ".", "s", "o", "l")
    screen = term.wait_for(lambda s: "60 captures matching 'C42.sol'" in s)
    assert "60 captures matching 'C42.sol'" in screen
    rows = [line for line in screen.splitlines() if line.startswith("2025-")]
    assert rows and all("contracts/C42.sol" in line for line in rows)
    # New captures written by another process appear live.
    with Store(db) as writer:
        writer.add_captures(captures(3000, 3050))
    screen = term.wait_for(lambda s: "61 captures matching" in s)
    assert "61 captures matching 'C42.sol'" in screen
    # ESC and a key read together are alt+key: the "3" only once the filter has let the focus go
    term.press_until("Escape", lambda s: "s Sort" in s)
    screen = term.press_until("3", lambda s: "run-b" in s)
    assert "run-a" in screen and "starcoder2-3b" in screen
    term.keys("q")
    screen = term.wait_for(lambda s: "EXIT=" in s)
    assert "EXIT=0" in screen


@pytest.mark.parametrize("terminal", ["xterm"], indirect=True)
def test_theme_in_a_16_colour_terminal(terminal) -> None:
    """TERM=xterm: only the 16 ANSI colours are used, and the cursor row still stands out."""
    term, _ = terminal
    term.wait_for(lambda s: "3,000 captures" in s and "gotchas" in s and "02:52:20" in s)
    screen = term.text(escapes=True)
    assert "38;5;" not in screen and "48;5;" not in screen and "38;2;" not in screen and "48;2;" not in screen
    cursor_line = next(line for line in screen.splitlines() if "02:52:20" in line)  # newest first
    other_line = next(line for line in screen.splitlines() if "02:51:20" in line)
    assert re.search(r"\x1b\[(?:[0-9;]*;)?(?:4[0-7]|10[0-7])m", cursor_line.split("2025-11-22")[0])
    assert cursor_line.split("2025-11-22")[0] != other_line.split("2025-11-22")[0]
