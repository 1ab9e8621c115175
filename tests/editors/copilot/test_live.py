"""Copilot's client in a session (replay/editors/copilot/live.py), one rule of chat-lib 0.66.0's
ghost text call at a time: the state carried from one call to the next (the after-accept strategy,
the item typed as suggested, the completions cache), the speculative request after an item shown,
and the async manager that waits on every pending request and cancels those that no longer match."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from replay.editors.copilot import PROFILE
from replay.editors.copilot.live import AsyncManager, Sent, Wait
from replay.editors.copilot.profile import Prompt
from replay.editors.inputs import BadInputLine
from replay.records import EditorInput
from replay.session.format import Answer, Event, RequestOut, Session, SessionOut
from replay.session.simulate import simulate

DOC = ("import math\n\n\ndef area(r):\n    return math.pi * r * r\n\n\ndef perimeter(r):\n    \n\n\n"
       "def main():\n    print(area(2))\n    print(perimeter(2))\n")
CURSOR = DOC.index("    \n\n\ndef main") + 4
LINE = "    return 2 * math.pi * r"


def run(events: list[dict[str, Any]], answers: list[tuple[float, str]], options: dict[str, Any] | None = None) -> SessionOut:
    evs = (Event(t_ms=0, type="open", document=DOC, cursor=CURSOR), *(Event(**e) for e in events))
    session = Session(id="s", events=evs, answers=tuple(Answer(delay_ms=d, text=t) for d, t in answers),
                      filepath="geometry.py", language="python", options=options or {})
    return simulate(session, lambda host: PROFILE.live_client(host, None, session.options, "qwen2.5-coder", "geometry.py",
                                                              "python"), "copilot")


def after_accept(r: RequestOut) -> bool:
    return (r.body["max_tokens"], r.body["stop"], r.body["extra"]["trim_by_indentation"]) == (20, ["\n\n"], False)


def key(t: float, text: str) -> dict[str, Any]:
    return {"t_ms": t, "type": "type", "text": text}


def accept(t: float) -> dict[str, Any]:
    return {"t_ms": t, "type": "accept"}


def test_an_item_shown_sends_the_speculative_request_at_the_document_with_it_accepted() -> None:
    out = run([key(800, "r")], [(100, "eturn 2 * math.pi * r"), (100, "  # s")])
    first, speculative = out.requests
    assert [s.t_ms for s in out.shown] == [1000.0]  # completionsDelay: 200 ms after the key
    assert (speculative.t_ms, speculative.after_event) == (1000.0, 1)
    assert speculative.body["prompt"].endswith(LINE) and after_accept(speculative) and not after_accept(first)


def test_an_item_typed_as_suggested_is_shown_at_once_and_asks_nothing_ahead() -> None:
    out = run([key(800, "r"), key(1400, "e")], [(100, "eturn 2 * math.pi * r"), (100, "  # s")])
    assert len(out.requests) == 2  # the key's and the first item's speculative request; none at "e"
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [(1000.0, 1, LINE), (1400.0, 1, LINE)]


def test_the_request_after_an_accept_asks_with_the_after_accept_strategy() -> None:
    """The speculative answer is empty (no choice: nothing cached), so the accept asks itself."""
    out = run([key(800, "r"), accept(1400)], [(100, "eturn 2 * math.pi * r"), (0, ""), (100, "  # a")])
    at_accept = [r for r in out.requests if r.after_event == 2 and r.t_ms < 1600]
    assert len(at_accept) == 1 and after_accept(at_accept[0]) and at_accept[0].t_ms == 1400.0
    assert out.shown[-1].shown_text == LINE + "  # a" and out.shown[-1].t_ms == 1600.0


def test_the_accept_is_served_from_the_cache_the_speculative_answer_filled() -> None:
    out = run([key(800, "r"), accept(1400)], [(100, "eturn 2 * math.pi * r"), (100, "  # s"), (0, "")])
    assert not [r for r in out.requests if r.after_event == 2 and r.t_ms < 1600]
    assert (out.shown[-1].request, out.shown[-1].shown_text, out.shown[-1].t_ms) == (2, LINE + "  # s", 1600.0)


def test_an_accept_while_the_speculative_request_is_in_flight_waits_for_it_at_most_200_ms() -> None:
    slow = run([key(800, "r"), accept(1300)], [(100, "eturn 2 * math.pi * r"), (800, "  # s"), (100, "  # a")])
    assert [(r.t_ms, r.after_event) for r in slow.requests][2] == (1500.0, 2)  # sent when the wait ends
    assert (slow.shown[1].request, slow.shown[1].t_ms) == (3, 1600.0)
    soon = run([key(800, "r"), accept(1300)], [(100, "eturn 2 * math.pi * r"), (400, "  # s"), (100, "  # a")])
    assert [r.after_event for r in soon.requests][:2] == [1, 1] and (soon.shown[1].request, soon.shown[1].t_ms) == (2, 1500.0)


def test_a_cache_hit_after_typing_through_is_held_until_200_ms_after_its_key() -> None:
    """The item on screen was replaced ("x" went its own way): the backspace's line comes from the
    first answer in the completions cache, less the "e" typed since."""
    out = run([key(800, "r"), key(1400, "e"), key(1800, "x"), {"t_ms": 2400, "type": "delete", "count": 1}],
              [(100, "eturn 2 * math.pi * r"), (100, "  # s1"), (100, "it(r)"), (100, "  # s2"), (100, "")])
    at_delete = [r for r in out.requests if r.after_event == 4]
    assert all(r.t_ms >= 2600.0 for r in at_delete)  # only the speculative request, after the item
    assert (out.shown[-1].request, out.shown[-1].shown_text, out.shown[-1].t_ms) == (1, LINE, 2600.0)


def test_a_call_is_answered_by_an_earlier_pending_request_while_its_own_is_pending() -> None:
    """getFirstMatchingRequest waits on every candidate: the first key's slow answer, which goes
    on from the "e" typed since, comes before the call's own request's."""
    out = run([key(800, "r"), key(1000, "e")], [(600, "eturn 2 * math.pi * r"), (300, "turn 2 * math.pi * r  # two"), (0, "")])
    own = out.requests[1]
    assert (own.t_ms, own.after_event) == (1200.0, 2)  # the 200 ms wait for the first ended first
    assert (out.shown[0].request, out.shown[0].t_ms, out.shown[0].shown_text) == (1, 1400.0, LINE)


def test_the_latest_call_cancels_a_pending_request_it_no_longer_matches() -> None:
    out = run([key(800, "r"), key(1100, "x")], [(100, "eturn 2 * math.pi * r"), (800, "  # s"), (100, "")])
    speculative = out.requests[1]
    assert speculative.after_event == 1 and speculative.outcome == "cancelled"


def test_a_keystroke_while_a_call_waits_drops_its_request_unsent() -> None:
    out = run([key(800, "r"), key(1000, "e"), key(1100, "t")], [(600, "eturn 2 * math.pi * r"), (0, ""), (0, "")])
    assert [r.after_event for r in out.requests][:2] == [1, 3]  # the "e" call's wait was cut by "t"
    assert out.requests[1].t_ms == 1300.0


def asked(prefix: str) -> Prompt:
    """A prompt at `prefix` with an empty suffix (only what the async manager reads)."""
    return Prompt(EditorInput(prefix=prefix, suffix=""), SimpleNamespace(suffix=""), prefix, False, False)  # type: ignore[arg-type]


def test_a_speculative_call_neither_becomes_the_latest_nor_cancels() -> None:
    """mostRecentRequestId moves only for a call that is not speculative: a speculative call's
    getFirstMatchingRequest leaves the pending requests it does not match alone."""
    manager = AsyncManager()
    cancelled: list[int] = []

    class Req:
        def __init__(self, n: int) -> None:
            self.n = n

        def cancel(self) -> None:
            cancelled.append(self.n)

    manager.queue(Sent(Req(1), asked("ab"), {}))
    manager.first_matching(7, "xy", "", True, lambda c, s: None)
    assert cancelled == [] and manager.most_recent == 0
    manager.first_matching(8, "xy", "", False, lambda c, s: None)
    assert cancelled == [1] and manager.most_recent == 8


def test_a_wait_with_no_candidate_left_settles_empty() -> None:
    got: list[Any] = []
    wait = Wait(1, "ab", "", lambda c, s: got.append((c, s)))
    wait.pending.add(1)
    sent = Sent(type("R", (), {"n": 1, "cancel": lambda self: None})(), asked("a"), {})
    wait.ended(sent)
    assert got == [(None, None)] and wait.resolved


def test_a_cache_hit_answers_before_the_async_manager_and_cancels_nothing() -> None:
    """getLocalInlineSuggestion comes first: the backspace's line is the first answer from the
    completions cache, so no getFirstMatchingRequest runs and the speculative request still in
    flight for "x"'s item (which the backspace no longer matches) is left to finish."""
    out = run([key(800, "r"), key(1300, "x"), {"t_ms": 1800, "type": "delete", "count": 1}],
              [(100, "eturn 2 * math.pi * r"), (100, "  # s"), (100, "it(r)"), (2000, "  # s2")])
    assert [(r.n, r.outcome) for r in out.requests] == [(1, "shown"), (2, "not_shown"), (3, "shown"), (4, "not_shown")]
    assert (out.shown[-1].request, out.shown[-1].shown_text, out.shown[-1].t_ms) == (1, LINE, 2000.0)


def test_the_debounce_setting_delays_the_call_and_a_key_within_it_drops_it() -> None:
    """getRemainingDebounceMs: the completionsDebounce setting, then the cancellation check."""
    out = run([key(800, "r"), key(850, "e")], [(50, "turn 2 * math.pi * r"), (0, "")], {"completionsDebounce": 100})
    assert [(r.t_ms, r.after_event) for r in out.requests][0] == (950.0, 2)
    assert out.shown[0].t_ms == 1050.0  # completionsDelay counts from the call's start, the key


def test_a_pending_request_whose_text_no_longer_matches_the_latest_call_is_dropped_uncached() -> None:
    """updateCompletion: the speculative answer ("  # s", asked at the accepted line) streams in
    while the latest call ("x" typed after the accept) waits on it; it does not go on from "x", so
    that call cancels it before its choice is read. The backspace back to the accepted line then
    finds nothing cached and asks."""
    out = run([key(800, "r"), accept(1300), key(1700, "x"), {"t_ms": 2500, "type": "delete", "count": 1}],
              [(100, "eturn 2 * math.pi * r"), (1000, "  # s"), (50, ""), (100, ""), (100, "  # d")])
    assert [(r.n, r.t_ms, r.after_event) for r in out.requests] == [(1, 800.0, 1), (2, 1000.0, 1), (3, 1500.0, 2),
                                                                    (4, 1900.0, 3), (5, 2500.0, 4), (6, 2700.0, 4)]
    assert (out.shown[-1].request, out.shown[-1].shown_text) == (5, LINE + "  # d")


def test_a_session_asking_for_cycling_is_rejected_not_modelled_wrong() -> None:
    with pytest.raises(BadInputLine, match="cycling"):
        run([key(800, "r")], [(100, "eturn 2 * math.pi * r")], {"cycling": True})
