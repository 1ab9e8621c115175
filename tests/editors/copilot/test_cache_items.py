"""The item a session's client shows for a line it answers locally (session.py, answer.py
`local`): the item on screen typed as suggested first (current.ts), then the cache
(completionsCache.ts), cut to one line for a single-line request (makeGhostAPIChoice)."""

from __future__ import annotations

from replay.editors.copilot import request
from replay.editors.copilot.answer import chunk_ends, read_stream, take_lines
from replay.editors.copilot.session import ClientState
from replay.editors.inputs import parse_object

MULTILINE = {"stop": ["\ndef ", "\nclass ", "\nif ", "\n\n#"], "suffix": "\n", "n": 1}  # what `answer` reads of a body
RAW = "    x = 1\n    return x\n"


def _inp(prefix: str, suffix: str = "\n"):
    return parse_object({"prefix": prefix, "suffix": suffix, "language": "python", "filepath": "a.py"})


def _answered(state: ClientState, prefix: str, multiline: bool, suffix: str = "\n"):
    """A later line: the lookup request_body makes, then what the client shows."""
    assert state.cached(prefix, "\n", multiline)
    return state.answer(_inp(prefix, suffix), None, None)


def test_the_item_on_screen_typed_as_suggested_keeps_its_lines() -> None:
    state = ClientState()
    first = state.answer(_inp("def f():\n    "), MULTILINE, RAW)
    assert first.text == "    x = 1\n    return x"
    shown = _answered(state, "def f():\n    x", multiline=False)
    assert (shown.text, shown.replace_before) == ("    x = 1\n    return x", 5)
    assert shown.trace[0].step == "getCompletionsForUserTyping"


def test_a_cached_choice_is_cut_to_one_line_for_a_single_line_request() -> None:
    state = ClientState()
    state.answer(_inp("def f():\n    "), MULTILINE, RAW)
    state.current = None  # another item was shown since: only the cache answers
    shown = _answered(state, "def f():\n    x", multiline=False)
    assert shown.text == "    x = 1" and shown.trace[0].step == "getCompletionsFromCache"
    state.current = None
    assert _answered(state, "def f():\n    x", multiline=True).text == "    x = 1\n    return x"


def test_a_cache_answer_becomes_the_item_on_screen() -> None:
    state = ClientState()
    state.answer(_inp("def f():\n    "), MULTILINE, RAW)
    state.current = None
    _answered(state, "def f():\n    x", multiline=False)  # shows "    x = 1" and puts it on screen
    shown = _answered(state, "def f():\n    x =", multiline=True)
    assert shown.text == "    x = 1" and shown.trace[0].step == "getCompletionsForUserTyping"


def test_a_local_answer_post_processed_to_nothing_shows_nothing() -> None:
    """ghostText.ts: local choices all dropped in context (here: what is left of the choice
    equals the next line) give an empty result, and no request."""
    state = ClientState()
    state.answer(_inp("def f():\n    "), {**MULTILINE, "stop": ["\n"]}, "    y = 2\n")
    state.current = None
    assert _answered(state, "def f():\n    y", multiline=False, suffix="\n  = 2\n").text is None


def test_nothing_sent_and_nothing_cached_shows_nothing() -> None:
    state = ClientState()
    assert not state.cached("def f():\n    ", "\n")
    assert state.answer(_inp("def f():\n    "), None, "ignored").text is None


def test_typing_the_item_whole_is_accepting_it() -> None:
    """current.ts hasAcceptedCurrentCompletion, and the request after it (ghostTextStrategy.ts):
    stop ["\\n\\n"], 20 tokens and one more line read for a language not trimmed by default."""
    state = ClientState()
    state.answer(_inp("import os\n"), {"stop": ["\n"], "suffix": "\n", "n": 1}, "import sys\n")
    assert state.accepted("import os\nimport sys", "\n")
    assert not state.accepted("import os\nimport sy", "\n") and not state.accepted("import os\nimport sys", "")
    assert request.after_accept("python", False) == ("parsing", ["\n\n"], 20)
    assert request.after_accept("python", True) == ("parsingandserver", None, 500)  # multiline anyway
    assert request.after_accept("javascript", False) == ("moremultiline", None, 200)
    body = {"stop": ["\n\n"], "max_tokens": 20}
    assert request.stream_cut(body, "python") == "lines" and request.stream_cut({**body, "stop": ["\n"]}, "python") is None
    raw = "\nimport re\nimport json\n"
    assert read_stream(raw, chunk_ends(raw, None), take_lines(1)) == ("\nimport re", 11)
