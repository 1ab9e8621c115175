"""Both halves of tabby-agent, release by release, against what the agent's own code did.

The golden data (tests/data/golden/tabby/, how it was made: its README.md) holds one set of
cases (`cases.json.gz`: render inputs plus the `raw` text a stub Tabby server answered with) and,
per agent state (a release, or main on a day), what that state's TypeScript, bundled from its
commit and driven over LSP, did with each case: the first request body it POSTed and the item it
showed (text after the part already typed, characters replaced after the cursor).

Each state's cases go through the CLI as a user would run them: `fimreplay render --editor tabby
--editor-version V` (the `request` of each line) and `fimreplay postprocess --editor tabby
--editor-version V --received` (`shown_text`, `replace_after`): V is the release number, or for an
in-tree state its date. The render inputs are the cases as the agent saw them over LSP (document
URIs, the workspace folder only where the LSP server passed it: as_the_agent_saw_it).
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from replay.editors.tabby.version import tabby_version
from tests.editors.tabby.test_request_releases import as_the_agent_saw_it

GOLDEN = Path(__file__).parents[2] / "data" / "golden" / "tabby"


@functools.cache
def cases() -> list[dict[str, Any]]:
    with gzip.open(GOLDEN / "cases.json.gz", "rt", encoding="utf-8") as fh:
        return json.load(fh)


def states() -> list[str]:
    return sorted(p.name.removesuffix(".json.gz") for p in GOLDEN.glob("*.json.gz") if p.name != "cases.json.gz")


@functools.cache
def golden(label: str) -> dict[str, Any]:
    with gzip.open(GOLDEN / f"{label}.json.gz", "rt", encoding="utf-8") as fh:
        return json.load(fh)


def _run(cli: Any, tmp_path: Path, command: str, label: str, rows: list[dict[str, Any]], *extra: str) -> list[dict[str, Any]]:
    source = tmp_path / f"{command}-{label}.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / f"{command}-{label}.out.jsonl"
    proc = cli(command, str(source), "--editor", "tabby", "--editor-version", label, "-o", str(out), *extra)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


# what a render / postprocess input line holds; a case also says how it was made (doc, cursor_kind, raw_kind)
_INPUT = ("id", "document", "cursor", "language", "filepath", "workspace", "snippets", "options", "trigger", "raw")


def _taken(label: str) -> list[dict[str, Any]]:
    results = golden(label)["results"]
    return [{k: case[k] for k in _INPUT if k in case} for case in cases() if case["id"] in results]


def _no_credential(rows: list[dict[str, Any]]) -> bool:
    """No output line holds a credential of the cases' config files (c1150..: server.token, an
    Authorization header), though every state read them."""
    secrets = {value for case in cases() for key, value in case["options"].items()
               if key in ("server.token", "server.requestHeaders.Authorization")}
    text = json.dumps(rows)
    return bool(secrets) and not [s for s in secrets if s in text or s.removeprefix("Bearer ") in text]


@pytest.mark.parametrize("label", states())
def test_shown_text_and_replace_range_as_the_agent_showed(cli: Any, tmp_path: Path, label: str) -> None:
    taken = _taken(label)
    results = golden(label)["results"]
    rows = _run(cli, tmp_path, "postprocess", label, taken, "--received")
    wrong = [(row["id"], results[row["id"]]["shown_text"], row["shown_text"], results[row["id"]]["replace_after"],
              row["replace_after"]) for row in rows
             if (row["shown_text"], row["replace_after"]) != (results[row["id"]]["shown_text"], results[row["id"]]["replace_after"])]
    assert len(rows) == len(taken) and not wrong, f"{len(wrong)} of {len(rows)} differ, first: {wrong[:3]}"
    assert _no_credential(rows)


@pytest.mark.parametrize("label", states())
def test_request_body_as_the_agent_sent_it(cli: Any, tmp_path: Path, label: str) -> None:
    taken = _taken(label)
    results = golden(label)["results"]
    state = tabby_version(label).agent
    inputs = [as_the_agent_saw_it(case, state) for case in taken]
    rows = _run(cli, tmp_path, "render", label, inputs, "--model", "qwen2.5-coder")
    wrong = [(row["id"], results[row["id"]]["request"], row.get("request")) for row in rows
             if row.get("request") != results[row["id"]]["request"]]
    assert len(rows) == len(taken) and not wrong, f"{len(wrong)} of {len(rows)} differ, first: {wrong[:2]}"
    assert _no_credential(rows)


def test_every_state_has_its_commit_and_the_shared_cases() -> None:
    assert states(), "no golden states"
    ids = {case["id"] for case in cases()}
    for label in states():
        data = golden(label)
        assert len(data["commit"]) == 40 and set(data["results"]) <= ids


def test_every_case_is_taken_but_a_manual_trigger_where_the_lsp_has_none() -> None:
    """A config with keys of other releases runs in every state (the agent leaves them unread), so
    the only cases a state skips are manual triggers up to 1.6.0 (LspServer.ts serves
    textDocument/completion with `manually = false`)."""
    ids = {case["id"] for case in cases()}
    manual = {case["id"] for case in cases() if case["trigger"] == "manual"}
    foreign = [case["id"] for case in cases() if case["options"]]
    assert foreign
    for label in states():
        data = golden(label)
        assert set(data["results"]) | set(data["skipped"]) == ids, label
        lsp_manual = tabby_version(label).agent.at > tabby_version("1.6.0").agent.at
        assert set(data["skipped"]) == (set() if lsp_manual else manual), label
