"""Render input lines: the keys beyond the cursor that the clients with a server half, a ring
buffer or a session read (replay/editors/inputs.py)."""

from __future__ import annotations

import pytest

from replay.editors.inputs import BadInputLine, parse_line
from replay.records import ExtraChunk, OpenFile, SessionEvent


def test_a_request_alone_is_a_line_with_no_cursor():
    inp = parse_line('{"id": "r1", "request": {"input_prefix": "a", "input_suffix": "b"}, "options": {"server.n_ctx": 512}}')
    assert inp.request == {"input_prefix": "a", "input_suffix": "b"}
    assert (inp.prefix, inp.suffix, inp.item_id) == ("", "", "r1")
    assert inp.options == {"server.n_ctx": 512}


def test_a_request_must_be_an_object():
    with pytest.raises(BadInputLine, match="'request' must be an object"):
        parse_line('{"request": "input_prefix=a"}')


def test_without_a_request_the_prefix_is_still_required():
    with pytest.raises(BadInputLine, match="missing 'prefix'"):
        parse_line('{"suffix": "b"}')


def test_extra_events_open_files_and_session_are_typed():
    inp = parse_line('{"document": "ab", "cursor": 1, "session": 7,'
                     ' "extra": [{"text": "x\\ny\\nz", "time": 3, "filename": "a.py"}],'
                     ' "events": [{"kind": "yank", "time": 1.5, "text": "q"}, {"kind": "save", "time": 2, "filename": "b.py", "line": 4}],'
                     ' "open_files": [{"filepath": "c.ts", "text": "let c", "language": "typescript"}]}')
    assert inp.extra == (ExtraChunk(text="x\ny\nz", time=3.0, filename="a.py"),)
    assert inp.events == (SessionEvent(kind="yank", time=1.5, text="q"),
                          SessionEvent(kind="save", time=2.0, filename="b.py", line=4))
    assert inp.open_files == (OpenFile(filepath="c.ts", text="let c", language="typescript"),)
    assert inp.session == "7"


@pytest.mark.parametrize(("line", "message"), [
    ('{"prefix": "", "extra": {"text": "x"}}', "'extra' must be a list"),
    ('{"prefix": "", "extra": [{"time": 1}]}', r"extra\[0\]: Object missing required field `text`"),
    ('{"prefix": "", "events": [{"kind": "paste", "time": 1}]}', r"events\[0\]: Invalid enum value 'paste'"),
    ('{"prefix": "", "open_files": [{"filepath": "a"}, 3]}', r"open_files\[0\]: Object missing required field `text`"),
])
def test_a_bad_entry_is_named_by_its_index(line, message):
    with pytest.raises(BadInputLine, match=message):
        parse_line(line)
