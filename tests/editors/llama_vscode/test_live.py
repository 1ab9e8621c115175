"""llama.vscode's session client (replay/editors/llama_vscode/live.py): the speculative follow-up
request after each item shown (cacheFutureSuggestion, src/completion.ts @v0.0.63)."""

from __future__ import annotations

from typing import Any

from replay.assets import DEMO_MODEL, asset_path
from replay.editors.llama_vscode import PROFILE
from replay.session.format import Answer, Event, Session, SessionOut
from replay.session.simulate import simulate

DOC = "def f(x):\n    return \n\nprint(f(1))\n"
AT = DOC.index("return ") + len("return ")


def run(events: list[dict[str, Any]], answers: list[tuple[float, str]], version: str = "v0.0.63",
        document: str = DOC, cursor: int = AT, options: dict[str, Any] | None = None) -> SessionOut:
    evs = (Event(t_ms=0, type="open", document=document, cursor=cursor), *(Event(**e) for e in events))
    session = Session(id="s", events=evs, answers=tuple(Answer(delay_ms=d, text=t) for d, t in answers))
    model = str(asset_path(DEMO_MODEL.name))
    return simulate(session, lambda host: PROFILE.live_client(host, version, options or {}, model, "f.py", "python"), "x")


def test_after_an_item_at_a_blank_rest_of_line_the_context_with_it_accepted_is_asked_at_once() -> None:
    out = run([{"t_ms": 100, "type": "type", "text": "x"}], [(50, " + 1"), (50, "  # next")])
    first, ahead = out.requests
    assert (ahead.t_ms, ahead.after_event, ahead.outcome) == (150, 1, "not_shown")
    assert ahead.body["prompt"] == first.body["prompt"] + " + 1" == "    return x + 1"
    assert ahead.body["input_prefix"] == first.body["input_prefix"] and ahead.body["n_indent"] == 4
    assert [s.shown_text for s in out.shown] == [" + 1"]


def test_a_suggestion_of_several_lines_asks_after_all_of_it_with_the_prompt_s_indentation() -> None:
    out = run([{"t_ms": 100, "type": "type", "text": "x"}], [(50, " + 1\n    y = 2\n")])
    first, ahead = out.requests
    assert ahead.body["input_prefix"] == first.body["input_prefix"] + "    return x + 1\n"
    assert ahead.body["prompt"] == "    y = 2" and ahead.body["n_indent"] == 4


def test_nothing_is_asked_ahead_when_the_rest_of_the_line_is_not_blank() -> None:
    doc = "def f(x):\n    return g()\n"
    out = run([{"t_ms": 100, "type": "type", "text": "x"}], [(50, "1")], document=doc, cursor=doc.index("()") + 1)
    assert len(out.requests) == 1


def test_the_array_answer_of_a_follow_up_is_not_cached_so_the_item_shown_again_asks_again() -> None:
    # n_cmpl bodies are answered with an array, whose `content` is undefined: nothing cached, and
    # the same item shown again from the cache (a typed " " is its start) sends the same follow-up
    out = run([{"t_ms": 100, "type": "type", "text": "x"}, {"t_ms": 300, "type": "type", "text": " "}],
              [(50, " + 1"), (50, " + 2"), (50, "3")])
    assert [r.body["prompt"] for r in out.requests] == ["    return x", "    return x + 1", "    return x + 1"]
    assert [(s.t_ms, s.shown_text, s.request) for s in out.shown] == [(150, " + 1", 1), (300, "+ 1", 1)]


def test_without_n_cmpl_the_follow_up_s_answer_is_cached_and_not_asked_again() -> None:
    out = run([{"t_ms": 100, "type": "type", "text": "x"}, {"t_ms": 300, "type": "type", "text": "y"},
               {"t_ms": 400, "type": "delete"}], [(50, " + 1"), (50, " + 2"), (50, "3"), (50, "4")],
              version="v0.0.39")
    assert "n_cmpl" not in out.requests[0].body
    prompts = [r.body["prompt"] for r in out.requests]
    assert prompts.count("    return x + 1") == 1


def test_before_v0_0_6_the_rest_of_the_line_does_not_stop_the_follow_up() -> None:
    doc = "def f(x):\n    return g()\n"
    out = run([{"t_ms": 100, "type": "type", "text": "x"}], [(50, "1")], version="v0.0.5", document=doc,
              cursor=doc.index("()") + 1)
    assert [r.body["prompt"] for r in out.requests] == ["    return g(x", "    return g(x1"]


def test_the_rest_after_a_suggestion_s_first_line_is_cached_at_the_next_line() -> None:
    # cacheFutureAcceptLineSuggestion: typing the first line and Enter is a cache hit, no request
    out = run([{"t_ms": 100, "type": "type", "text": "x"}, {"t_ms": 300, "type": "type", "text": " + 1\n"}],
              [(50, " + 1\n    y = 2"), (50, "  # ahead")])
    assert [(s.t_ms, s.shown_text, s.request) for s in out.shown] == [(150, " + 1\n    y = 2", 1), (300, "    y = 2", 1)]
    assert [r.after_event for r in out.requests if r.body["prompt"] in ("", "    ")] == []


def test_from_v0_0_6_the_input_prefix_after_several_lines_keeps_its_last_n_prefix_lines() -> None:
    def ahead(version: str) -> str:
        out = run([{"t_ms": 100, "type": "type", "text": "x"}], [(50, " + 1\n    y = 2")], version=version,
                  options={"llama-vscode.n_prefix": 1})
        return out.requests[1].body["input_prefix"]

    assert ahead("v0.0.63") == "    return x + 1\n"
    assert ahead("v0.0.5") == "def f(x):\n    return x + 1\n"
