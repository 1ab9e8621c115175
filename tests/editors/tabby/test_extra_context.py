"""tabby-agent's wait for the editor's extra context before a completion request
(replay/editors/tabby/extra_context.py, from TabbyML/tabby clients/tabby-agent/src: lsp/Server.ts
@7205b788b, codeCompletion/index.ts @309edd172 and @e61d780ca), by itself and through a session."""

from __future__ import annotations

from typing import Any

import pytest

from replay.editors import PROFILES
from replay.editors.live import Doc
from replay.editors.tabby.errors import TabbyInputError
from replay.editors.tabby.extra_context import ContextWait, ProviderTimes
from replay.editors.tabby.version import tabby_version
from replay.editors.timed_client import TimedClient
from replay.session.format import Answer, Event, Session, SessionOut
from replay.session.simulate import simulate

DOC = "def perimeter(r):\n    \n"
CURSOR = 22
SLOW = {"contextProviderMs": {"git": 300, "declarations": 800, "editorOptions": 200}}


def wait(version: str, options: dict[str, Any]) -> ContextWait:
    return ContextWait.of(tabby_version(version).agent, options)


def test_before_7205b788b_the_agent_asks_the_editor_nothing() -> None:
    for version in ("1.3.0", "1.5.0", "1.6.0"):
        assert (wait(version, SLOW).before_debounce_ms(False), wait(version, SLOW).after_debounce_ms(False)) == (0, 0)


def test_from_7205b788b_each_question_in_turn_without_limit_before_the_cache_and_the_debounce() -> None:
    for version in ("1.7.0", "1.8.0", "1.9.0-dev@2025-04-20"):
        context = wait(version, SLOW)
        assert context.before_debounce_ms(False) == 300 + 800 + 200
        assert context.before_debounce_ms(True) == 1300  # the cache is looked up once the context is in
        assert context.after_debounce_ms(False) == 0


def test_from_309edd172_all_at_once_at_most_500ms_before_the_debounce_and_not_for_a_cached_answer() -> None:
    context = wait("1.9.0-dev@2025-04-21", SLOW)
    assert (context.before_debounce_ms(False), context.before_debounce_ms(True), context.after_debounce_ms(False)) == (
        500, 0, 0)
    assert wait("1.9.0-dev@2025-04-21", {"contextProviderMs": {"git": 300}}).before_debounce_ms(False) == 300


def test_from_e61d780ca_the_wait_comes_after_the_debounce() -> None:
    context = wait("1.9.0-dev", SLOW)
    assert (context.before_debounce_ms(False), context.after_debounce_ms(False), context.after_debounce_ms(True)) == (
        0, 500, 0)


def test_declarations_are_asked_only_while_they_are_enabled() -> None:
    off = {**SLOW, "completion.prompt.fillDeclarations.enabled": False}
    assert wait("1.8.0", off).before_debounce_ms(False) == 500
    assert wait("1.9.0-dev", off).after_debounce_ms(False) == 300


def test_the_editor_answers_at_once_unless_the_session_says_otherwise() -> None:
    assert ProviderTimes.of({}) == ProviderTimes()
    assert ProviderTimes.of({"contextProviderMs.git": 40}).git == 40
    assert wait("1.8.0", {}).before_debounce_ms(False) == 0


@pytest.mark.parametrize("bad", [{"git": -1}, {"git": 1.5}, {"git": True}, {"gitt": 10}])
def test_a_provider_time_must_be_whole_milliseconds_of_a_known_question(bad: dict[str, Any]) -> None:
    with pytest.raises(TabbyInputError):
        ProviderTimes.of({"contextProviderMs": bad})


def run(version: str, options: dict[str, Any], events: list[Event], answers: list[tuple[float, str]]) -> SessionOut:
    session = Session(id="s", filepath="geometry.py", language="python", options=options,
                      events=(Event(t_ms=0, type="open", document=DOC, cursor=CURSOR), *events),
                      answers=tuple(Answer(delay_ms=d, text=t) for d, t in answers))
    profile = PROFILES["tabby"]
    return simulate(session, lambda host: profile.live_client(host, version, dict(options), "qwen2.5-coder",
                                                               session.filepath, session.language), "tabby")


def key(t_ms: float, text: str) -> Event:
    return Event(t_ms=t_ms, type="type", text=text)


@pytest.mark.parametrize(("version", "sent"), [("1.5.0", 801), ("1.8.0", 1101), ("1.9.0-dev@2025-04-21", 1101),
                                               ("1.9.0-dev", 1101)])
def test_the_request_goes_out_once_the_context_is_in(version: str, sent: float) -> None:
    # no answer yet: the debounce is Node's 1 ms for a NaN delay
    out = run(version, {"contextProviderMs": {"git": 300}}, [key(800, "r")], [(100, "eturn 2 * r")])
    assert [r.t_ms for r in out.requests] == [sent]


@pytest.mark.parametrize(("version", "sent"), [("1.8.0", 2101), ("1.9.0-dev@2025-04-21", 1301),
                                               ("1.9.0-dev", 1301)])
def test_a_slow_editor_holds_the_request_in_turn_or_until_the_500ms_limit(version: str, sent: float) -> None:
    out = run(version, SLOW, [key(800, "r")], [(100, "eturn 2 * r")])
    assert [r.t_ms for r in out.requests] == [sent]


def test_a_keystroke_during_the_wait_drops_the_call() -> None:
    out = run("1.9.0-dev", {"contextProviderMs": {"git": 400}}, [key(800, "r"), key(1000, "e")],
              [(100, "turn 2 * r")])
    assert [(r.t_ms, r.after_event) for r in out.requests] == [(1401, 2)]


def test_a_cached_answer_waits_for_the_context_until_309edd172_only() -> None:
    events = [key(800, "r"), key(2000, "e"), Event(t_ms=3200, type="delete", count=1)]
    answers = [(100, "eturn 2 * r"), (100, "turn 2 * r")]
    shown = {version: [s.t_ms - 3200 for s in run(version, {"contextProviderMs": {"git": 300}}, events, answers).shown
                       if s.after_event == 3]
             for version in ("1.8.0", "1.9.0-dev")}
    assert len(shown["1.8.0"]) == len(shown["1.9.0-dev"]) == 1
    assert shown["1.8.0"][0] - shown["1.9.0-dev"][0] == 300


class _Calls:
    """A debouncer that notes when it is asked, and holds a call 200 ms."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    def delay(self, doc: Doc, now_ms: float, cached: bool, last_sent_ms: float | None) -> float:
        self.asked.append(now_ms)
        return 200.0

    def answered(self, latency_ms: float | None) -> None:
        """Latencies are not needed here."""


def with_debouncer(version: str, events: list[Event]) -> tuple[_Calls, SessionOut]:
    """The Tabby client at `version`, the repository answered in 300 ms, with a debouncer that notes its calls."""
    calls = _Calls()
    options = {"contextProviderMs": {"git": 300}}
    session = Session(id="s", options=options, events=(Event(t_ms=0, type="open", document=DOC, cursor=CURSOR),
                                                       *events), answers=(Answer(delay_ms=10, text="x"),))

    def client(host: Any) -> TimedClient:
        plain = PROFILES["tabby"].live_client(host, version, options, "qwen2.5-coder", None, "python")
        assert isinstance(plain, TimedClient)
        return TimedClient(host, plain.rules, plain.render, plain.complete, plain.cursor_input, calls, plain.context)

    return calls, simulate(session, client, "tabby")


@pytest.mark.parametrize(("version", "asked"), [("1.9.0-dev@2025-04-21", 1100), ("1.9.0-dev", 800)])
def test_the_debounce_starts_after_the_wait_until_e61d780ca_and_before_it_from_then(version: str, asked: float) -> None:
    calls, out = with_debouncer(version, [key(800, "r")])
    assert calls.asked == [asked] and [r.t_ms for r in out.requests] == [1300]


def test_from_7205b788b_a_relative_filepath_is_sent_relative_to_the_workspace_folder_the_editor_names() -> None:
    bodies = {version: run(version, {}, [key(800, "r")], [(100, "x")]).requests[0].body["segments"].get("filepath")
              for version in ("1.5.0", "1.8.0", "1.9.0-dev")}
    assert bodies == {"1.5.0": None, "1.8.0": "geometry.py", "1.9.0-dev": "geometry.py"}


def test_a_workspace_folder_answer_past_the_limit_is_refused_where_the_agent_would_send_the_uri() -> None:
    late = {"contextProviderMs": {"workspaceFolders": 501}}
    assert wait("1.8.0", late).before_debounce_ms(False) == 501
    with pytest.raises(TabbyInputError, match="document's URI"):
        wait("1.9.0-dev@2025-04-21", late)


@pytest.mark.parametrize(("version", "asked"), [("1.8.0", [1100, 1300]), ("1.9.0-dev@2025-04-21", [1000, 1300]),
                                                ("1.9.0-dev", [800, 1000])])
def test_a_call_dropped_in_its_wait_still_reaches_the_debouncer_until_e61d780ca(version: str,
                                                                                asked: list[float]) -> None:
    """The debouncer counts the call's typing interval before it sees the aborted signal: from
    309edd172 when the key drops the call, at 1.8.0 once the dropped call's questions are answered
    (they run on); from e61d780ca the call had been debounced before it waited."""
    calls, out = with_debouncer(version, [key(800, "r"), key(1000, "e")])
    assert calls.asked == asked and len(out.requests) == 1
