"""The comparison every session golden makes of `fimreplay session`'s output with an editor's own
recording of the same session (tests/data/golden/<editor>/sessions/): the final document, each
request's number, event, body and outcome, each item shown with its request, event, text and
range, all in the recorded order, and every time within TOLERANCE_MS of the recorded one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TOLERANCE_MS = 50  # the issue's bound: the recordings' own key-to-editor latency is well under it

SHOWN_KEYS = ("request", "after_event", "shown_text", "replace_before", "replace_after")


def assert_same_session(mine: dict[str, Any], real: dict[str, Any],
                        body: Callable[[dict[str, Any]], Any] = lambda r: r["body"]) -> None:
    """`body` reads the part of a request's body that is compared (all of it unless a golden says
    which field its editor's recording cannot be matched on, and why)."""
    assert mine["document"] == real["document"]
    assert [(r["n"], r["after_event"], body(r), r["outcome"]) for r in mine["requests"]] == [
        (r["n"], r["after_event"], body(r), r["outcome"]) for r in real["requests"]]
    assert [tuple(s[k] for k in SHOWN_KEYS) for s in mine["shown"]] == [
        tuple(s[k] for k in SHOWN_KEYS) for s in real["shown"]]
    for got, want in zip(mine["requests"] + mine["shown"], real["requests"] + real["shown"], strict=True):
        assert abs(got["t_ms"] - want["t_ms"]) <= TOLERANCE_MS, (got, want["t_ms"])
