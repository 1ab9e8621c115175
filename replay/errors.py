"""The one base of fimreplay's own errors, and the two ways a command can fail.

A failure is either the user's input (`UsageError`: a bad option, a file that is not what it
should be, an unknown name; exit 2) or the work itself (`WorkError`: an engine that did not
answer, a download that failed; exit 1). Every error type of the library derives from one of
the two, so the command line turns any of them into one line on stderr and its exit code in a
single place (replay.cli), and the TUI shows the message alone. This module imports nothing of
the library: everything may import it.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_WORK = 1
EXIT_USAGE = 2


class FimreplayError(Exception):
    """An error whose message is meant for the user: one line naming what failed and where."""

    exit_code = EXIT_WORK

    def message(self) -> str:
        """The text without Python's quoting (a KeyError subclass would show its repr)."""
        return str(self.args[0]) if len(self.args) == 1 else str(self)


class UsageError(FimreplayError):
    """Bad usage or bad input: the command cannot do what it was asked with what it was given."""

    exit_code = EXIT_USAGE


class WorkError(FimreplayError):
    """The input was fine but the work failed (an engine, the network, the disk)."""

    exit_code = EXIT_WORK


def exit_code(exc: BaseException) -> int:
    """The exit code a failure maps to: the error's own kind, else the work failed."""
    return exc.exit_code if isinstance(exc, FimreplayError) else EXIT_WORK


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (its type's name when it has none): the reason a
    rejected line or a skipped row is given."""
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


def one_line(exc: BaseException) -> str:
    """What the user reads about a failure: the message of fimreplay's own errors; for anything
    else (a bug, an unexpected OS error) the type too, since the message alone may say little."""
    if isinstance(exc, FimreplayError):
        text = exc.message()
    else:
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return "; ".join(lines) or type(exc).__name__
