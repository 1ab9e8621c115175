"""tabby-agent's config file by state (replay.editors.tabby.agent_config): a key another release
reads is left unread and named; a key no release reads is refused.

Every state's loader (clients/tabby-agent/src/configFile.ts, from f4d9c75f0 config/configFile.ts)
deletes only the mistyped keys of its typeCheckSchema and deep-merges the rest over the defaults,
so such a key changes neither the body nor the item (the golden runs of the real bundles hold
configs with keys of other releases at every state: test_agent_golden)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from replay.editors.tabby.profile import render
from replay.editors.tabby.agent_config import ignored_options, read_keys
from replay.editors.tabby.config_keys import CONFIG_KEYS, spans, state_has
from replay.editors.tabby.completion import complete, postprocess
from replay.editors.tabby.options import CLIENT_KEYS, TabbyInputError
from replay.editors.tabby.releases import RELEASES, AgentState, _label_at, agent_state
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


# --- every key of the agent's config type (config_keys) -------------------------------------------

def _at(at: str) -> AgentState:
    return AgentState(label=f"main@{at}", commit="", at=at)


def _before(at: str) -> str:
    """One second before the committer time `at` (main just before that commit)."""
    moment = datetime.fromisoformat(at.replace("Z", "+00:00")) - timedelta(seconds=1)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_the_table_and_the_modelled_keys_agree_at_every_change() -> None:
    """A modelled key is read exactly where the config type has it (its own row, not an `any`
    above it), on both sides of every commit that added or removed a key."""
    moments = {row.since_at for row in CONFIG_KEYS} | {row.until_at for row in CONFIG_KEYS if row.until_at}
    oldest = min(moments)  # 1.3.0, the oldest modelled state
    for at in sorted(m for m in moments | {_before(m) for m in moments} if m >= oldest):
        state = _at(at)
        for key in CLIENT_KEYS:
            exact = any(row.key == key and row.in_state(state) for row in CONFIG_KEYS)
            assert (key in read_keys(state)) == exact, (key, at)


def test_the_table_labels_name_the_states() -> None:
    """Each row's label range is the project's name of the first state that has it and of the
    first that no longer does (a release, else main's version on the commit's day)."""
    releases = {r.commit: r.tag for r in RELEASES}
    for row in CONFIG_KEYS:
        first = releases.get(row.since) or f"{_label_at(row.since_at)}@{row.since_at[:10]}"
        last = f"gone in {_label_at(row.until_at)}@{row.until_at[:10]}" if row.until_at else "to the freeze"
        assert row.states == f"{first}, {last}", row.key


def test_keys_by_state_as_the_config_types_have_them() -> None:
    assert state_has("completion.timeout", agent_state("1.3.0")) and not state_has("completion.timeout", agent_state("1.3.1"))
    assert not state_has("tls.caCerts", agent_state("1.3.3")) and state_has("tls.caCerts", agent_state("1.4.2"))
    assert not state_has("proxy.url", agent_state("1.7.0")) and state_has("proxy.authorization", agent_state("1.8.0"))
    # removed by b0ba74f58 (2024-09-23), back with config/type.d.ts in f4d9c75f0 (2024-09-25)
    assert [state_has("chat.edit.commandMaxChars", agent_state(d)) for d in ("2024-09-22", "2024-09-24", "2024-09-26")] \
        == [True, False, True]
    assert state_has("experimentalChat.edit.responseSplitter", agent_state("2024-06-01"))
    assert not state_has("experimentalChat.edit.responseSplitter", agent_state("1.7.0"))
    # a Record's sub-keys are the user's own
    assert state_has("server.requestHeaders.X-Team", agent_state("1.3.0"))
    assert state_has("chat.edit.presetCommands.explain.label", agent_state("1.9.0-dev"))
    assert spans("server.tokens") == ()


REALISTIC = {
    "server": {"endpoint": "http://tabby.internal:8080", "token": "auth_5c9e0f1d2b3a4c5d",
               "requestHeaders": {"Authorization": "Bearer sekrit-header-777", "X-Team": "infra"}},
    "logs": {"level": "debug"}, "anonymousUsageTracking": {"disable": True},
    "completion": {"debounce": {"mode": "adaptive", "interval": 250}},
}


@pytest.mark.parametrize("version", ["1.3.0", "1.5.0", "1.6.0", "1.8.0", "2024-12-31", "1.9.0-dev"])
def test_a_realistic_config_is_taken_and_changes_nothing_shown(version: str) -> None:
    """Endpoint, token, headers, log level, telemetry and debounce: every state has them, none
    reaches the body or the shown text, and none is named (they are the state's own keys)."""
    prefix, suffix = "contract A {\n    function f() public {\n        ", "\n    }\n}\n"
    plain = EditorInput(prefix=prefix, suffix=suffix, language="solidity")
    real = EditorInput(prefix=prefix, suffix=suffix, language="solidity", options=REALISTIC)
    assert render(real, "qwen2.5-coder", version=version).request == render(plain, "qwen2.5-coder", version=version).request
    shown = complete(real, "uint x = 1;", version=version)
    assert shown == complete(plain, "uint x = 1;", version=version) and shown.ignored_options == ()


def test_keys_of_other_states_that_change_nothing_are_named() -> None:
    old_and_new = {"completion.timeout": 4000, "proxy.url": "http://proxy:3128", "tls.caCerts": "system",
                   "chat.edit.documentMaxChars": 3000, "experimentalChat.generateCommitMessage.maxDiffLength": 3000}
    assert ignored_options(old_and_new, agent_state("1.3.0")) == (
        "chat.edit.documentMaxChars", "experimentalChat.generateCommitMessage.maxDiffLength", "proxy.url", "tls.caCerts")
    assert ignored_options(old_and_new, agent_state("1.9.0-dev")) == (
        "completion.timeout", "experimentalChat.generateCommitMessage.maxDiffLength")
    inp = EditorInput(prefix="uint a = ", suffix="\n", language="solidity", options=old_and_new)
    assert complete(inp, "1234;", version="1.8.0").text == "1234;"


def test_a_typo_is_refused_with_a_suggestion_and_without_its_value() -> None:
    inp = EditorInput(prefix="a", suffix="", language="solidity", options={"server.tokn": "auth_leaky_value"})
    with pytest.raises(TabbyInputError) as err:
        render(inp, "qwen2.5-coder", version="1.8.0")
    assert "'server.token'" in str(err.value) and "auth_leaky_value" not in str(err.value)


def test_the_request_timeout_of_the_config_decides_a_late_answer() -> None:
    """1.3.0 aborts after `completion.timeout || server.requestTimeout` (TabbyAgent.ts
    createAbortSignal); from 84f27ce67 after server.requestTimeout, whose default became 2 min."""
    def shown(version: str, seconds: float, **config: int) -> str | None:
        keys = {f"{k.split('_')[0]}.{k.split('_')[1]}": v for k, v in config.items()}
        inp = EditorInput(prefix="uint a = ", suffix="\n", language="solidity", options=keys)
        return complete(inp, "1234;", version=version, timing=[(4, seconds)]).text

    assert shown("1.3.0", 5.0) is None and shown("1.3.0", 5.0, completion_timeout=6000) == "1234;"
    assert shown("1.3.0", 5.0, completion_timeout=0) == "1234;"  # 0 falls back to requestTimeout (30 s)
    assert shown("1.3.0", 31.0, completion_timeout=0) is None
    assert shown("1.3.0", 5.0, completion_timeout=0, server_requestTimeout=4500) is None
    assert shown("1.8.0", 100.0) == "1234;" and shown("1.8.0", 100.0, server_requestTimeout=60000) is None
    # completion.timeout is not read after 84f27ce67
    assert shown("1.8.0", 5.0, completion_timeout=1000) == "1234;"
    with pytest.raises(TabbyInputError, match="negative request timeout"):
        shown("1.8.0", 5.0, server_requestTimeout=-1)


def test_a_manual_trigger_allowed_no_choice_sends_nothing() -> None:
    """maxItems or maxTries under 1 ends the agent's fetch loop before its first request (from
    6480cedcf); an automatic trigger fetches once whatever they say; before 6480cedcf no such keys."""
    for key in ("completion.solution.maxItems", "completion.solution.maxTries"):
        manual = EditorInput(prefix="uint a = ", suffix="\n", language="solidity", trigger="manual", options={key: 0})
        auto = EditorInput(prefix="uint a = ", suffix="\n", language="solidity", options={key: 0})
        for version in ("1.6.0", "1.8.0", "1.9.0-dev"):
            assert render(manual, "qwen2.5-coder", version=version).request is None
            shown = complete(manual, "1234;", version=version)
            assert shown.text is None and shown.trace[0].step == "provideCompletions"
            assert complete(auto, "1234;", version=version).text == "1234;"
        assert complete(manual, "1234;", version="1.5.0").ignored_options == (key,)
        assert complete(manual, "1234;", version="1.5.0").text == "1234;"
    one = EditorInput(prefix="uint a = ", suffix="\n", language="solidity", trigger="manual",
                      options={"completion.solution.maxItems": 1, "completion.solution.maxTries": 1})
    assert render(one, "qwen2.5-coder", version="1.8.0").request["temperature"] == 0.8
