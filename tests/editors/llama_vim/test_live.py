"""llama.vim driven through sessions in time (replay/editors/llama_vim/live.py): each rule of
ggml-org/llama.vim autoload/llama.vim the client follows, on a session made for it."""

from __future__ import annotations

from typing import Any

import pytest

from replay.editors import PROFILES
from replay.editors.interface import NoTiming
from replay.session.format import Answer, Event, Session, SessionOut
from replay.session.simulate import simulate

DOC = "def add(a, b):\n    \n"  # the cursor on the indented empty line
AT = len("def add(a, b):\n    ")


def run(events: list[dict[str, Any]], answers: list[Any], document: str = DOC, cursor: int = AT,
        version: str | None = None, options: dict[str, Any] | None = None) -> SessionOut:
    evs = (Event(t_ms=0, type="open", document=document, cursor=cursor), *(Event(**e) for e in events))
    ans = tuple(Answer(delay_ms=d, text=t) for d, t in answers)
    session = Session(id="s", events=evs, answers=ans, filepath="t.py", options=options or {})
    profile = PROFILES["llama.vim"]
    return simulate(session, lambda host: profile.live_client(host, version, session.options, None, "t.py", None),
                    "llama.vim")


def sent(out: SessionOut) -> list[tuple[int, float, str]]:
    return [(r.n, r.t_ms, r.outcome) for r in out.requests]


def test_a_keystroke_sends_at_once_with_a_short_first_predict() -> None:
    out = run([{"t_ms": 100, "type": "type", "text": "r"}], [(50, "eturn a")])
    first = out.requests[0]
    assert (first.t_ms, first.after_event, first.outcome) == (100, 1, "shown")
    assert first.body["prompt"] == "    r" and first.body["t_max_predict_ms"] == 250  # llama#fim: "the first request is quick"
    assert (out.shown[0].t_ms, out.shown[0].request, out.shown[0].shown_text) == (150, 1, "eturn a")


def test_a_request_in_flight_is_not_cancelled_and_the_next_waits_for_the_100ms_timer() -> None:
    out = run([{"t_ms": 100, "type": "type", "text": "a"}, {"t_ms": 150, "type": "type", "text": "b"}],
              [(300, "zzz"), (10, "")])
    # the timer set at 150 fires at 250 and 350 while the first is in flight (answered at 400), sends at 450
    assert sent(out)[:2] == [(1, 100, "not_shown"), (2, 450, "not_shown")]
    assert out.requests[1].body["prompt"] == "    ab" and out.requests[1].after_event == 2


def test_a_late_answer_is_shown_from_what_was_typed_into_it_and_asks_the_follow_up_100ms_later() -> None:
    out = run([{"t_ms": 100, "type": "type", "text": "a"}, {"t_ms": 150, "type": "type", "text": "b"}],
              [(300, "bcd"), (10, "")])
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [(400, 1, "cd")]
    # the answer's callback runs before the job's exit: the follow-up waits for the timer, which
    # replaced the keystroke's pending retry (one s:timer_fim)
    follow = out.requests[1]
    assert (follow.t_ms, follow.body["prompt"], follow.body["t_max_predict_ms"]) == (500, "    abcd", 1000)
    assert len(out.requests) == 2


def test_a_cached_answer_is_shown_again_at_its_context_without_a_request() -> None:
    events = [{"t_ms": 100, "type": "type", "text": "a"},
              {"t_ms": 1000, "type": "move", "cursor": AT},
              {"t_ms": 2000, "type": "move", "cursor": AT + 1}]
    out = run(events, [(100, "bc"), (100, "\nx"), (100, "")])
    # 100: asked; 200: shown, follow-up at 300; 1000: moved back, asked (the rest of line "a" is short);
    # 1100: its empty answer "shown" (s:fim_render marks even an empty hint shown), so its
    # follow-up goes out at 1200; 2000: back at the first context: shown from request 1's
    # answer, its follow-up already cached: no request
    assert [(s.t_ms, s.request) for s in out.shown] == [(200, 1), (2000, 1)]
    assert [r.t_ms for r in out.requests] == [100, 300, 1000, 1200]


def test_accepting_inserts_the_hint_and_the_follow_up_answer_is_shown_at_once() -> None:
    events = [{"t_ms": 100, "type": "type", "text": "r"}, {"t_ms": 1000, "type": "accept"}]
    out = run(events, [(50, "eturn a + b"), (50, "\n\nprint(add(1, 2))"), (50, "")])
    assert out.document == "def add(a, b):\n    return a + b\n"
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [
        (150, 1, "eturn a + b"), (1000, 2, "\n\nprint(add(1, 2))")]
    # the follow-up of the follow-up goes out at the accept (no job in flight then)
    assert [r.t_ms for r in out.requests] == [100, 250, 1000]


def test_accepting_a_line_of_a_multi_line_hint_feeds_an_enter() -> None:
    events = [{"t_ms": 100, "type": "type", "text": "r"}, {"t_ms": 1000, "type": "accept_line"}]
    out = run(events, [(50, "eturn a\n    b"), (50, ""), (50, "")])
    assert out.document == "def add(a, b):\n    return a\n\n"


def test_accepting_all_of_a_multi_line_hint_appends_its_lines() -> None:
    events = [{"t_ms": 100, "type": "type", "text": "r"}, {"t_ms": 1000, "type": "accept"}]
    out = run(events, [(50, "eturn a\n    b"), (50, ""), (50, "")])
    assert out.document == "def add(a, b):\n    return a\n    b\n"


def test_a_dismissed_hint_is_not_accepted() -> None:
    events = [{"t_ms": 100, "type": "type", "text": "r"}, {"t_ms": 500, "type": "dismiss"},
              {"t_ms": 600, "type": "accept"}]
    out = run(events, [(50, "eturn a"), (50, "")])
    assert out.document == "def add(a, b):\n    r\n"


def test_a_deletion_is_a_cursor_move_that_asks_again() -> None:
    events = [{"t_ms": 100, "type": "type", "text": "rx"}, {"t_ms": 1000, "type": "delete", "count": 1}]
    out = run(events, [(50, ""), (50, ""), (50, "")])
    assert out.requests[-1].t_ms == 1000 and out.requests[-1].body["prompt"] == "    r"
    assert out.document == "def add(a, b):\n    r\n"


def test_no_automatic_request_with_more_than_max_line_suffix_after_the_cursor() -> None:
    doc = "x = compute_something(1)\n"
    out = run([{"t_ms": 100, "type": "move", "cursor": 4}], [], document=doc, cursor=0)
    assert out.requests == ()
    out = run([{"t_ms": 100, "type": "move", "cursor": 4}], [], document=doc, cursor=0,
              options={"max_line_suffix": 64})
    assert len(out.requests) == 1


def test_after_3s_without_a_move_a_ring_update_carries_the_picked_chunk_and_takes_no_answer() -> None:
    doc = "".join(f"line_{n} = {n}\n" for n in range(6)) + "\n"
    at = len(doc) - 1
    events = [{"t_ms": 5000, "type": "type", "text": "x"}]
    out = run(events, [(50, "_value")], document=doc, cursor=at)
    ring = [r for r in out.requests if r.body["n_predict"] == 0]
    # the buffer was entered at 0 (picked 100 ms later); the ring timer ticks every 1000 ms from
    # the start and sends once the cursor has been still for 3 s
    assert [r.t_ms for r in ring] == [3000]
    assert ring[0].body["input_extra"][0]["text"] == "".join(f"line_{n} = {n}\n" for n in range(6)) + "\n"
    assert ring[0].outcome == "not_shown"
    fim = [r for r in out.requests if r.body["n_predict"] != 0][0]
    assert fim.outcome == "shown" and out.shown[0].shown_text == "_value"


def test_a_modified_buffer_is_not_picked_on_entering() -> None:
    doc = "".join(f"line_{n} = {n}\n" for n in range(6)) + "\n"
    out = run([{"t_ms": 50, "type": "type", "text": "x"}], [(10, "")], document=doc, cursor=len(doc) - 1)
    assert all(r.body["n_predict"] != 0 for r in out.requests)


def test_commits_before_the_speculative_follow_up_are_not_driven() -> None:
    with pytest.raises(NoTiming, match="1175c8d"):
        run([{"t_ms": 100, "type": "type", "text": "r"}], [], version="2025-03-01")


def test_before_0a811fb_accepting_a_line_of_a_two_line_hint_feeds_no_enter() -> None:
    events = [{"t_ms": 100, "type": "type", "text": "r"}, {"t_ms": 1000, "type": "accept_line"}]
    out = run(events, [(50, "eturn a\n    b"), (50, ""), (50, "")], version="8087476")
    assert out.document == "def add(a, b):\n    return a\n"
