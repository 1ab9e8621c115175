"""replay.jsonl, the one JSON Lines reader: a line is UTF-8 on its own, and no lone UTF-16
surrogate gets through `loads` into a text no file or store can hold."""

from __future__ import annotations

import json

import pytest

from replay.jsonl import json_lines, lone_surrogate_escape, loads, replace_lone_surrogates
from replay.rejects import Reject


def test_bytes_are_decoded_line_by_line_and_a_bad_byte_is_its_line_alone() -> None:
    data = b'\xef\xbb\xbf{"a":1}\r\n\n{"b":"\xc3("}\n{"c":"\xe2\x82\xac"}\n'
    lines = list(json_lines(data))
    assert [n for n, _ in lines] == [1, 3, 4] and lines[0][1] == '{"a":1}' and loads(lines[2][1]) == {"c": "€"}
    with pytest.raises(ValueError, match=r"^invalid UTF-8: byte 0xc3 at column 7$"):
        loads(lines[1][1])


@pytest.mark.parametrize(("text", "at"), [('{"a":"\\ud83d"}', 6), ('{"a":"x\\uDE00"}', 7), ('{"a":"\\ude00\\ud83d"}', 6),
                                          ('{"a":"\\ud83d \\ude00"}', 6), ('{"\\ud800":1}', 2)])
def test_a_lone_surrogate_escape_is_a_bad_line(text: str, at: int) -> None:
    assert lone_surrogate_escape(text.encode()) == at
    with pytest.raises(ValueError, match="lone UTF-16 surrogate escape"):
        loads(text)


def test_a_pair_and_an_escaped_backslash_are_not_lone() -> None:
    assert loads('{"a":"\\ud83d\\ude00"}') == {"a": "😀"}
    assert loads('{"a":"\\\\ud83d"}') == {"a": "\\ud83d"}
    assert lone_surrogate_escape(b'{"a":"\\\\ud83d\\\\"}') is None


def test_lone_halves_replaced_by_the_replacement_character() -> None:
    data, n = replace_lone_surrogates(b'{"a":"x\\ud83d\\ude00\\ud83dy\\udc00"}')
    assert n == 2 and json.loads(data) == {"a": "x😀\ufffdy\ufffd"}


def test_a_reject_keeps_text_utf8_cannot_hold_escaped() -> None:
    """A line kept with its bad bytes as lone surrogates (json_lines), a lone surrogate itself,
    a file name that is not UTF-8: each written \\x-escaped, the rejects file stays JSON."""
    for raw, kept in (('ab\udcc3(', "ab\\xc3("), ("x\ud83d", "x\\xed\\xa0\\xbd"), (b"ab\xc3(", "ab\\xc3(")):
        reject = Reject.at("f\udcff.json", 3, "why", raw)
        assert reject.raw == kept and reject.where == "f\\xff.json:3"
        assert json.loads(json.dumps(reject.raw)) == kept


@pytest.mark.parametrize("raw", [b'{"a":"Authorization: Beare\xfe\xfer tok0123456789abcdefghij"}',
                                 b'{"a":"Authorization: Bearer tok01234\xff56789abcdefghij"}',
                                 b'{"a":"sk-tok\x00en0123456789abcdefXYZ"}',
                                 b'{"a":"Authorization: Beare\xc3(r tok0123456789abcdefghij"}'])
def test_damage_inside_a_credential_does_not_carry_it_into_the_rejects(raw: bytes) -> None:
    kept = Reject.at("f", 1, "bad", raw).raw
    assert "<redacted>" in kept and "0123456789abcdef" not in kept, kept


def test_damage_without_a_credential_is_kept_as_it_was() -> None:
    assert Reject.at("f", 1, "bad", b'{"a":"x = 1\xff"}').raw == '{"a":"x = 1\\xff"}'
