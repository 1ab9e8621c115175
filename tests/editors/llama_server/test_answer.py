"""Where llama-server ends an /infill answer: the n_indent cut (one newline found per token, the
first line never checked) and t_max_predict_ms (at a newline after the limit)."""

from __future__ import annotations

from replay.editors.llama_server import answer_text, server_stop

BODY = {"n_indent": 4}


def test_a_line_indented_less_ends_the_answer_after_its_indentation() -> None:
    assert answer_text(BODY, "    return 1\nprint(x)\n") == "    return 1\n"
    assert answer_text(BODY, "a\n    b\n  c\n    d\n") == "a\n    b\n  "
    assert answer_text(BODY, "    a\n\n    b\n") == "    a\n"  # a blank line is indented 0


def test_the_first_line_is_never_checked_and_no_n_indent_cuts_nothing() -> None:
    assert answer_text(BODY, "x = 1") == "x = 1"
    assert answer_text(BODY, "x\n      y\n") == "x\n      y\n"
    assert answer_text({}, "    a\nb\n") == "    a\nb\n"
    assert server_stop({}) is None and server_stop({"n_indent": 0}) is None


def test_a_line_with_only_its_indentation_so_far_is_not_cut_yet() -> None:
    assert answer_text(BODY, "a\n  ") == "a\n  "


def test_the_stream_stops_a_token_after_the_short_line_starts() -> None:
    stop = server_stop(BODY)
    assert stop is not None
    seen = [stop(text) for text in ("    a", "    a\n", "    a\nb", "    a\nbc")]
    assert seen == [None, None, None, 6]


def test_lines_are_checked_one_per_token_so_a_short_stream_may_end_first() -> None:
    stop = server_stop(BODY)
    assert stop is not None
    assert [stop(t) for t in ("a", "a\nb\nc\nd")] == [None, None]  # the server ended before it caught up


def test_t_max_predict_ms_ends_at_a_newline_after_the_limit_when_timing_is_known() -> None:
    body = {"t_max_predict_ms": 500}
    raw = "    a\n    b\n    c"
    assert answer_text(body, raw, timing=[(5, 0.1), (6, 0.2), (11, 0.4), (12, 0.7), (17, 0.8)]) == "    a\n    b\n"
    assert answer_text(body, raw) == raw  # no clock, no time limit
