"""tabby-agent's request body by state (replay.editors.tabby.client.build_request).

tabby-agent has no unit tests of its request side in any release from 1.3.0 to e61d780c (its
src/**/*.test.ts are the post-processing filters and config/default.test.ts), so the cases here are
read from the source at each rule's commit (replay.editors.tabby.request_rules names them), and
the golden bodies recorded from the agent's own bundles over LSP are compared when present
(tests/data/golden/tabby/: cases.json.gz and <state>.json.gz).
"""

from __future__ import annotations

import gzip
import json
import os
import re
from pathlib import Path

import pytest

from replay.editors.inputs import parse_object
from replay.editors.tabby import request_rules as r
from replay.editors.tabby.client import build_request
from replay.editors.tabby.options import TabbyInputError
from replay.editors.tabby.request_rules import agent_defaults
from replay.editors.tabby.releases import RELEASES, AgentState, agent_state
from replay.records import EditorInput, Snippet


def body(state: str, **kw: object) -> dict | None:
    return build_request(EditorInput(**{"language": "solidity", **kw}), state=agent_state(state))  # type: ignore[arg-type]


def test_rules_are_ordered_commits_of_main() -> None:
    times = [rule.at for rule in r.REQUEST_RULES]
    assert times == sorted(times)
    assert all(re.fullmatch(r"[0-9a-f]{40}", rule.commit) for rule in r.REQUEST_RULES)
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", rule.at) for rule in r.REQUEST_RULES)
    assert len({rule.name for rule in r.REQUEST_RULES}) == len(r.REQUEST_RULES)


def test_first_release_of_each_rule() -> None:
    first = {rule.name: next((rel.tag for rel in RELEASES if agent_state(rel.tag).has(rule)), "1.9.0-dev")
             for rule in r.REQUEST_RULES}
    assert first == {
        "line-end-html-closers": "1.3.1", "strip-auto-closing-on": "1.3.1", "strip-auto-closing-off": "1.3.3",
        "filepath": "1.5.0", "declarations": "1.5.0", "changed-files": "1.5.0", "changed-files-on": "1.5.0",
        "strip-auto-closing-removed": "1.6.0", "manual-temperature": "1.6.0", "agent-collects-context": "1.7.0",
        "no-clipboard-route": "1.8.0", "opened-files": "1.8.0", "line-end-suffix": "1.9.0-dev",
        "context-refactor": "1.9.0-dev"}


def test_defaults_by_state() -> None:
    strip = "completion.prompt.experimentalStripAutoClosingCharacters"
    assert agent_defaults(agent_state("1.3.0"))[strip] is False
    assert agent_defaults(agent_state("1.3.1"))[strip] is True  # cb50aeac5 .. 77b52acea
    assert agent_defaults(agent_state("1.3.3"))[strip] is False
    assert strip not in agent_defaults(agent_state("1.6.0"))
    changed = "completion.prompt.collectSnippetsFromRecentChangedFiles.enabled"
    assert agent_defaults(agent_state("2024-04-16"))[changed] is False  # f29d24a95, before a2db35be9
    assert agent_defaults(agent_state("1.5.0"))[changed] is True
    assert "completion.solution.temperature" not in agent_defaults(agent_state("1.5.0"))



def test_a_key_of_another_release_is_ignored_and_a_typo_refused() -> None:
    """configFile.ts validateConfig (every state) drops only mistyped keys of its schema and the
    rest is deep-merged over the defaults: a key the state's code never reads changes nothing."""
    strip = "completion.prompt.experimentalStripAutoClosingCharacters"
    plain = body("1.6.0", prefix="f(", suffix=")\nnext\n")
    assert body("1.6.0", prefix="f(", suffix=")\nnext\n", options={strip: True}) == plain
    # ignored whatever its value: no code of that state reads it
    assert body("1.6.0", prefix="f(", suffix=")\nnext\n", options={strip: "yes"}) == plain
    newer = {"completion.solution.temperature": 0.2, "completion.prompt.collectSnippetsFromRecentOpenedFiles.enabled": True}
    assert body("1.3.0", prefix="f(", suffix=")\n", options=newer, trigger="manual") == body("1.3.0", prefix="f(", suffix=")\n")
    # a key the state reads is still checked
    with pytest.raises(TabbyInputError, match="must be bool"):
        body("1.3.0", prefix="a", suffix="", options={strip: "yes"})
    with pytest.raises(TabbyInputError, match="unknown Tabby option"):
        body("1.6.0", prefix="a", suffix="", options={"completion.prompt.experimentalStripAutoClosingCharacter": True})


def test_strip_auto_closing_by_state() -> None:
    """TabbyAgent.ts createSegments: at a line end (mode "default") the suffix is "\\n" + lines 1.."""
    on = {"completion.prompt.experimentalStripAutoClosingCharacters": True}
    assert body("1.3.0", prefix="f(", suffix=")\nnext\n", options=on)["segments"]["suffix"] == "\nnext\n"
    # before bb2afea15 `>` is no closing character
    assert body("1.3.0", prefix="<a", suffix=">\nnext\n", options=on)["segments"]["suffix"] == ">\nnext\n"
    assert body("1.3.3", prefix="<a", suffix=">\nnext\n", options=on)["segments"]["suffix"] == "\nnext\n"
    assert body("1.3.1", prefix="f(", suffix=")\nnext\n")["segments"]["suffix"] == "\nnext\n"  # on by default
    assert body("1.3.3", prefix="f(", suffix=")\nnext\n")["segments"]["suffix"] == ")\nnext\n"


def test_blank_prefix_by_state() -> None:
    """Nothing is sent for a blank cut prefix (<= 1.5.0), a blank text before the cursor
    (CompletionContext.isValid, 6480cedcf), and from 309edd172 a request is always sent."""
    deep = "x\n" + "\n" * 25
    assert body("1.5.0", prefix=deep, suffix="y") is None
    assert body("1.6.0", prefix=deep, suffix="y")["segments"]["prefix"] == "\n" * 19
    assert body("2025-04-20", prefix=" \n", suffix="y") is None
    assert body("2025-04-22", prefix=" \n", suffix="y") == {"language": "solidity", "segments": {"prefix": " \n", "suffix": "y"}}


def test_line_end_suffix_by_state() -> None:
    """contexts.ts buildSegments (eae43ba76): the line's closing rest goes with its \\r; from
    309edd172 (buildCompletionContext) a non-word rest goes and its line break stays."""
    crlf = dict(prefix="f(a", suffix=");\r\nnext\r\nlast")
    assert body("2024-12-29", **crlf)["segments"]["suffix"] == ");\r\nnext\r\nlast"
    assert body("2024-12-31", **crlf)["segments"]["suffix"] == "\nnext\r\nlast"
    assert body("1.9.0-dev", **crlf)["segments"]["suffix"] == "\r\nnext\r\nlast"
    assert body("2024-12-31", prefix="a", suffix="")["segments"]["suffix"] == "\n"
    assert body("1.9.0-dev", prefix="a", suffix="")["segments"]["suffix"] == ""
    # a word character keeps the rest (fill-in-line) at both states
    assert body("2024-12-31", prefix="f(", suffix="a);\nz")["segments"]["suffix"] == "a);\nz"
    assert body("1.9.0-dev", prefix="f(", suffix="a);\nz")["segments"]["suffix"] == "a);\nz"
    # `-` is no closing character before 309edd172, but a non-word character after it
    assert body("2024-12-31", prefix="x", suffix=" - 1\nz")["segments"]["suffix"] == " - 1\nz"
    assert body("1.9.0-dev", prefix="x", suffix=" -\nz")["segments"]["suffix"] == "\nz"


def test_manual_trigger_temperature() -> None:
    assert "temperature" not in body("1.5.0", prefix="a", suffix="", trigger="manual")
    assert body("1.6.0", prefix="a", suffix="", trigger="manual")["temperature"] == 0.8
    assert "temperature" not in body("1.9.0-dev", prefix="a", suffix="")
    assert body("1.9.0-dev", prefix="a", suffix="", trigger="manual", options={"completion.solution.temperature": 0.5})["temperature"] == 0.5


def test_filepath_by_state() -> None:
    ws = dict(prefix="a", suffix="", filepath="file:///ws/src/A.sol", workspace="file:///ws")
    assert "filepath" not in body("1.4.2", **ws)["segments"]
    assert body("1.5.0", **ws)["segments"]["filepath"] == "src/A.sol"
    assert body("1.5.0", prefix="a", suffix="", filepath="src/A.sol", workspace="/home/p")["segments"]["filepath"] == "src/A.sol"
    outside = dict(prefix="a", suffix="", filepath="file:///other/A.sol", workspace="file:///ws")
    assert body("1.5.0", **outside)["segments"]["filepath"] == "../other/A.sol"  # the editor named the workspace
    assert "filepath" not in body("1.7.0", **outside)["segments"]  # no LSP folder holds the document
    assert body("1.9.0-dev", **outside)["segments"]["filepath"] == "file:///other/A.sol"
    assert "filepath" not in body("1.9.0-dev", prefix="a", suffix="")["segments"]


def test_declarations_limits_by_state() -> None:
    long = "a" * 10 + "\n" + "b" * 600
    one_line = "c" * 600
    decls = tuple(Snippet(f"/ws/D{i}.sol", text, "declaration") for i, text in enumerate([long, one_line, "x", "y", "z", "w", "v"]))
    v15 = body("1.5.0", prefix="a", suffix="", workspace="/ws", filepath="/ws/A.sol", snippets=decls)["segments"]["declarations"]
    # clients/vscode: cut at the last line break (none: the snippet is dropped), 5 at most
    assert [d["body"] for d in v15] == ["a" * 10 + "\n", "x", "y", "z", "w"]
    assert v15[0]["filepath"] == "D0.sol"
    v17 = body("1.7.0", prefix="a", suffix="", snippets=decls)["segments"]["declarations"]
    assert [d["body"] for d in v17] == ["a" * 10 + "\n", "c" * 500, "x", "y", "z"]
    assert "declarations" not in body("1.4.2", prefix="a", suffix="", snippets=decls)["segments"]
    off = {"completion.prompt.fillDeclarations.enabled": False}
    assert "declarations" not in body("1.9.0-dev", prefix="a", suffix="", snippets=decls, options=off)["segments"]


def test_snippets_and_clipboard_by_state() -> None:
    snips = (Snippet("/ws/L.sol", "decl", "declaration", lines=(0, 3)), Snippet("/ws/L.sol", "near", "changed", lines=(2, 5)),
             Snippet("/ws/C.sol", "far", "changed"), Snippet("/ws/O.sol", "o" * 600, "opened"),
             Snippet("", "  copied  ", "clipboard"))
    inp = dict(prefix="a", suffix="", filepath="/ws/A.sol", workspace="/ws", snippets=snips)
    assert set(body("1.4.2", **inp)["segments"]) == {"prefix", "suffix", "clipboard"}
    seg = body("1.7.0", **inp)["segments"]
    assert seg["relevant_snippets_from_changed_files"] == [{"filepath": "L.sol", "body": "near", "score": 1},
                                                           {"filepath": "C.sol", "body": "far", "score": 1}]
    assert seg["clipboard"] == "copied" and "relevant_snippets_from_recently_opened_files" not in seg
    seg = body("1.8.0", **inp)["segments"]
    assert "clipboard" not in seg
    assert seg["relevant_snippets_from_recently_opened_files"] == [{"filepath": "/ws/O.sol", "body": "o" * 500, "score": 1}]
    seg = body("1.9.0-dev", **inp)["segments"]
    assert seg["relevant_snippets_from_changed_files"] == [{"filepath": "C.sol", "body": "far", "score": 1}]  # overlaps the declaration
    assert seg["relevant_snippets_from_recently_opened_files"] == [{"filepath": "O.sol", "body": "o" * 500, "score": 1}]
    assert list(seg) == ["prefix", "suffix", "filepath", "declarations", "relevant_snippets_from_changed_files",
                         "relevant_snippets_from_recently_opened_files"]
    assert "relevant_snippets_from_changed_files" not in body("2024-04-16", **inp)["segments"]  # off by default that day


def test_empty_snippet_lists_over_lsp() -> None:
    """lsp/Server.ts and codeCompletion/index.ts (7205b788b..309edd172): a collector that is on and
    found nothing sends an empty list; buildRequest.ts (309edd172) leaves empty lists out."""
    assert set(body("1.6.0", prefix="a", suffix="")["segments"]) == {"prefix", "suffix"}
    assert body("1.7.0", prefix="a", suffix="")["segments"]["relevant_snippets_from_changed_files"] == []
    seg = body("1.8.0", prefix="a", suffix="")["segments"]
    assert seg["relevant_snippets_from_changed_files"] == [] == seg["relevant_snippets_from_recently_opened_files"]
    off = {"completion.prompt.collectSnippetsFromRecentOpenedFiles.enabled": False}
    assert "relevant_snippets_from_recently_opened_files" not in body("1.8.0", prefix="a", suffix="", options=off)["segments"]
    assert set(body("1.9.0-dev", prefix="a", suffix="")["segments"]) == {"prefix", "suffix"}
    # the in-tree states between: main on 2024-12-31 and 2025-02-19 send both lists empty, main
    # from 2025-04-21 (309edd172) neither; a collector switched off sends no key in any state
    for day in ("2024-12-31", "2025-02-19"):
        seg = body(day, prefix="a", suffix="")["segments"]
        assert seg["relevant_snippets_from_changed_files"] == [] == seg["relevant_snippets_from_recently_opened_files"]
    assert set(body("2025-04-21", prefix="a", suffix="")["segments"]) == {"prefix", "suffix"}
    changed_off = {"completion.prompt.collectSnippetsFromRecentChangedFiles.enabled": False}
    for state in ("1.7.0", "1.8.0", "2024-12-31"):
        assert "relevant_snippets_from_changed_files" not in body(state, prefix="a", suffix="", options=changed_off)["segments"]


# --- golden bodies from the agent's own bundles ------------------------------------------------------

_GOLDEN = Path(os.environ.get("FIMREPLAY_TABBY_GOLDEN") or Path(__file__).parents[2] / "data" / "golden" / "tabby")
_CASE_KEYS = {"id", "document", "cursor", "language", "filepath", "workspace", "options", "trigger"}


def _golden_states() -> list[str]:
    if not (_GOLDEN / "cases.json.gz").exists():
        return []
    return sorted(p.name.removesuffix(".json.gz") for p in _GOLDEN.glob("*.json.gz") if p.name != "cases.json.gz")


def _load(path: Path) -> object:
    return json.loads(gzip.decompress(path.read_bytes()))


def as_the_agent_saw_it(case: dict, state: AgentState) -> dict:
    """The case as a render input, as the agent saw it over LSP: the document URI
    file://<workspace>/<filepath>, or file:///ws/<id> without a workspace; the workspace folder
    file://<workspace>, which the LSP server before 7205b788b (LspServer.ts
    buildCompletionRequest) never passed to the agent."""
    obj = {k: v for k, v in case.items() if k in _CASE_KEYS}
    if obj.get("workspace"):
        obj["filepath"] = "file://" + obj["workspace"] + "/" + obj["filepath"]
        obj["workspace"] = "file://" + obj["workspace"]
    else:
        obj["filepath"] = "file:///ws/" + obj["id"]
    if not state.has(r.LSP_CONTEXT):
        obj.pop("workspace", None)
    # the golden runs switch both snippet collectors off in the agent's config file
    off = {"completion.prompt.collectSnippetsFromRecentChangedFiles.enabled": False,
           "completion.prompt.collectSnippetsFromRecentOpenedFiles.enabled": False}
    obj["options"] = {**{k: v for k, v in off.items() if k in agent_defaults(state)}, **obj.get("options", {})}
    return obj


def golden_input(case: dict, state: AgentState) -> EditorInput:
    return parse_object(as_the_agent_saw_it(case, state))


def golden_mismatches(cases: list[dict], golden: dict) -> tuple[int, list[str]]:
    """(cases compared, ids whose first body differs from build_request's)."""
    state = agent_state(golden["agent"].removeprefix("npm-"))  # npm-1.5.0: the published bundle
    results = golden["results"]
    bad = []
    for case in cases:
        if case["id"] not in results:
            continue
        ours = build_request(golden_input(case, state), state=state)
        # the golden files keep JSON objects with sorted keys: compare the JSON texts so
        if json.dumps(ours, sort_keys=True) != json.dumps(results[case["id"]]["request"], sort_keys=True):
            bad.append(case["id"])
    return sum(1 for c in cases if c["id"] in results), bad


@pytest.mark.parametrize("label", _golden_states() or [pytest.param("none", marks=pytest.mark.skip("no golden files"))])
def test_golden_bodies(label: str) -> None:
    cases = _load(_GOLDEN / "cases.json.gz")
    golden = _load(_GOLDEN / f"{label}.json.gz")
    compared, bad = golden_mismatches(cases, golden)  # type: ignore[arg-type]
    assert compared > 0
    assert not bad, bad[:5]
