"""A session line's checks (replay/session/format.py) and what the simulator does beyond any
editor's rules (replay/session/simulate.py): answers beyond the script, the session's end."""

from __future__ import annotations

import json

import pytest

from replay.editors.inputs import BadInputLine
from replay.session.format import BadSession, parse_session

OPEN = {"t_ms": 0, "type": "open", "document": "ab", "cursor": 1}


def line(**fields: object) -> str:
    return json.dumps({"id": "s", "events": [OPEN], **fields})


@pytest.mark.parametrize(("fields", "says"), [
    ({"events": []}, "first event must be an `open`"),
    ({"events": [{"t_ms": 0, "type": "type", "text": "x"}]}, "first event must be an `open`"),
    ({"events": [OPEN, OPEN]}, "only the first event opens"),
    ({"events": [{**OPEN, "t_ms": 5}, {"t_ms": 1, "type": "dismiss"}]}, "before the event before it"),
    ({"events": [OPEN, {"t_ms": 1, "type": "type"}]}, "a `type` event needs text"),
    ({"events": [OPEN, {"t_ms": 1, "type": "delete", "count": 0}]}, "count must be 1 or more"),
    ({"events": [OPEN, {"t_ms": 1, "type": "jump"}]}, "Invalid enum value 'jump'"),
    ({"answers": [{"delay_ms": 1}]}, "either text or chunks"),
    ({"answers": [{"delay_ms": -1, "text": "x"}]}, "must not be negative"),
    ({"answers": [{"delay_ms": 1, "text": "x", "extra": 1}]}, "unknown field"),
])
def test_a_bad_session_line_says_what_is_wrong(fields: dict[str, object], says: str) -> None:
    with pytest.raises(BadSession, match=says):
        parse_session(line(**fields))


def test_a_good_line_is_read_with_an_id_given_as_a_number() -> None:
    session = parse_session(json.dumps({"id": 7, "events": [OPEN], "answers": [{"delay_ms": 5, "text": "x"}]}))
    assert session.id == "7" and session.answers[0].pieces() == [(5, "x")]


def test_not_json_is_a_bad_line() -> None:
    with pytest.raises(BadInputLine, match="not JSON"):
        parse_session("{")
