"""tabby-agent's config file by state (replay.editors.tabby.agent_config): a key another release
reads is left unread and named; a key no release reads is refused.

Every state's loader (clients/tabby-agent/src/configFile.ts, from 5dfe7a125 config/configFile.ts)
deletes only the mistyped keys of its typeCheckSchema and deep-merges the rest over the defaults,
so such a key changes neither the body nor the item (the golden runs of the real bundles hold
configs with keys of other releases at every state: test_agent_golden)."""

from __future__ import annotations

import pytest

from replay.editors.tabby import render
from replay.editors.tabby.agent_config import ignored_options, read_keys
from replay.editors.tabby.completion import complete, postprocess
from replay.editors.tabby.options import CLIENT_KEYS, TabbyInputError
from replay.editors.tabby.releases import agent_state
from replay.records import EditorInput

STRIP = "completion.prompt.experimentalStripAutoClosingCharacters"
KEEP = "postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine"
SYNTAX = "postprocess.limitScope.experimentalSyntax"
MIN_CHARS = "postprocess.minCompletionChars"
TEMPERATURE = "completion.solution.temperature"
OPENED = "completion.prompt.collectSnippetsFromRecentOpenedFiles.enabled"


def test_the_keys_each_state_reads() -> None:
    assert {STRIP, KEEP, SYNTAX} <= read_keys(agent_state("1.5.0")) and MIN_CHARS not in read_keys(agent_state("1.5.0"))
    # edb23ff99 removed the experimental switches; 6480cedcf added the temperature
    assert not {STRIP, KEEP, SYNTAX} & read_keys(agent_state("1.6.0")) and TEMPERATURE in read_keys(agent_state("1.6.0"))
    assert MIN_CHARS not in read_keys(agent_state("1.7.0")) and MIN_CHARS in read_keys(agent_state("2024-09-06"))
    assert OPENED in read_keys(agent_state("1.8.0")) and OPENED not in read_keys(agent_state("2024-10-13"))
    # every client key is read by some state
    states = ("1.3.0", "1.5.0", "1.6.0", "1.8.0", "1.9.0-dev")
    assert set().union(*(read_keys(agent_state(s)) for s in states)) == CLIENT_KEYS


def test_ignored_keys_are_named_sorted_nested_or_dotted() -> None:
    given = {STRIP: True, "postprocess": {"limitScope": {"indentation": {
        "experimentalKeepBlockScopeWhenCompletingLine": True}}}, "completion.prompt.maxPrefixLines": 3}
    assert ignored_options(given, agent_state("1.7.0")) == (STRIP, KEEP)
    assert ignored_options(given, agent_state("1.5.0")) == ()
    assert ignored_options({MIN_CHARS: 1, TEMPERATURE: 0.2}, agent_state("1.3.0")) == (TEMPERATURE, MIN_CHARS)
    assert ignored_options(None, agent_state("1.3.0")) == ()
    # server keys are the server's, read by every server release: never an agent's ignored key
    assert ignored_options({"completion.max_input_length": 100}, agent_state("1.3.0")) == ()


def test_a_foreign_key_changes_nothing_of_what_is_shown_and_is_named() -> None:
    prefix, suffix = "contract A {\n    function f() public {\n        ", "\n    }\n}\n"
    raw = "uint x = 1;\n    }\n\n    function g() public {}"
    plain = complete(EditorInput(prefix=prefix, suffix=suffix, language="solidity"), raw, version="1.7.0")
    old = complete(EditorInput(prefix=prefix, suffix=suffix, language="solidity", options={KEEP: True, SYNTAX: True}),
                   raw, version="1.7.0")
    assert (old.text, old.replace_after, old.trace) == (plain.text, plain.replace_after, plain.trace)
    assert old.ignored_options == (SYNTAX, KEEP) and plain.ignored_options == ()
    # at 1.5.0 the same keys are read: keep-block scope keeps the closing line's block
    read = complete(EditorInput(prefix=prefix, suffix=suffix, language="solidity", options={KEEP: True}), raw, version="1.5.0")
    assert read.ignored_options == ()
    # a newer release's minCompletionChars means nothing to 1.5.0, which drops only blank texts
    short = postprocess("uint x = ", "\n}\n", "12;", "solidity", config={MIN_CHARS: 1}, version="1.5.0")
    assert short.text == "12;" and short.ignored_options == (MIN_CHARS,)
    assert postprocess("uint x = ", "\n}\n", "12;", "solidity", config={MIN_CHARS: 1}, version="1.8.0").text == "12;"
    assert postprocess("uint x = ", "\n}\n", "12;", "solidity", version="1.8.0").text is None


def test_nothing_sent_still_names_the_ignored_keys() -> None:
    shown = complete(EditorInput(prefix="   ", suffix="", language="solidity", options={MIN_CHARS: 1}), "x = 1", version="1.5.0")
    assert shown.text is None and shown.ignored_options == (MIN_CHARS,)


def test_render_names_the_ignored_keys_and_sends_the_same_body() -> None:
    inp = EditorInput(prefix="function f(", suffix=")\nnext\n", language="typescript")
    plain = render(inp, "qwen2.5-coder", version="1.8.0")
    old = render(EditorInput(prefix=inp.prefix, suffix=inp.suffix, language="typescript", options={STRIP: True}),
                 "qwen2.5-coder", version="1.8.0")
    assert old.request == plain.request and old.text == plain.text
    assert old.ignored_options == (STRIP,) and plain.ignored_options == ()
    # read at 1.5.0: the auto-closed ")" is stripped from the suffix
    assert render(EditorInput(prefix=inp.prefix, suffix=inp.suffix, language="typescript", options={STRIP: True}),
                  "qwen2.5-coder", version="1.5.0").request["segments"]["suffix"] == "\nnext\n"


def test_a_key_no_release_reads_is_refused() -> None:
    inp = EditorInput(prefix="a", suffix="", language="solidity", options={"completion.prompt.experimentalStripAutoClosing": True})
    with pytest.raises(TabbyInputError, match="unknown Tabby option"):
        render(inp, "qwen2.5-coder", version="1.8.0")
    with pytest.raises(TabbyInputError, match="unknown Tabby option"):
        complete(inp, "b", version="1.8.0")
