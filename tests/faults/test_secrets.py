"""The one scrubbing rule every writer shares (replay.secrets)."""

from __future__ import annotations

import pytest

from replay import secrets
from replay.secrets import REDACTED, scrub_headers, scrub_obj, scrub_text


@pytest.mark.parametrize(
    ("text", "leaked"),
    [
        ('{"userId": "tok-123456", "x": 1}', "tok-123456"),
        ('{"apiKey":"abc\\"def"}', "abc"),
        ("api-key: 0123456789abcdef", "0123456789abcdef"),
        ("Authorization: Bearer abcdefghijkl", "abcdefghijkl"),
        ("POST with Bearer eyJhbGciOiJIUzI1NiJ9.payload", "eyJhbGciOiJIUzI1NiJ9"),
        ("proxy http://alice:s3cretpw@proxy.local:3128/", "s3cretpw"),
        ("key sk-proj-ABCDEFGHIJKLMNOPQRSTUV here", "sk-proj-ABCDEFGHIJKLMNOPQRSTUV"),
        ("hf_abcdefghijklmnopqrstuv", "hf_abcdefghijklmnopqrstuv"),
        ("ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_abcdefghijklmnopqrstuvwxyz0123"),
        ("aws AKIAABCDEFGHIJKLMNOP", "AKIAABCDEFGHIJKLMNOP"),
        # tabby-agent's config as dotted paths in a render input's options
        ('{"options": {"server.token": "auth_0f1e2d3c4b5a"}}', "auth_0f1e2d3c4b5a"),
        ('{"server.requestHeaders.Authorization": "token9876543"}', "token9876543"),
        ('{"proxy.authorization": "alice:pw4567"}', "alice:pw4567"),
    ],
)
def test_every_secret_shape_is_scrubbed(text: str, leaked: str) -> None:
    out = scrub_text(text)
    assert leaked not in out and REDACTED in out


def test_code_without_secrets_is_unchanged() -> None:
    code = "function f(uint a) public returns (uint) {\n    return a + 1; // task-1234 skeleton\n}\n"
    assert scrub_text(code) == code


def test_a_registered_key_is_scrubbed_anywhere() -> None:
    secrets.register("plain-key-value-42")
    assert scrub_text('{"echo": "xplain-key-value-42y"}') == '{"echo": "x<redacted>y"}'


def test_objects_and_headers() -> None:
    obj = {"headers": {"Authorization": "Bearer zzzzzzzzzz", "Accept": "json"}, "apiKey": "k", "n": 3, "list": ["sk-abcdefghijklmnopqrstu"]}
    assert scrub_obj(obj) == {"headers": {"Authorization": REDACTED, "Accept": "json"}, "apiKey": REDACTED, "n": 3, "list": [REDACTED]}
    assert scrub_headers({"x-api-key": "abc", "Content-Type": "application/json", "Cookie": "s=1"}) == {
        "x-api-key": REDACTED, "Content-Type": "application/json", "Cookie": REDACTED}


def test_dotted_settings_paths_are_judged_by_their_last_part() -> None:
    """tabby-agent's config keys given as dotted paths: `server.token` is a credential, and a
    path that only contains a credential word inside a part (`completion.max_tokens`) is not."""
    obj = {"server.token": "auth_abc", "server.requestHeaders.Authorization": "x", "completion.max_tokens": 64,
           "completion.prompt.maxPrefixLines": "20"}
    assert scrub_obj(obj) == {"server.token": REDACTED, "server.requestHeaders.Authorization": REDACTED,
                              "completion.max_tokens": 64, "completion.prompt.maxPrefixLines": "20"}
    assert scrub_text('{"completion.max_tokens": "64"}') == '{"completion.max_tokens": "64"}'
