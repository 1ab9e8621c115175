"""Continue's client in a session (replay/editors/continue_/live.py), each rule on a small session:
the two debounces, the stream a later call reuses, the request cancelled only when the next one goes out, the cache
serving what was typed into an answer, the accept that asks nothing, a cancelled call's item."""

from __future__ import annotations

from functools import partial
from typing import Any

from replay.editors.continue_.live import ContinueClient, Prefixes
from replay.editors.continue_.profile import cache_prefixes
from replay.editors.continue_.stream import read
from replay.editors.continue_.timing import timing
from replay.editors.live import Doc, Read
from replay.editors.stage import Shown
from replay.editors.timing import TimingRules
from replay.records import EditorInput
from replay.session.format import Answer, Chunk, Event, Session, SessionOut
from replay.session.simulate import simulate

RULES = timing("2.1.0-vscode")  # debounce 350 ms, showWhateverWeHaveAtXMs at modelTimeout (150 ms)


def run(events: list[dict[str, Any]], answers: list[Answer | tuple[float, str]], rules: TimingRules = RULES,
        prefixes: Prefixes = lambda inp: (inp.prefix, inp.prefix), reads: Read | None = None) -> SessionOut:
    evs = (Event(t_ms=0, type="open", document="x = \n", cursor=4), *(Event(**e) for e in events))
    ans = tuple(a if isinstance(a, Answer) else Answer(delay_ms=a[0], text=a[1]) for a in answers)

    def cursor_input(doc: Doc) -> EditorInput:
        return EditorInput(prefix=doc.prefix, suffix=doc.suffix)

    def complete(inp: EditorInput, text: str) -> Shown:
        return Shown(text=text or None, multiline=False)

    return simulate(Session(id="s", events=evs, answers=ans),
                    lambda host: ContinueClient(host, rules, lambda inp: {"prompt": inp.prefix}, complete, cursor_input, prefixes,
                                                lambda inp: reads),
                    "continue")


def typed(t_ms: float, text: str) -> dict[str, Any]:
    return {"t_ms": t_ms, "type": "type", "text": text}


def test_a_later_call_reuses_the_stream_still_coming_when_its_answer_goes_on_from_what_was_typed() -> None:
    stream = Answer(chunks=(Chunk("abc", 50.0), Chunk("def", 600.0)))
    out = run([typed(100, "1"), typed(550, "a")], [stream, (10, "unused")])
    assert [(r.n, r.t_ms, r.outcome) for r in out.requests] == [(1, 450, "shown")]
    assert [(s.t_ms, s.after_event, s.request, s.shown_text) for s in out.shown] == [(1050, 2, 1, "bcdef")]


def test_the_request_in_flight_is_cancelled_when_the_next_call_sends_its_own() -> None:
    out = run([typed(100, "1"), typed(550, "z")], [(900, "abc"), (10, "q")])
    assert [(r.n, r.t_ms, r.outcome) for r in out.requests] == [(1, 450, "cancelled"), (2, 900, "shown")]
    assert [(s.request, s.shown_text) for s in out.shown] == [(2, "q")]


def test_a_cancelled_calls_answer_is_not_shown_but_its_stream_serves_the_next_call() -> None:
    out = run([typed(100, "1"), typed(500, "a")], [(200, "abc")])
    assert [(s.t_ms, s.after_event, s.shown_text) for s in out.shown] == [(850, 2, "bc")]  # not "abc" at 650


def test_the_cache_serves_the_rest_of_an_answer_typed_into_and_an_accept_asks_nothing() -> None:
    events = [typed(100, "1"), typed(1000, "a"), {"t_ms": 2000, "type": "delete", "count": 1},
              {"t_ms": 3000, "type": "accept"}]
    out = run(events, [(10, "abc"), (10, "never")])
    assert [(r.n, r.outcome) for r in out.requests] == [(1, "shown")]
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [(460, 1, "abc"), (1350, 1, "bc"), (2350, 1, "abc")]
    assert out.document == "x = 1abc\n"


def test_typing_past_the_answer_or_a_backspace_before_its_context_sends_a_new_request() -> None:
    out = run([typed(100, "1"), typed(1000, "ax"), {"t_ms": 2000, "type": "delete", "count": 3}],
              [(10, "abc"), (10, "p"), (10, "q")])
    assert [(r.n, r.after_event) for r in out.requests] == [(1, 1), (2, 2), (3, 3)]


def test_the_debounce_waits_after_each_key_and_a_later_key_supersedes_it() -> None:
    out = run([typed(100, "1"), typed(300, "2"), typed(1500, "3")], [(10, "a"), (10, "b")])
    assert [(r.t_ms, r.after_event) for r in out.requests] == [(650, 2), (1850, 3)]


def test_before_42cdb7f845_a_key_after_a_quiet_debounce_asks_at_once_and_opens_a_window() -> None:
    """v1.1.30-vscode's AutocompleteDebouncer: at once after 350 ms without a call; a call inside
    the window (each call extends it) waits 350 ms and asks if no call came meanwhile."""
    old = timing("1.1.30-vscode")
    out = run([typed(100, "1"), typed(300, "2"), typed(500, "3"), typed(1500, "4")],
              [(10, "a"), (10, "b"), (10, "c")], old)
    assert [(r.t_ms, r.after_event) for r in out.requests] == [(100, 1), (850, 3), (1500, 4)]


def test_an_answer_is_cached_under_the_prefix_sent_and_looked_up_by_the_pruned_one() -> None:
    """Back at an answered context after another request: served from the cache when the prefix
    sent is the pruned prefix; asked again when a header goes before it (1.1.30's file name)."""
    events = [typed(100, "1"), typed(1000, "z"), {"t_ms": 2000, "type": "delete", "count": 1}]
    out = run(events, [(10, "abc"), (10, "q"), (10, "r")])
    assert [(r.n, r.after_event) for r in out.requests] == [(1, 1), (2, 2)]
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [(460, 1, "abc"), (1360, 2, "q"), (2350, 1, "abc")]
    out = run(events, [(10, "abc"), (10, "q"), (10, "r")], prefixes=lambda inp: (inp.prefix, "# f\n" + inp.prefix))
    assert [(r.n, r.after_event) for r in out.requests] == [(1, 1), (2, 2), (3, 3)]
    assert [s.shown_text for s in out.shown] == ["abc", "q", "r"]


def test_the_prefix_sent_has_the_file_name_at_1_1_30_and_is_the_pruned_prefix_at_2_1_0() -> None:
    inp = EditorInput(prefix="import math\n\ndef f(r):\n    r", suffix="\n", filepath="geometry.py", language="python")
    assert cache_prefixes(inp, "qwen2.5-coder", "2.1.0-vscode") == (inp.prefix, inp.prefix)
    assert cache_prefixes(inp, "qwen2.5-coder", "1.1.30-vscode") == (inp.prefix, "\n# geometry.py\n" + inp.prefix)


def test_a_call_after_the_stream_was_read_reads_all_of_the_answer_that_came() -> None:
    """The first reader stops at showWhateverWeHaveAtXMs; accepting its item, the next call reads the
    stream's later lines (GeneratorReuseManager keeps every chunk), with no request."""
    lines = Answer(chunks=(Chunk("ab\n", 10.0), Chunk("cd\n", 200.0), Chunk("ef", 500.0)))
    reads = partial(read, hold=0, shown_by_ms=150.0, blank_ends=False, multiline=True)
    out = run([typed(100, "1"), {"t_ms": 1000, "type": "accept"}], [lines, (10, "never")], reads=reads)
    assert [(r.n, r.outcome) for r in out.requests] == [(1, "shown")]
    assert [(s.t_ms, s.request, s.shown_text) for s in out.shown] == [(650, 1, "ab\ncd"), (1350, 1, "\nef")]
