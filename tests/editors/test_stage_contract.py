"""The completion-stage contract every editor profile keeps (replay.editors.stage):

- `complete` returns a Shown whose trace names, for each rule that changed the text, the rule
  and the repository file it is in, and whose last traced text is the shown text;
- where `stream_stop` cancels the stream after n characters, what the editor shows of those n
  characters is what it shows of the whole text (so the replay may stop the engine there);
- the runner's completion stage puts the stop-word cut first in the trace and keeps raw and shown.
"""

from __future__ import annotations

import pytest

from replay.editors import PROFILES, profile
from replay.records import Completion, EditorInput
from replay.run.inputs import RenderedFrom
from replay.run.runner import shown

MODEL = "qwen2.5-coder-0.5b"
SOL_PREFIX = ("// SPDX-License-Identifier: MIT\npragma solidity ^0.8.20;\n\ncontract Token {\n"
              "    mapping(address => uint256) public balanceOf;\n\n"
              "    function transfer(address to, uint256 value) public returns (bool) {\n        ")
SOL_SUFFIX = "\n    }\n\n    function approve(address s, uint256 v) public returns (bool) {\n        return true;\n    }\n}\n"
CURSORS = [
    EditorInput(prefix=SOL_PREFIX, suffix=SOL_SUFFIX, language="solidity", filepath="/w/Token.sol", workspace="/w"),
    EditorInput(prefix=SOL_PREFIX + "balanceOf[msg.sender] -= ", suffix=";" + SOL_SUFFIX, language="solidity",
                filepath="/w/Token.sol", workspace="/w"),
    EditorInput(prefix="function add(a: number, b: number): number {\n  return ", suffix=")\n}\n",
                language="typescript", filepath="/w/a.ts", workspace="/w"),
    EditorInput(prefix="def mean(xs):\n    ", suffix="\n", language="python", filepath="/w/m.py", workspace="/w"),
]
RAWS = [
    "balanceOf[msg.sender] -= value;\n        balanceOf[to] += value;\n        emit Transfer(msg.sender, to, value);\n        return true;\n    }\n\n    function x() {}",
    "value",
    "a + b\n}\n\nfunction sub(a: number, b: number): number {\n  return a - b\n}",
    "\n\n    total = sum(xs)\n    return total / len(xs)\n",
    "return true;\n    }\n}\n",
    "",
    "   ",
    "balanceOf[to] += value;\nbalanceOf[to] += value;\nbalanceOf[to] += value;\nbalanceOf[to] += value;\n",
]


@pytest.mark.parametrize("editor", list(PROFILES))
def test_trace_names_each_rule_and_its_source(editor: str) -> None:
    prof, _ = profile(editor)
    for inp in CURSORS:
        for raw in RAWS:
            shown = prof.complete(inp, raw, MODEL)
            assert shown.text is None or isinstance(shown.text, str)
            assert shown.replace_after >= 0 and isinstance(shown.multiline, bool)
            for step in shown.trace:
                assert step.step and "/" in step.source, step
            # No rule traced means nothing changed: every change is some rule's, and says so.
            assert (shown.trace[-1].text if shown.trace else raw) == shown.text, (editor, raw, shown)


@pytest.mark.parametrize("editor", list(PROFILES))
def test_stopping_where_the_editor_cancels_shows_the_same_text(editor: str) -> None:
    prof, _ = profile(editor)
    for inp in CURSORS:
        stop = prof.stream_stop(inp, MODEL)
        if stop is None:
            continue
        for raw in RAWS:
            cut = next((n for k in range(len(raw) + 1) if (n := stop(raw[:k])) is not None), None)
            if cut is None:
                continue
            assert cut <= len(raw)
            assert prof.complete(inp, raw[:cut], MODEL) == prof.complete(inp, raw, MODEL), (inp.prefix[-30:], raw)


def test_the_runner_stage_keeps_raw_and_traces_the_stop_word_cut() -> None:
    source = RenderedFrom.of("standard", CURSORS[0])
    raw = "balanceOf[to] += value;<|fim_pad|>junk"
    done = shown(Completion(item_id="i1", text="balanceOf[to] += value;", raw_text=raw, backend="b", model="m"), source, MODEL)
    assert done.stage == "standard" and done.shown_text == "balanceOf[to] += value;" and done.raw_text == raw
    assert [s.step for s in done.trace] == ["stopWords"] and done.trace[0].text == done.shown_text
    failed = Completion(item_id="i1", text="", raw_text="", backend="b", model="m", error="boom")
    assert shown(failed, source, MODEL) is failed  # an error shows nothing and is retried, not staged
    other = Completion(item_id="elsewhere", text="x", raw_text="x", backend="b", model="m")
    assert shown(other, None, MODEL) is other  # a prompt rendered elsewhere has no editor input here
