"""What the real llama.vim did with an answer in Vim (tests/data/golden/llama.vim/shown.jsonl):
the stub server answered `content`, the suggestion was accepted whole with <Tab>, and `after` is
the buffer that resulted. The profile's stage gives the same buffer, and shows nothing exactly
where the plugin inserted nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.editors.llama_vim.fim_render import accepted, shown
from replay.editors.llama_vim.releases import rules_at
from replay.editors.llama_vim.request import Buffer

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "golden" / "llama.vim" / "shown.jsonl"
CASES = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_accepting_gives_the_buffer_vim_had(case: dict) -> None:
    doc, cursor, rules = case["document"], case["cursor"], rules_at(case["version"])
    buf = Buffer.of(doc[:cursor], doc[cursor:])
    assert "\n".join(accepted(buf, case["content"], rules, 256, 64)) + "\n" == case["after"]
    nothing = case["after"] in (doc, doc[:cursor] + "\t" + doc[cursor:])  # no mapping left: <Tab> typed a tab
    assert (shown(buf, case["content"], rules, 256, 64).text is None) == nothing


def test_the_recordings_cover_each_discard_rule() -> None:
    assert {c["version"] for c in CASES} == {"a1c8e6e", "3fb05d3"}
    assert sum(c["after"] == c["document"] for c in CASES) >= 6
