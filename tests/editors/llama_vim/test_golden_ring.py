"""The ring buffer replayed from a session recorded in the real llama.vim
(tests/data/golden/llama.vim/ring.jsonl): the events Vim fired (buffers entered, left, saved;
lines yanked) up to each request give the chunks the plugin sent in that request's input_extra,
in its order. The files are small, so every chunk is whole and no random window is drawn."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.editors.inputs import parse_object
from replay.editors.llama_vim.body import client_body
from replay.editors.llama_vim.releases import rules_at

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "golden" / "llama.vim" / "ring.jsonl"
CASES = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_the_simulated_ring_is_the_one_the_plugin_held(case: dict) -> None:
    inp = parse_object(case, frozenset({"version", "held"}))
    sent = client_body(inp, rules_at(case["version"]))["input_extra"]
    assert [(c["text"], c["filename"]) for c in sent] == [(c["text"], c["filename"]) for c in case["held"]]
    # the plugin reads its clock a moment after the event (100 ms and more after entering a buffer)
    assert all(0 <= (h["time"][0] + h["time"][1] / 1e6) - (s["time"][0] + s["time"][1] / 1e6) < 0.5
               for s, h in zip(sent, case["held"]))


def test_the_sessions_evict_and_cover_three_commits() -> None:
    assert {c["version"] for c in CASES} == {"a1c8e6e", "ddb92f0", "3fb05d3"}
    assert max(len(c["held"]) for c in CASES) >= 5
