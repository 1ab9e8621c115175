"""render_body against what the real llama.cpp server answered (tests/data/golden/llama-server,
recorded from xllamacpp with the demo GGUF; README there): for every case the server's own
`prompt` text and `tokens_evaluated`, or, for a body it refused, its error type and message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from replay.assets import DEMO_MODEL, asset_path
from replay.editors.llama_server import InfillRefused, render_body

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "golden" / "llama-server"


def _lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (GOLDEN / name).read_text(encoding="utf-8").splitlines() if line.strip()]


CASES = _lines("cases.jsonl")
ANSWERS = {a["id"]: a for a in _lines("answers.jsonl")}


def test_the_golden_data_covers_what_the_server_must_do() -> None:
    refused = [a for a in ANSWERS.values() if a["status"] != 200]
    assert len(CASES) == len(ANSWERS) >= 90
    assert len({json.dumps(c["options"], sort_keys=True) for c in CASES}) >= 6
    assert any(a["error"]["type"] == "exceed_context_size_error" for a in refused)
    assert {len(c["request"].get("input_extra") or []) for c in CASES} >= {0, 1, 4, 16}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_render_body_gives_the_servers_prompt_or_its_refusal(case: dict[str, Any]) -> None:
    gguf = str(asset_path(DEMO_MODEL.name))
    want = ANSWERS[case["id"]]
    if want["status"] == 200:
        got = render_body(case["request"], gguf, case["options"])
        assert got.text == want["prompt"]
        assert len(got.token_ids) == want["tokens_evaluated"]
    else:
        with pytest.raises(InfillRefused) as refused:
            render_body(case["request"], gguf, case["options"])
        assert (refused.value.kind, refused.value.reason) == (want["error"]["type"], want["error"]["message"])
        assert refused.value.status == want["status"]
