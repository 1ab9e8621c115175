"""Every /infill body recorded from the real llama.vim in Vim (tests/data/llama_vim_golden, its
README says how) is what the profile builds from the render input derived from the same moment:
the buffer, the cursor, the chunks the plugin held, the trigger and the settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.editors.inputs import parse_object
from replay.editors.llama_vim.body import client_body
from replay.editors.llama_vim.releases import rules_at

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "llama_vim_golden" / "cases.jsonl"
CASES = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


def test_the_recordings_cover_commits_settings_and_triggers() -> None:
    assert {c["version"] for c in CASES} == {"a1c8e6e", "ddb92f0", "3fb05d3"}
    assert {c["trigger"] for c in CASES} == {"auto", "manual"}
    assert any(c["options"] for c in CASES) and any(not c["options"] for c in CASES)
    assert any(c["extra"] for c in CASES) and len(CASES) >= 150


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_body_is_the_one_the_plugin_sent(case: dict) -> None:
    inp = parse_object(case, frozenset({"version", "sent"}))
    assert client_body(inp, rules_at(case["version"])) == json.loads(case["sent"])
