"""The client a release's timing rules make (replay/editors/timed_client.py), driven through
sessions: debounce, cancel, client timeout, late answers, its cache, accepting all or a line."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from replay.editors.live import Doc
from replay.editors.stage import Shown
from replay.editors.timed_client import TimedClient
from replay.editors.timing import Debounce, TimingRules
from replay.records import EditorInput
from replay.session.format import Answer, Chunk, Event, Session, SessionOut
from replay.session.simulate import simulate

RULES = TimingRules(editor="x", release="1", debounce=Debounce("fixed", 100.0), cancels_in_flight=True,
                    client_timeout_ms=None, shows_late=False, late_answer="", cache="none", sources=())


def body(inp: EditorInput) -> dict[str, Any]:
    return {"prefix": inp.prefix}


def complete(inp: EditorInput, text: str) -> Shown:
    return Shown(text=text or None, multiline="\n" in text)


def run(events: list[dict[str, Any]], answers: list[Any], rules: TimingRules = RULES,
        document: str = "x = ", cursor: int = 4) -> SessionOut:
    evs = (Event(t_ms=0, type="open", document=document, cursor=cursor), *(Event(**e) for e in events))
    ans = tuple(a if isinstance(a, Answer) else Answer(delay_ms=a[0], text=a[1]) for a in answers)
    session = Session(id="s", events=evs, answers=ans)

    def cursor_input(doc: Doc) -> EditorInput:
        return EditorInput(prefix=doc.prefix, suffix=doc.suffix)

    return simulate(session, lambda host: TimedClient(host, rules, body, complete, cursor_input), "x")


def typed(*times: float, text: str = "1") -> list[dict[str, Any]]:
    return [{"t_ms": t, "type": "type", "text": text} for t in times]


def test_the_debounce_holds_the_request_and_a_keystroke_within_it_restarts_it() -> None:
    out = run(typed(100, 150), [(10, "0")])
    assert [(r.t_ms, r.body["prefix"], r.after_event) for r in out.requests] == [(250, "x = 11", 2)]
    assert [(s.t_ms, s.shown_text) for s in out.shown] == [(260, "0")]


def test_adaptive_debounce_waits_its_lower_bound() -> None:
    out = run(typed(100), [(10, "0")], replace(RULES, debounce=Debounce("adaptive", 75.0, 1000.0)))
    assert out.requests[0].t_ms == 175


def test_a_throttle_sends_at_once_unless_the_last_request_was_recent() -> None:
    out = run(typed(100, 200, 1500), [(10, "a"), (10, "b"), (10, "c")],
              replace(RULES, debounce=Debounce("throttle", 0.0, 600.0), cancels_in_flight=False))
    assert [r.t_ms for r in out.requests] == [100, 800, 1500]


def test_a_keystroke_cancels_the_request_in_flight_and_its_answer_is_used_up() -> None:
    out = run(typed(100, 300), [(500, "late"), (10, "next")])
    assert [(r.n, r.outcome) for r in out.requests] == [(1, "cancelled"), (2, "shown")]
    assert [s.shown_text for s in out.shown] == ["next"]


def test_a_request_past_the_client_timeout_times_out() -> None:
    out = run(typed(100), [(5000, "slow")], replace(RULES, client_timeout_ms=1000.0))
    assert [r.outcome for r in out.requests] == ["timed_out"]
    assert out.shown == ()


def test_a_late_answer_is_dropped_unless_the_rules_show_it_from_what_was_typed() -> None:
    keep = replace(RULES, cancels_in_flight=False)
    out = run(typed(100, 300, text="a"), [(300, "abc"), (500, "zz")], keep)
    assert [r.outcome for r in out.requests] == ["not_shown", "shown"]  # the second where it was asked
    out = run(typed(100, 300, text="a"), [(300, "abc"), (500, "zz")], replace(keep, shows_late=True))
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [(500, 1, "bc")]


def test_the_cache_shows_an_answer_again_at_its_context_without_a_request() -> None:
    events = [*typed(100), {"t_ms": 500, "type": "delete", "count": 1}, *typed(900)]
    out = run(events, [(10, "0"), (10, "9")], replace(RULES, cache="by context"))
    assert [r.t_ms for r in out.requests] == [200, 600]
    assert [(s.t_ms, s.request) for s in out.shown] == [(210, 1), (610, 2), (1000, 1)]  # after the debounce
    out = run(events, [(10, "0"), (10, "9"), (10, "8")])
    assert [r.t_ms for r in out.requests] == [200, 600, 1000]


def test_a_streamed_answer_is_shown_whole_when_its_last_piece_comes() -> None:
    streamed = Answer(chunks=(Chunk("ab", 50.0), Chunk("cd", 400.0)))
    out = run(typed(100), [streamed], replace(RULES, shown_by_ms=150.0))
    assert [(s.t_ms, s.shown_text) for s in out.shown] == [(600, "abcd")]


def test_accepting_inserts_the_item_and_asks_again() -> None:
    out = run([*typed(100), {"t_ms": 500, "type": "accept"}], [(10, "foo()"), (10, "")])
    assert out.document == "x = 1foo()"
    assert [r.body["prefix"] for r in out.requests] == ["x = 1", "x = 1foo()"]


def test_accepting_a_line_takes_it_with_its_newline_and_keeps_the_rest_shown() -> None:
    out = run([*typed(100), {"t_ms": 500, "type": "accept_line"}, {"t_ms": 600, "type": "accept"}],
              [(10, "a\nb\nc")])
    assert out.document == "x = 1a\nb\nc"
    assert [(s.t_ms, s.shown_text) for s in out.shown] == [(210, "a\nb\nc"), (500, "b\nc")]


def test_a_dismissed_item_is_not_accepted() -> None:
    out = run([*typed(100), {"t_ms": 500, "type": "dismiss"}, {"t_ms": 600, "type": "accept"}], [(10, "foo")])
    assert out.document == "x = 1"


def test_a_cache_that_serves_typed_text_shows_the_rest_of_an_answer_typed_into() -> None:
    events = [*typed(100, text="f"), *typed(500, text="o")]
    typing = replace(RULES, cache="by context", cancels_in_flight=False, serves_typed=True)
    out = run(events, [(10, "oo()")], typing)
    assert [r.t_ms for r in out.requests] == [200]
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [(210, 1, "oo()"), (600, 1, "o()")]
    out = run(events, [(10, "oo()"), (10, "")], replace(typing, serves_typed=False))
    assert [r.t_ms for r in out.requests] == [200, 600]


def test_a_request_due_while_one_is_in_flight_waits_for_it_where_the_rules_say() -> None:
    keep = replace(RULES, debounce=Debounce("none"), cancels_in_flight=False)
    out = run(typed(100, 200), [(500, "a"), (10, "b")], keep)
    assert [r.t_ms for r in out.requests] == [100, 200]
    out = run(typed(100, 200), [(500, "a"), (10, "b")], replace(keep, in_flight_wait_ms=150.0))
    assert [r.t_ms for r in out.requests] == [100, 650]  # checked at 200, 350, 500: the first is answered at 600
    out = run(typed(100, 200, 300), [(500, "a"), (10, "b")], replace(keep, in_flight_wait_ms=150.0))
    assert [r.t_ms for r in out.requests] == [100, 600]  # the wait from 200 dropped at 300; 300, 450, 600


def test_a_cached_answer_with_no_debounce_is_shown_at_once() -> None:
    events = [*typed(100), {"t_ms": 500, "type": "delete", "count": 1}, *typed(900)]
    out = run(events, [(10, "0"), (10, "9")], replace(RULES, cache="by context", debounce=Debounce("none")))
    assert [(s.t_ms, s.request) for s in out.shown] == [(110, 1), (510, 2), (900, 1)]


def test_a_client_that_waits_for_the_request_in_flight_shows_a_late_answer_from_its_cache_at_the_next_check() -> None:
    """llama.vscode: the call that asked was cancelled by the next edit (the host drops what it
    returns); the call of that edit waits (150 ms checks), then finds the answer in the cache by
    what was typed since, and asks nothing."""
    waits = replace(RULES, debounce=Debounce("none"), cancels_in_flight=False, shows_late=True, cache="by context",
                    serves_typed=True, in_flight_wait_ms=150.0)
    events = [*typed(100, text="f"), *typed(200, text="o")]
    out = run(events, [(500, "oo()"), (10, "never")], waits)
    assert [(r.t_ms, r.outcome) for r in out.requests] == [(100, "shown")]
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [(650, 1, "o()")]  # checked at 350, 500, 650
    out = run(events, [(500, "oo()"), (1000, "never")], replace(waits, in_flight_wait_ms=None))
    assert [(s.t_ms, s.shown_text) for s in out.shown] == [(600, "o()")]  # not waiting: shown as it arrives


def test_a_cached_answer_waits_for_the_request_in_flight_where_the_cache_comes_after_the_wait() -> None:
    waits = replace(RULES, debounce=Debounce("none"), cancels_in_flight=False, cache="by context",
                    in_flight_wait_ms=150.0)
    events = [*typed(100), {"t_ms": 500, "type": "delete", "count": 1}, *typed(520)]
    out = run(events, [(10, "0"), (400, "9"), (10, "never")], waits)
    # the delete asks (500, answered at 900); the key typed back at 520 finds request 1's answer at 970
    assert [(r.t_ms, r.outcome) for r in out.requests] == [(100, "shown"), (500, "not_shown")]
    assert [(s.t_ms, s.request) for s in out.shown] == [(110, 1), (970, 1)]


def test_an_answer_typed_out_whole_is_a_cache_hit_that_shows_and_asks_nothing_where_the_rules_say() -> None:
    typing = replace(RULES, debounce=Debounce("none"), cache="by context", cancels_in_flight=False, serves_typed=True)
    events = [*typed(100, text="f"), {"t_ms": 500, "type": "accept"}]
    out = run(events, [(10, "oo"), (10, "x")], replace(typing, serves_typed_whole=True))
    assert [r.t_ms for r in out.requests] == [100]
    assert out.document == "x = foo"
    out = run(events, [(10, "oo"), (10, "x")], typing)
    assert [r.t_ms for r in out.requests] == [100, 500]
