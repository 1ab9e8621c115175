"""The client stage against the real tabby-agent 1.5.0 (npm), driven over LSP on real Solidity.

A stub Tabby server on 127.0.0.1 records the bodies the agent POSTs; build_request must give the
same body, byte for byte, at every cursor. Runs whenever node is installed (it is on CI).
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from replay.editors.tabby.client import build_request
from replay.editors.tabby.releases import agent_state
from replay.records import EditorInput
from tests.support.tabby_agent_lsp import installed_asset, tabby_agent

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def lsp_position(text: str, offset: int) -> tuple[int, int]:
    """(line, UTF-16 character) of a code-point offset, with LSP's line breaks \\r\\n, \\r, \\n."""
    line, start, i = 0, 0, 0
    while i < offset:
        ch = text[i]
        if ch == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
            if i + 1 >= offset:  # between \r and \n: LSP cannot address it, nor do we ask
                break
            i += 2
            line, start = line + 1, i
            continue
        if ch in "\r\n":
            line, start = line + 1, i + 1
        i += 1
    return line, len(text[start:offset].encode("utf-16-le")) // 2


def cursors(text: str, rng: random.Random, n: int) -> list[int]:
    """Cursor offsets: file start and end, line starts, line ends, and random mid-line points."""
    line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    picks = {0, len(text)}
    for _ in range(n):
        start = rng.choice(line_starts)
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        picks.add(rng.choice([start, end, rng.randint(start, end)]))
    # Never between \r and \n: an editor cannot place the cursor there.
    return sorted(p for p in picks if not (0 < p < len(text) and text[p - 1] == "\r" and text[p] == "\n"))


def solidity_cases() -> list[tuple[str, str]]:
    root = installed_asset("openzeppelin-contracts") / "package"
    files = sorted(root.rglob("*.sol"))
    rng = random.Random(7)
    chosen = rng.sample(files, 6)
    cases = [(str(p.relative_to(root)), p.read_text(encoding="utf-8")) for p in chosen]
    name, text = cases[0]
    cases.append((name + " (CRLF)", text.replace("\n", "\r\n")))
    cases.append(("edge.sol", "contract A {\r  uint x;\u2028  // ünïcødé 😀\n\tfunction f() public {}\n   \n"))
    return cases


def run_agent(tmp_path: Path, config_toml: str) -> list[tuple[str, int, dict | None, dict | None]]:
    rng = random.Random(11)
    out = []
    with tabby_agent(tmp_path, config_toml) as agent:
        for n, (name, text) in enumerate(solidity_cases()):
            for offset in cursors(text, rng, 7):
                line, character = lsp_position(text, offset)
                sent = agent.complete(f"file:///ws/case{n}.sol", "solidity", text, line, character)
                ours = build_request(EditorInput(prefix=text[:offset], suffix=text[offset:], language="solidity",
                                                 options=_options(config_toml)), state=agent_state("1.5.0"))
                out.append((name, offset, sent, ours))
    return out


def _options(config_toml: str) -> dict:
    return {"completion.prompt.experimentalStripAutoClosingCharacters": True} if config_toml else {}


@pytest.mark.parametrize("config_toml", ["", "[completion.prompt]\nexperimentalStripAutoClosingCharacters = true\n"],
                         ids=["default", "strip-auto-closing"])
def test_client_stage_matches_real_tabby_agent(tmp_path: Path, config_toml: str) -> None:
    results = run_agent(tmp_path, config_toml)
    assert len(results) > 40
    assert any(sent is None for _, _, sent, _ in results)  # a blank prefix: the agent sends nothing
    assert any(sent and "\r\n" in sent["segments"]["prefix"] for _, _, sent, _ in results)
    mismatches = [(name, offset, sent, ours) for name, offset, sent, ours in results if sent != ours]
    assert not mismatches, mismatches[:3]
