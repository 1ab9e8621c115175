"""Which Tabby a version, a date or a capture names: the agent's code state and the server release."""

from __future__ import annotations

import json
from datetime import date

import pytest

from replay.editors.rulebook import UnknownRelease
from replay.editors.versions import Release
from replay.editors.tabby.errors import TabbyInputError
from replay.editors.tabby.releases import FREEZE, RELEASES, agent_rule, agent_state
from replay.editors.tabby.server import TabbyRules
from replay.editors.tabby.version import capture_spec, tabby_version

DROP_MINIMUM = agent_rule("dropMinimum", "7227d0b17", "2024-09-06T21:26:39Z", "src/postprocess/dropMinimum.ts", "")


def test_a_release_is_the_main_line_commit_it_was_cut_from() -> None:
    state = agent_state("1.8.0")
    assert state.label == "1.8.0" and state.commit.startswith("5dfe7a125") and state.has(DROP_MINIMUM)
    assert not agent_state("1.7.0").has(DROP_MINIMUM)
    assert [r.tag for r in RELEASES][:4] == ["1.3.0", "1.3.1", "1.3.2", "1.3.3"]


def test_a_development_version_is_main_while_it_carried_that_version() -> None:
    assert agent_state("1.9.0-dev").at == FREEZE.at
    assert agent_state("1.8.0-dev").at == "2024-10-17T03:47:28Z"  # until main became 1.9.0-dev
    assert agent_state("1.8.0-dev@2024-09-06").has(DROP_MINIMUM)
    assert not agent_state("1.8.0-dev@2024-09-05").has(DROP_MINIMUM)
    # a day outside the version's time on main is clamped to it
    assert agent_state("1.9.0-dev@2024-01-01").at == "2024-10-17T03:47:28Z"
    assert agent_state("1.9.0-dev@2026-01-01").at == FREEZE.at


def test_a_date_is_main_at_the_end_of_that_utc_day() -> None:
    state = agent_state("2024-09-06")
    assert state.at == "2024-09-06T23:59:59Z" and state.has(DROP_MINIMUM) and state.label == "1.8.0-dev@2024-09-06"
    assert agent_state("2027-01-01").at == FREEZE.at


@pytest.mark.parametrize("spec", ["1.2.0", "2023-12-31", "1.10.0", "1.8", "x", "1.8.0-dev@2024-13-01"])
def test_versions_that_name_no_modelled_agent_are_refused(spec: str) -> None:
    with pytest.raises(UnknownRelease):
        agent_state(spec)


def test_both_halves_of_a_version() -> None:
    newest = tabby_version(None)
    assert newest.agent.at == FREEZE.at and newest.label.startswith("agent=1.9.0-dev,server=")
    agent = tabby_version("1.8.0")
    assert agent.agent.label == "1.8.0" and agent.server.label == TabbyRules.for_date("2024-10-14").label
    assert agent.server.release == Release.parse("0.18.0")
    day = tabby_version("2024-12-31")
    assert day.agent.label == "1.9.0-dev@2024-12-31" and day.server.label == TabbyRules.for_date("2024-12-31").label
    both = tabby_version("agent=1.5.0,server=0.25.0")
    assert (both.agent.label, both.server.label) == ("1.5.0", "0.25.0")
    server = tabby_version("0.25.0")
    assert server.server.label == "0.25.0" and server.agent.day <= "2025-02-28"
    with pytest.raises(TabbyInputError):
        tabby_version("agent=1.5.0,client=1")


def test_a_capture_names_its_agent_by_user_agent_and_day() -> None:
    ts = date(2024, 12, 31)  # the capture's UTC day (CaptureRecord.day)
    assert capture_spec("tabby-agent/1.9.0-dev vscode/1.96.2 TabbyML.vscode-tabby/1.20.0", ts) == \
        "agent=1.9.0-dev@2024-12-31,server=2024-12-31"
    assert capture_spec("tabby-agent/1.7.0 vscode/1.92.2 TabbyML.vscode-tabby/1.7.0", ts) == "agent=1.7.0,server=2024-12-31"
    assert capture_spec(None, ts) == "agent=2024-12-31,server=2024-12-31"
    assert capture_spec(None, date(2023, 10, 1)) == "agent=1.3.0,server=2023-10-01"  # older than the oldest agent
    assert capture_spec(None, None) is None
    version = tabby_version(capture_spec("tabby-agent/1.9.0-dev", ts))
    assert version.agent.label == "1.9.0-dev@2024-12-31"


def test_history_lists_both_halves_with_their_first_release(cli) -> None:
    done = cli("editors", "tabby", "--history", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["history"]
    assert [r["date"] for r in rows] == sorted(r["date"] for r in rows)
    by_commit = {r["commit"]: r for r in rows}
    drop = by_commit["7227d0b171"]
    assert drop["first_release"] == "tabby-agent 1.8.0" and drop["last_without"] == "tabby-agent 1.7.0"
    assert "dropMinimum" in drop["change"]
    after_last_release = [r for r in rows if r["first_release"].startswith("tabby-agent 1.9.0-dev@")]
    assert after_last_release, "rules that reached users only through main's agent"
    assert any(r["change"].startswith("server: ") and r["first_release"] == "0.25.0" for r in rows)  # byte clipping


def test_a_registry_model_gets_the_template_the_registry_had_on_the_servers_day() -> None:
    """registry-tabby's main models.json had Qwen2.5-Coder-7B-Instruct with the Qwen sentinels
    from 2024-10-29 (merge 9fe0d5e) and as a chat entry from 2024-11-12 (c029427): a server of
    0.21 then had no FIM template for it and the prompt is the prefix; 0.22 refused it. Before
    the merge, and whenever it was refused, the model runs with its family's own template."""
    from replay.editors.tabby.profile import render
    from replay.records import EditorInput

    inp = EditorInput(prefix="def f(x):\n    ", suffix="\n", language="python")
    model = "TabbyML/Qwen2.5-Coder-7B-Instruct"
    assert render(inp, model, "2024-11-01").text.startswith("<|fim_prefix|>def f(x):")
    assert "registry-tabby's TabbyML/Qwen2.5-Coder-7B-Instruct of 2024-10-29" in render(inp, model, "2024-11-01").version_why
    assert render(inp, model, "2024-12-01").text == "def f(x):\n    "
    for day in ("2024-10-27", "2025-01-10", None):  # not on main yet; refused by 0.22.0; no day: the family's own
        rendered = render(inp, model, day)
        assert rendered.text.startswith("<|fim_prefix|>def f(x):") and "qwen2.5-coder family's own" in rendered.version_why


def test_another_model_never_takes_a_registry_entry_for_sharing_a_family_word() -> None:
    """A capture of 2024-04-12 or 2024-09-30 replayed against Qwen2.5-Coder (not in the registry
    then) gets Qwen2.5-Coder's own sentinels, not those of the CodeQwen-7B entry of that day;
    CodeQwen-7B itself gets its entry's."""
    from replay.editors.tabby.profile import render
    from replay.records import EditorInput

    inp = EditorInput(prefix="contract A {\n  ", suffix="\n}\n", language="solidity")
    for day in ("2024-04-12", "2024-09-30"):
        for model in ("qwen2.5-coder", "/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", "Qwen/Qwen2.5-Coder-7B",
                      "Qwen2.5-Coder-7B"):
            rendered = render(inp, model, day)
            assert rendered.text.startswith("<|fim_prefix|>contract A") and "<fim_" not in rendered.text, (day, model)
            assert "qwen2.5-coder family's own" in (rendered.version_why or "")
    own = render(inp, "TabbyML/CodeQwen-7B", "2024-09-30")
    assert own.text.startswith("<fim_prefix>contract A") and "CodeQwen-7B of 2024-04-17 (commit 43000c6)" in own.version_why
