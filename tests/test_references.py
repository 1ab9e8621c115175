"""The typed reference of a capture (replay.references): every case of the rule, on windows of a
document as editors send them."""

from __future__ import annotations

import json

import msgspec

from replay.records import CaptureRecord, Segments, Source
from replay.references import MAX_ANCHOR, SESSION_S, Window, read_span, typed_references

HEAD = "pragma solidity ^0.8.0;\n\ncontract Vault {\n    uint256 public total;\n\n    function deposit(uint256 amount) external {\n"
TAIL = "\n    }\n\n    function withdraw(uint256 amount) external {\n        total -= amount;\n    }\n}\n"


AGENT_1_7 = "Node.js/v20.18.0 tabby-agent/1.7.0 vscode/1.93.1"  # sends the rest of the cursor's line


def cap(before: str, after: str | None, ts: float | None = 0.0, editor: str = "tabby", path: str | None = "Vault.sol",
        line: int = 1, log: str = "events.json", completion: str | None = None, raw: str = "", **extra: object) -> CaptureRecord:
    return CaptureRecord(source=Source(file=log, line=line), editor=editor, format="test",  # type: ignore[arg-type]
                         filepath=path, segments=Segments(prefix=before, suffix=after), ts=ts, completion=completion,
                         raw=raw, extra=dict(extra), user_agent=AGENT_1_7)


def refs(*records: CaptureRecord) -> dict:
    return typed_references(enumerate(records, 1))


def test_what_was_typed_once_the_user_moved_on() -> None:
    spot = cap(HEAD + "        total += ", TAIL, ts=0)
    typing = cap(HEAD + "        total += amo", "unt;" + TAIL, ts=1)  # still inside the spot
    moved = cap(HEAD + "        total += amount;\n    }\n\n    function withdraw(uint256 amount) external {\n        total",
                " -= amount;\n    }\n}\n", ts=4)
    got = refs(spot, typing, moved)[1]
    assert got.text == "amount;" and got.complete and got.settled_after_ms == 4000 and got.read_from == 3


def test_a_cursor_still_in_the_spot_gives_the_finished_lines_only() -> None:
    spot = cap(HEAD + "        ", TAIL, ts=0)
    later = cap(HEAD + "        total += amount;\n        emit Deposit(", TAIL, ts=2)
    got = refs(spot, later)[1]
    assert got.text == "total += amount;\n" and not got.complete
    none_finished = refs(spot, cap(HEAD + "        total += amo", TAIL, ts=2))[1]
    assert none_finished.text is None and "still being typed" in (none_finished.why or "")


def test_deletes_and_undo_leave_what_the_last_window_shows() -> None:
    spot = cap(HEAD + "        ", TAIL, ts=0)
    accepted = cap(HEAD + "        total += amount * 2;", TAIL + "// end", ts=1)
    away = HEAD + "        total += amount;" + TAIL[:30]
    undone = cap(away, TAIL[30:], ts=5)  # the user undid "* 2" and moved on past the spot
    got = refs(spot, accepted, undone)[1]
    assert got.text == "total += amount;" and got.complete and got.read_from == 3


def test_a_jump_out_of_the_window_is_no_evidence() -> None:
    spot = cap(HEAD + "        ", TAIL, ts=0)
    moved = cap(HEAD + "        total += amount;" + TAIL[:12], TAIL[12:], ts=2)
    elsewhere = cap("library Math {\n    function max(uint a, uint b) internal pure returns (uint) {\n        ", "\n    }\n}\n", ts=3)
    got = refs(spot, moved, elsewhere)[1]
    assert got.text == "total += amount;" and got.read_from == 2


def test_clipped_windows_find_the_ends_of_the_anchors() -> None:
    long_head = "".join(f"    // line {n} of the header comment\n" for n in range(40)) + HEAD + "        "
    spot = Window(long_head, TAIL)
    clipped = Window(long_head[-40:] + "total += amount;", TAIL[:40])  # both ends clipped inside the anchors
    assert read_span(spot, clipped) == ("total += amount;", False)
    too_little = Window(long_head[-3:] + "total += amount;", TAIL)
    assert read_span(spot, too_little) == "the text before the cursor is not in this window"


def test_an_anchor_found_twice_says_nothing() -> None:
    spot = Window(HEAD + "        ", TAIL)
    twice = Window(HEAD + "        total += 1;\n" + HEAD + "        total += amount;", TAIL)
    assert read_span(spot, twice) == "the text before the cursor is found twice"


def test_when_the_text_around_the_spot_changed_there_is_no_reference() -> None:
    spot = cap(HEAD + "        ", TAIL, ts=0)
    renamed = cap(HEAD.replace("deposit", "put") + "        total += amount;" + TAIL[:10], TAIL[10:], ts=3)
    got = refs(spot, renamed)[1]
    assert got.text is None and "none of the 1 later captures" in (got.why or "")


def test_what_cannot_be_found_again_is_null_with_its_reason() -> None:
    got = refs(cap("x = ", "\n", ts=0), cap("x = 1\n", "", ts=1),  # too little before the cursor
               cap(HEAD, None, ts=0, path="B.sol"),  # no suffix logged
               cap(HEAD + "        ", TAIL, ts=0, path="C.sol"))  # no later capture
    assert "non-blank characters before the cursor" in (got[1].why or "")
    assert "no suffix" in (got[3].why or "")
    assert got[4].why == "no later capture of this file within the session"
    nothing = refs(cap(HEAD + "        ", TAIL, ts=0), cap(HEAD + "        " + TAIL[:20], TAIL[20:], ts=1))[1]
    assert nothing.why == "nothing was typed at this spot"


def test_at_the_document_end_the_suffix_must_be_the_same() -> None:
    spot = cap(HEAD + "        ", "\n", ts=0)
    typing = cap(HEAD + "        total += amount;\n    }\n", "\n", ts=2)
    assert refs(spot, typing)[1].text == "total += amount;\n    }\n"
    jumped = cap(HEAD[:40], HEAD[40:] + "        total += amount;\n    }\n\n", ts=2)  # cursor moved up: the end is unknown
    assert refs(spot, jumped)[1].text is None


def test_other_files_editors_and_sessions_are_not_read() -> None:
    spot = cap(HEAD + "        ", TAIL, ts=0)
    done = HEAD + "        total += amount;" + TAIL[:12]
    assert refs(spot, cap(done, TAIL[12:], ts=2, path="Other.sol"))[1].text is None
    assert refs(spot, cap(done, TAIL[12:], ts=2, editor="continue"))[1].text is None
    assert refs(spot, cap(done, TAIL[12:], ts=SESSION_S + 1))[1].text is None
    assert refs(spot, cap(done, TAIL[12:], ts=2))[1].text == "total += amount;"


def test_without_times_the_log_order_of_one_log_file() -> None:
    spot = cap(HEAD + "        ", TAIL, ts=None, path=None, line=10)
    done = HEAD + "        total += amount;" + TAIL[:12]
    assert refs(spot, cap(done, TAIL[12:], ts=None, path=None, line=20))[1].text == "total += amount;"
    assert refs(spot, cap(done, TAIL[12:], ts=None, path=None, line=5))[1].text is None
    got = refs(spot, cap(done, TAIL[12:], ts=None, path=None, line=20, log="other.log"))[1]
    assert got.text is None and got.settled_after_ms is None


def llama(before_lines: str, line: str, after: str, ts: float, completion: str | None = None) -> CaptureRecord:
    body = {"input_prefix": before_lines, "prompt": line, "input_suffix": after}
    return cap(before_lines, after, ts=ts, editor="llama.vscode", path=None, completion=completion, raw=json.dumps(body),
               wire={"route": "/infill", "timings": {"total_s": 0.2}})  # as the proxy records it


def test_a_llama_client_window_holds_its_prompt_and_its_speculative_requests_are_no_evidence() -> None:
    spot = llama(HEAD, "        total += ", TAIL, ts=0, completion="amount * 2;")
    speculative = llama(HEAD, "        total += amount * 2;", TAIL, ts=0.3)  # the suggestion as if accepted
    typed = llama(HEAD + "        total += amount;\n    }\n", "", TAIL[7:], ts=3)
    got = refs(spot, speculative, typed)
    assert got[1].text == "amount;" and got[1].read_from == 3
    assert "speculative" in (got[2].why or "")
    only_speculative = refs(spot, speculative)[1]
    assert only_speculative.text is None and only_speculative.why == "no later capture of this file within the session"
    late = refs(spot, llama(HEAD, "        total += amount * 2;", TAIL, ts=2), typed)[1]  # typed so, long after: real
    assert late.text == "amount;"


def test_anchors_are_the_last_and_first_characters_only() -> None:
    spot = Window("x" * 5000 + HEAD + "        ", TAIL + "y" * 5000)
    later = Window(HEAD[-MAX_ANCHOR:] + "        total += amount;", TAIL[:40])
    assert read_span(spot, later) == ("total += amount;", False)


def test_an_edit_further_away_does_not_matter_and_a_look_alike_is_not_the_spot() -> None:
    spot = Window(HEAD + "        ", TAIL)
    later = HEAD + "        total += amount;\n    }\n\n    function withdraw(uint256 amount) external {\n        require(total >= amount);\n"
    assert read_span(spot, Window(later, "        total -= amount;\n    }\n}\n")) == ("total += amount;", True)
    # the withdraw function looks like deposit's end: the anchors are as long as the spot's own window needs
    look_alike = Window("    function withdraw(uint256 amount) external {\n        ", "total -= amount;" + TAIL[40:])
    assert read_span(spot, look_alike) == "the text before the cursor is not in this window"


def test_coming_back_to_the_spot_keeps_what_was_there_when_the_user_moved_on() -> None:
    spot = cap(HEAD + "        ", TAIL, ts=0)
    moved = cap(HEAD + "        total += amount;" + TAIL[:12], TAIL[12:], ts=2)
    back = cap(HEAD + "        ", "total += amount;" + TAIL, ts=4)  # the cursor at the spot's start again
    got = refs(spot, moved, back)[1]
    assert got.text == "total += amount;" and got.complete and got.read_from == 2


def test_a_spot_rewritten_after_it_was_last_read_has_no_reference() -> None:
    # the user left "total += amount;", then edited the line before it (the prefix tail) and
    # rewrote the statement: no later window finds the spot, one finds its end beside other text
    spot = cap(HEAD + "        ", TAIL, ts=0)
    moved = cap(HEAD + "        total += amount;" + TAIL[:12], TAIL[12:], ts=2)
    rewritten = cap(HEAD.replace("external {", "external nonReentrant {") + "        total = total + amount;", TAIL, ts=4)
    got = refs(spot, moved, rewritten)[1]
    assert got.text is None and "edited after capture 2" in (got.why or "") and got.read_from == 3


def test_an_edit_inside_an_anchor_that_left_the_spot_as_it_was_keeps_the_reference() -> None:
    spot = cap(HEAD + "        ", TAIL, ts=0)
    moved = cap(HEAD + "        total += amount;" + TAIL[:12], TAIL[12:], ts=2)
    renamed = cap(HEAD.replace("external {", "external nonReentrant {") + "        total += amount;", TAIL, ts=4)
    clipped = cap("        total = 0;", TAIL, ts=5)  # a window too short to hold the span and the prefix tail
    got = refs(spot, moved, renamed, clipped)[1]
    assert got.text == "total += amount;" and got.read_from == 2


def test_a_line_break_typed_just_after_an_answer_is_the_users_own() -> None:
    spot = llama(HEAD, "        total += amount;", TAIL, ts=0, completion="amount * 2;")
    enter = llama(HEAD + "        total += amount;\n", "", TAIL, ts=0.4)  # Enter pressed 0.4 s after the answer
    typed = llama(HEAD + "        total += amount;\n        emit Deposit(amount);\n", "", TAIL, ts=3)
    got = refs(spot, enter, typed)
    assert got[2].why is None or "speculative" not in got[2].why
    assert got[2].text == "        emit Deposit(amount);\n"


def copilot(before: str, ts: float) -> CaptureRecord:
    """A Copilot body as chat-lib sends it: the suffix from the next line, its leading blanks trimmed."""
    suffix = TAIL.split("\n", 1)[1].lstrip()
    body = {"prompt": before, "suffix": suffix, "stop": ["\n"],
            "extra": {"language": "solidity", "next_indent": 0, "trim_by_indentation": True, "prompt_tokens": 40, "suffix_tokens": 30}}
    return cap(before, suffix, ts=ts, editor="unknown", raw=json.dumps(body))


def test_a_copilot_body_gives_only_the_lines_before_the_last_one_typed() -> None:
    away = "\n    }\n\n    function withdraw(uint256 amount) external {\n        total"
    one_line = cap(HEAD + "        total += amount;" + away, " -= amount;\n    }\n}\n", ts=4, editor="unknown")
    got = refs(copilot(HEAD + "        total += ", ts=0), one_line)[1]
    # the span read is "amount;\n    " (the line break and the next line's blanks were never sent): no line is certain
    assert got.text is None and "Copilot" in (got.why or "")
    two_lines = cap(HEAD + "        total += amount;\n        emit Deposit(amount);" + away, " -= amount;\n    }\n}\n", ts=4, editor="unknown")
    got = refs(copilot(HEAD + "        total += ", ts=0), two_lines)[1]
    assert got.text == "amount;\n" and not got.complete
    # a prompt ending at a line break may have lost the blanks before the cursor (trimLastLine)
    blank_line = cap(HEAD + "        total += amount;\n        emit Deposit(amount);" + away, " -= amount;\n    }\n}\n", ts=4, editor="unknown")
    assert refs(copilot(HEAD, ts=0), blank_line)[1].text is None
    plain = cap(HEAD + "        total += ", TAIL, ts=0, editor="unknown")  # not Copilot's: the whole span
    assert refs(plain, one_line)[1].text == "amount;"


AGENT_DEV = "Node.js/v20.20.2 tabby-agent/1.9.0-dev vscode/1.99.0"  # leaves a closing rest of the line out


def test_a_line_rest_the_agent_may_have_left_out_is_never_read_as_typed() -> None:
    # the user typed `amount);` after "deposit(" where the editor had closed the bracket: the agent
    # (from eae43ba76) sent the suffix from the line break on, so the read span ends with what it left out
    spot = msgspec.structs.replace(cap(HEAD + "        emit Deposit(", TAIL, ts=0), user_agent=AGENT_DEV)
    moved = cap(HEAD + "        emit Deposit(amount);" + TAIL[:12], TAIL[12:], ts=3)
    got = refs(spot, moved)[1]
    assert got.text is None and "rest of the cursor's line" in (got.why or "")
    unnamed = msgspec.structs.replace(spot, user_agent=None)  # no agent named: it may be one that does
    assert refs(unnamed, moved)[1].text is None
    older = msgspec.structs.replace(spot, user_agent="Node.js/v20.18.0 tabby-agent/1.8.0 vscode/1.95.0")
    assert refs(older, moved)[1].text == "amount);"  # 1.8.0 sends the rest of the line


def test_the_finished_lines_and_a_last_line_ending_in_a_word_stay() -> None:
    spot = msgspec.structs.replace(cap(HEAD + "        ", TAIL, ts=0), user_agent=AGENT_DEV)
    two_lines = cap(HEAD + "        total += amount;\n        emit Deposit(amount);" + TAIL[:12], TAIL[12:], ts=3)
    got = refs(spot, two_lines)[1]
    assert got.text == "total += amount;\n" and not got.complete  # the last line ends in ")" + ";": cut
    word_end = cap(HEAD + "        total += amount" + TAIL[:12], TAIL[12:], ts=3)
    got = refs(spot, word_end)[1]
    assert got.text == "total += amount" and got.complete
