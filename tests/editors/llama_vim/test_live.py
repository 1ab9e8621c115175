"""llama.vim driven through sessions in time (replay/editors/llama_vim/live.py): each rule of
ggml-org/llama.vim autoload/llama.vim the client follows, on a session made for it.

Each request reaches the server CURL_START_MS (35 ms) after the plugin starts it, and Vim sees
the job end before it reads the answer (the common order), so a follow-up asked from an answer
goes out at once. Every session opens with the cursor on an indented empty line: entering
insert mode there is a CursorMovedI, so the plugin asks at once (request 1 at 35 ms, answered
empty at once); its empty hint still counts as shown (s:fim_render), so the speculative
follow-up goes out (request 2 at 70 ms, answered empty), whose context is then cached: the
session is quiet from there, and each test's own requests are numbered from 3."""

from __future__ import annotations

from typing import Any

import pytest

from replay.editors import PROFILES
from replay.editors.interface import NoTiming
from replay.session.format import Answer, Event, Session, SessionOut
from replay.session.simulate import simulate

DOC = "def add(a, b):\n    \n"  # the cursor on the indented empty line
AT = len("def add(a, b):\n    ")
PRELUDE = [(0, ""), (0, "")]


def run(events: list[dict[str, Any]], answers: list[Any], document: str = DOC, cursor: int = AT,
        version: str | None = None, options: dict[str, Any] | None = None) -> SessionOut:
    evs = (Event(t_ms=0, type="open", document=document, cursor=cursor), *(Event(**e) for e in events))
    ans = tuple(Answer(delay_ms=d, text=t) for d, t in answers)
    session = Session(id="s", events=evs, answers=ans, filepath="t.py", options=options or {})
    profile = PROFILES["llama.vim"]
    return simulate(session, lambda host: profile.live_client(host, version, session.options, None, "t.py", None),
                    "llama.vim")


def own(out: SessionOut) -> list[tuple[int, float, str]]:
    return [(r.n, r.t_ms, r.outcome) for r in out.requests[2:]]


def test_entering_insert_mode_at_the_open_asks_and_its_empty_hint_asks_the_follow_up() -> None:
    out = run([], PRELUDE)
    assert [(r.n, r.t_ms, r.body["prompt"], r.body["t_max_predict_ms"]) for r in out.requests] == [
        (1, 35, "", 250), (2, 70, "    ", 1000)]  # a whitespace-only line is sent as "" (s:fim_ctx_local)
    assert out.shown == ()


def test_no_request_at_the_open_where_vim_already_had_the_cursor() -> None:
    out = run([], [], cursor=0)
    assert out.requests == ()


def test_a_keystroke_sends_at_once_with_a_short_first_predict() -> None:
    out = run([{"t_ms": 500, "type": "type", "text": "r"}], [*PRELUDE, (50, "eturn a")])
    first = out.requests[2]
    assert (first.n, first.t_ms, first.after_event, first.outcome) == (3, 535, 1, "shown")
    assert first.body["prompt"] == "    r" and first.body["t_max_predict_ms"] == 250  # "the first request is quick"
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [(585, 3, "eturn a")]


def test_a_request_in_flight_is_not_cancelled_and_the_next_waits_for_the_100ms_timer() -> None:
    out = run([{"t_ms": 500, "type": "type", "text": "a"}, {"t_ms": 550, "type": "type", "text": "b"}],
              [*PRELUDE, (300, "zzz"), (10, "")])
    # the timer set at 550 fires at 650 and 750 while the first is in flight (answered at 835),
    # sends at 850 (at the server 35 ms later)
    assert own(out)[:2] == [(3, 535, "not_shown"), (4, 885, "not_shown")]
    assert out.requests[3].body["prompt"] == "    ab" and out.requests[3].after_event == 2


def test_a_late_answer_is_shown_from_what_was_typed_into_it_and_asks_the_follow_up_100ms_later() -> None:
    out = run([{"t_ms": 500, "type": "type", "text": "a"}, {"t_ms": 550, "type": "type", "text": "b"}],
              [*PRELUDE, (300, "bcd"), (10, "")])
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [(835, 3, "cd")]
    # the job has ended when the answer is read: its follow-up goes out at once; the keystroke's
    # retry timer (650, 750, 850, 950) still asks for the cursor's own context once that is back
    follow = out.requests[3]
    assert (follow.t_ms, follow.body["prompt"], follow.body["t_max_predict_ms"]) == (870, "    abcd", 1000)
    assert [(r.t_ms, r.body["prompt"]) for r in out.requests[4:]] == [(985, "    ab")]


def test_a_cached_answer_is_shown_again_at_its_context_without_a_request() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "a"},
              {"t_ms": 1500, "type": "move", "cursor": AT},
              {"t_ms": 2500, "type": "move", "cursor": AT + 1}]
    out = run(events, [*PRELUDE, (100, "bc"), (100, "\nx"), (100, "")])
    # 500: asked; 635: shown, its follow-up at once; 1500: moved back (the rest of line "a" is
    # short): asked; 1635: its empty answer "shown" (s:fim_render marks even an empty hint
    # shown), so its follow-up goes out, built on the whole line with the hint's "a" appended;
    # 2500: back at the first context: shown from request 3's answer, its follow-up already
    # cached: no request
    assert [(s.t_ms, s.request) for s in out.shown] == [(635, 3), (2500, 3)]
    assert [(r.t_ms, r.body["prompt"]) for r in out.requests[2:]] == [
        (535, "    a"), (670, "    abc"), (1535, "    "), (1670, "    aa")]


def test_accepting_inserts_the_hint_and_the_follow_up_answer_is_shown_at_once() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "r"}, {"t_ms": 1500, "type": "accept"}]
    out = run(events, [*PRELUDE, (50, "eturn a + b"), (50, "\n\nprint(add(1, 2))"), (50, "")])
    assert out.document == "def add(a, b):\n    return a + b\n"
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [
        (585, 3, "eturn a + b"), (1500, 4, "\n\nprint(add(1, 2))")]
    # the follow-up of the follow-up goes out at the accept (no job in flight then)
    assert [r.t_ms for r in out.requests[2:]] == [535, 620, 1535]


def test_accepting_a_line_of_a_multi_line_hint_feeds_an_enter() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "r"}, {"t_ms": 1500, "type": "accept_line"}]
    out = run(events, [*PRELUDE, (50, "eturn a\n    b")])
    assert out.document == "def add(a, b):\n    return a\n\n"


def test_before_0a811fb_accepting_a_line_of_a_two_line_hint_feeds_no_enter() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "r"}, {"t_ms": 1500, "type": "accept_line"}]
    out = run(events, [*PRELUDE, (50, "eturn a\n    b")], version="8087476")
    assert out.document == "def add(a, b):\n    return a\n"


def test_accepting_all_of_a_multi_line_hint_appends_its_lines() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "r"}, {"t_ms": 1500, "type": "accept"}]
    out = run(events, [*PRELUDE, (50, "eturn a\n    b")])
    assert out.document == "def add(a, b):\n    return a\n    b\n"


def test_accepting_with_no_hint_shown_is_the_tab_key_itself() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "r"}, {"t_ms": 510, "type": "accept"}]
    out = run(events, [*PRELUDE, (50, "eturn a")])
    assert out.document == "def add(a, b):\n    r\t\n"


def test_a_dismiss_is_escape_an_answer_in_normal_mode_is_not_shown_and_the_next_move_asks_again() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "r"}, {"t_ms": 520, "type": "dismiss"},
              {"t_ms": 1500, "type": "move", "cursor": AT + 1}]
    out = run(events, [*PRELUDE, (50, "eturn a"), (50, "x")])
    assert out.shown[0].t_ms == 1500 and out.shown[0].request == 3  # not at 550: in normal mode
    assert out.document == DOC[:AT] + "r" + DOC[AT:]


def test_a_dismissed_hint_is_not_accepted() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "r"}, {"t_ms": 1000, "type": "dismiss"},
              {"t_ms": 1100, "type": "move", "cursor": AT + 1}, {"t_ms": 1110, "type": "move", "cursor": AT + 1}]
    out = run(events, [*PRELUDE, (50, "eturn a")])
    assert out.document == "def add(a, b):\n    r\n"


def test_each_backspace_is_a_keystroke() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "rxy"}, {"t_ms": 1500, "type": "delete", "count": 2}]
    out = run(events, [*PRELUDE, (50, ""), (50, ""), (50, ""), (50, "")])
    # the first backspace asks (nothing in flight), the second waits for it: 100 ms later
    assert [(r.t_ms, r.body["prompt"]) for r in out.requests if r.t_ms >= 1500] == [(1535, "    rx"), (1635, "    r")]
    assert out.document == "def add(a, b):\n    r\n"


def test_no_automatic_request_with_more_than_max_line_suffix_after_the_cursor() -> None:
    doc = "x = compute_something(1)\n"
    out = run([{"t_ms": 100, "type": "move", "cursor": 4}], [], document=doc, cursor=0)
    assert out.requests == ()
    out = run([{"t_ms": 100, "type": "move", "cursor": 4}], [], document=doc, cursor=0,
              options={"max_line_suffix": 64})
    assert out.requests[0].t_ms == 135


def test_after_3s_without_a_move_a_ring_update_carries_a_chunk_and_takes_no_answer() -> None:
    doc = "".join(f"line_{n} = {n}\n" for n in range(6)) + "\n"
    far = "".join(f"other_{n} = {n}\n" for n in range(100))
    events = [{"t_ms": 500, "type": "type", "text": "x"}, {"t_ms": 5000, "type": "move", "cursor": len(doc)}]
    out = run(events, [(0, ""), (50, "_value")], document=doc + far, cursor=len(doc) - 1)
    # the chunk picked on entering the file is in the ring from the open, and dropped at the
    # first request as like the cursor's window (8087476); that request, the first more than 32
    # lines from the last pick, picks lines below the suffix, which a ring update carries 3 s
    # after the last move, on the ring timer's tick; the ring update takes no scripted answer
    assert [(u.t_ms, len(u.body["input_extra"])) for u in out.ring_updates] == [(4035, 1)]
    assert out.ring_updates[0].body["n_predict"] == 0
    assert out.ring_updates[0].body["input_extra"][0]["text"].startswith("other_")
    assert [r.body["input_extra"] for r in out.requests] == [[], [], []]
    assert [(s.request, s.shown_text) for s in out.shown] == [(2, "_value")]


def test_commits_before_the_speculative_follow_up_are_not_driven() -> None:
    with pytest.raises(NoTiming, match="1175c8d"):
        run([{"t_ms": 100, "type": "type", "text": "r"}], [], version="2025-03-01")


def test_the_chunk_in_the_ring_at_the_open_is_the_window_around_the_files_first_line() -> None:
    doc = "".join(f"line_{n} = {n}\n" for n in range(80))
    at = doc.index("line_70 = 70\n") + len("line_70 = 70")
    # at ec87086 chunks like the cursor's window are not dropped before a request: the entered
    # file's chunk goes with the first one, Vim's window around line 1 when the file was entered
    out = run([], [], document=doc, cursor=at, version="ec87086")
    extra = out.requests[0].body["input_extra"]
    assert [(c["text"], c["filename"]) for c in extra] == [("".join(f"line_{n} = {n}\n" for n in range(33)), "t.py")]


def test_with_auto_fim_off_or_the_plugin_disabled_typing_asks_nothing() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "r"}]
    assert run(events, [], options={"auto_fim": False}).requests == ()
    out = run(events, [], options={"enable_at_startup": False})
    assert out.requests == () and out.ring_updates == ()


def test_a_second_escape_leaves_the_cursor_where_the_first_put_it() -> None:
    events = [{"t_ms": 500, "type": "type", "text": "ab"}, {"t_ms": 600, "type": "dismiss"},
              {"t_ms": 700, "type": "dismiss"}, {"t_ms": 800, "type": "type", "text": "X"}]
    out = run(events, [*PRELUDE])
    assert out.document == "def add(a, b):\n    aXb\n"  # back into insert mode before the "b"
