"""A render input that gives snippets but no open files (a public benchmark's cross-file
context): Copilot has each snippet's file open as a tab (similar.SNIPPET_TABS) and takes its
similar-file windows from them as from any tab."""

from __future__ import annotations

from replay.editors.copilot.profile import request_body
from replay.editors.copilot.similar import with_snippet_tabs
from replay.records import EditorInput, OpenFile, Snippet

DOC = "from .utils import normalise\n\n\ndef mean(xs):\n    xs = normalise(xs)\n    return "
UTILS = "def normalise(xs):\n    return [x for x in xs if x is not None]\n"


def _input(*snippets: Snippet, open_files: tuple[OpenFile, ...] = ()) -> EditorInput:
    return EditorInput(prefix=DOC, suffix="\n", filepath="stats/core.py", language="python", snippets=snippets,
                       open_files=open_files)


def test_snippets_of_one_file_are_one_tab_joined_in_order() -> None:
    tabs = with_snippet_tabs(_input(Snippet("stats/utils.py", "a\n"), Snippet("stats/order.py", "b\n"),
                                    Snippet("stats/utils.py", "c\n"))).open_files
    assert tabs == (OpenFile("stats/utils.py", "a\n\nc\n"), OpenFile("stats/order.py", "b\n"))


def test_the_tabs_give_the_similar_file_snippet_of_the_context() -> None:
    body = request_body(_input(Snippet("stats/utils.py", UTILS)), None)
    assert body is not None
    assert body["extra"]["context"] == ["Path: core.py\nCompare this snippet from utils.py:\n" + UTILS.rstrip("\n")]
    assert request_body(_input(), None)["extra"]["context"] == ["Path: core.py"]  # type: ignore[index]


def test_open_files_given_stand_over_the_snippets() -> None:
    tab = OpenFile("stats/other.py", "def normalise_all(xs):\n    return xs\n")
    assert with_snippet_tabs(_input(Snippet("stats/utils.py", UTILS), open_files=(tab,))).open_files == (tab,)
