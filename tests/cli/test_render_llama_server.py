"""End to end: `fimreplay render --editor llama.vscode|llama.vim --keep-going` on lines that
carry a client's /infill body (`request`) and llama-server's settings (`server.*` options)
gives the real server's own prompt and as many token ids as it evaluated, and rejects exactly
the bodies it refused (tests/data/golden/llama-server: cases and what llama.cpp answered)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.assets import DEMO_MODEL, asset_path
from replay.editors import EDITORS
from tests.editors.llama_server.test_golden import ANSWERS, CASES, GOLDEN


@pytest.mark.parametrize("editor", ["llama.vscode", "llama.vim"])
def test_render_a_client_body_gives_the_servers_prompt(cli, tmp_path: Path, editor: str) -> None:
    if editor not in EDITORS:
        pytest.skip(f"the {editor} profile is not registered in this tree")
    out = tmp_path / "out.jsonl"
    done = cli("render", str(GOLDEN / "cases.jsonl"), "--editor", editor, "--model", str(asset_path(DEMO_MODEL.name)),
               "--keep-going", "-o", str(out))
    assert done.returncode == 0, done.stderr
    rows = {row["id"]: row for row in map(json.loads, out.read_text(encoding="utf-8").splitlines())}
    rejected = [json.loads(line) for line in Path(str(out) + ".rejects.jsonl").read_text(encoding="utf-8").splitlines()]
    accepted = {k for k, a in ANSWERS.items() if a["status"] == 200}
    assert set(rows) == accepted
    for key in accepted:
        assert rows[key]["prompt"] == ANSWERS[key]["prompt"]
        assert len(rows[key]["token_ids"]) == ANSWERS[key]["tokens_evaluated"]
    by_line = {int(r["where"].rsplit(":", 1)[1]): r["reason"] for r in rejected}
    assert {CASES[line - 1]["id"] for line in by_line} == set(ANSWERS) - accepted
    for line, reason in by_line.items():
        assert ANSWERS[CASES[line - 1]["id"]]["error"]["message"] in reason
