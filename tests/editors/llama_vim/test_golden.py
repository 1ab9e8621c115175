"""Every /infill body recorded from the real llama.vim in Vim (tests/data/golden/llama.vim, its
README says how) is what the profile builds from the render input derived from the same moment:
the buffer, the cursor, the chunks the plugin held, the trigger and the settings; and every
speculative follow-up it sent once an answer was shown, from the same input and that answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.editors.inputs import parse_object
from replay.editors.llama_vim.body import client_body
from replay.editors.llama_vim.releases import rules_at

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "golden" / "llama.vim"
CASES = [json.loads(line) for line in (GOLDEN / "cases.jsonl").read_text(encoding="utf-8").splitlines()]
# the speculative follow-ups: the same render input with the answer shown (`replay.follow_up_of`)
FOLLOW_UPS = [json.loads(line) for line in (GOLDEN / "follow_up.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_recordings_cover_commits_settings_and_triggers() -> None:
    assert {c["version"] for c in CASES} == {"a1c8e6e", "ddb92f0", "3fb05d3", "a4b3ef2"}
    assert {c["trigger"] for c in CASES} == {"auto", "manual"}
    assert any(c["options"] for c in CASES) and any(not c["options"] for c in CASES)
    assert any(c["extra"] for c in CASES) and len(CASES) >= 280


@pytest.mark.parametrize("case", CASES + FOLLOW_UPS, ids=[c["id"] for c in CASES + FOLLOW_UPS])
def test_body_is_the_one_the_plugin_sent(case: dict) -> None:
    inp = parse_object(case, frozenset({"version", "sent"}))
    assert client_body(inp, rules_at(case["version"])) == json.loads(case["sent"])


def test_follow_ups_cover_both_speculative_commits_and_multi_line_answers() -> None:
    assert {c["version"] for c in FOLLOW_UPS} == {"a1c8e6e", "ddb92f0"} and len(FOLLOW_UPS) >= 60
    assert any("\n" in c["options"]["replay.follow_up_of"].rstrip("\n") for c in FOLLOW_UPS)
