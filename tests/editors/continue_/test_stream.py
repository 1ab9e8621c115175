"""What Continue has read of a streamed answer, and when (replay/editors/continue_/stream.py): the
characters its longest stop word holds back, a blank line ending the stream, showWhateverWeHaveAtXMs
checked after each line, the single-line stop at the first newline."""

from __future__ import annotations

from replay.editors.continue_.stream import read, reader
from replay.records import EditorInput

LINES = [(60.0, "x = 2 * math.pi\n"), (250.0, "    y = x * r\n"), (700.0, "    return y\n"), (1000.0, "    # p")]


def test_a_line_reaches_the_filters_once_the_longest_stop_words_length_more_has_come() -> None:
    # 16 characters held back at most 15: the first newline is passed on at 700 ms, not at 60
    assert read(LINES, hold=15, shown_by_ms=150.0, blank_ends=True, multiline=True) == (700.0, "x = 2 * math.pi")
    assert read(LINES, hold=0, shown_by_ms=150.0, blank_ends=True, multiline=True) == (250.0, "x = 2 * math.pi\n    y = x * r")
    assert read(LINES, hold=15, shown_by_ms=None, blank_ends=True, multiline=True) == (1000.0, "".join(t for _, t in LINES))


def test_showwhatever_waits_for_a_line_past_its_limit_and_never_cuts_a_slow_whole_answer() -> None:
    assert read([(1200.0, "eturn 2 * r")], hold=15, shown_by_ms=150.0, blank_ends=True, multiline=True) == (1200.0, "eturn 2 * r")
    blank_first = [(200.0, "\n"), (300.0, "x\n"), (450.0, "y")]
    assert read(blank_first, hold=0, shown_by_ms=150.0, blank_ends=False, multiline=True) == (300.0, "\nx")


def test_a_blank_line_after_the_first_ends_the_stream_where_nodoublenewline_is_in_force() -> None:
    pieces = [(60.0, "return "), (100.0, "2 * math.pi * r\n"), (300.0, "\n\ndef diameter(r):\n"), (700.0, "    return 2 * r\n")]
    assert read(pieces, hold=15, shown_by_ms=300.0, blank_ends=True, multiline=True) == (300.0, "return 2 * math.pi * r")
    assert read(pieces, hold=15, shown_by_ms=300.0, blank_ends=False, multiline=True)[0] == 700.0


def test_a_single_line_call_stops_at_the_first_newline_as_it_comes() -> None:
    assert read(LINES, hold=15, shown_by_ms=150.0, blank_ends=True, multiline=False) == (60.0, "x = 2 * math.pi")


def test_the_reader_takes_its_hold_and_its_filters_from_the_release_at_the_cursor() -> None:
    inp = EditorInput(prefix="import math\n\n\ndef perimeter(r):\n    \n    ", suffix="\n", filepath="geometry.py",
                      language="python")
    assert reader(inp, "qwen2.5-coder", "2.1.0-vscode", 150.0)(LINES) == (700.0, "x = 2 * math.pi")  # "#- coding: utf-8"
