"""The completion stage against the real tabby-agent 1.5.0 (npm), driven over LSP.

A stub Tabby server on 127.0.0.1 answers the agent's POST /v1/completions with a chosen raw text;
the agent post-processes it and answers `textDocument/completion` with one item (or none). The
item's text after the word already typed, and how far its range reaches past the cursor, must be
what replay.editors.tabby.completion.complete gives. Documents: OpenZeppelin's ERC20.sol (the
@openzeppelin/contracts asset), the agent's own dist/index.d.ts, small TypeScript and Solidity
files of our own, LF and CRLF; every raw text is chosen to make one filter act (checked in the
trace). formatIndentation cannot act here: the LSP server sends no indentation. The agent's
golden documents (tests/editors/tabby/test_completion_golden.py) run through it too. Runs whenever node is
installed (it is on CI; the assets come from `fimreplay assets install`).
"""

from __future__ import annotations

import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from replay.editors.tabby.completion import complete
from replay.records import EditorInput
from tests.support.tabby_agent_lsp import TabbyAgentSession, installed_asset, tabby_agent
from tests.editors.tabby.test_client_agent import lsp_position
from tests.editors.tabby.test_completion_golden import GOLDEN_CASES, parse_doc

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

KEEP_BLOCK = "postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine"
KEEP_BLOCK_TOML = "[postprocess.limitScope.indentation]\nexperimentalKeepBlockScopeWhenCompletingLine = true\n"

# LspServer.ts toCompletionList: the word before the cursor, /(\w+)$/ with JS's ASCII \w.
_WORD = re.compile(r"[A-Za-z0-9_]+\Z")


@dataclass(frozen=True)
class Case:
    """One cursor in one document and the raw text the stub server answers with; `step` is the
    filter the raw text is meant to make act (None: only the comparison matters)."""

    name: str
    language: str
    document: str
    cursor: int
    raw: str
    step: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


def edit(doc: str, anchor: str, *, typed: str = "", rest: str | None = None) -> tuple[str, int]:
    """The document as the user has it: the cursor right after the first `anchor`, `typed` just
    typed there, and the rest of the cursor line replaced by `rest` when given."""
    at = doc.index(anchor) + len(anchor)
    line_end = doc.find("\n", at)
    line_end = len(doc) if line_end < 0 else line_end
    after = doc[at:] if rest is None else rest + doc[line_end:]
    prefix = doc[:at] + typed
    return prefix + after, len(prefix)


def crlf(document: str, cursor: int) -> tuple[str, int]:
    prefix = document[:cursor].replace("\n", "\r\n")
    return prefix + document[cursor:].replace("\n", "\r\n"), len(prefix)


def erc20() -> str:
    return (installed_asset("openzeppelin-contracts") / "package" / "token" / "ERC20" / "ERC20.sol").read_text(encoding="utf-8")


def agent_dts() -> str:
    return (installed_asset("tabby-agent") / "package" / "dist" / "index.d.ts").read_text(encoding="utf-8")


TS = '''import { readFile } from "fs/promises";

export async function loadConfig(path: string): Promise<Record<string, unknown>> {
  const text = await readFile(path, "utf8");
  return JSON.parse(text);
}

export function clamp(value: number, min: number, max: number): number {
  return Math.max(Math.min(value, max), min);
}

export class Counter {
  private count = 0;

  increment(): number {
    this.count += 1;
    return this.count;
  }
}

process.stdin.on("data", (data) => {});
'''

SOL = '''// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Vault {
    mapping(address => uint256) private _balances;
    address public owner;

    constructor() {
        owner = msg.sender;
    }

    function deposit() external payable {
        _balances[msg.sender] += msg.value;
    }
}
'''


def solidity_cases() -> list[Case]:
    s = erc20()
    out: list[Case] = []

    def add(name: str, at: tuple[str, int], raw: str, step: str | None, language: str = "solidity") -> None:
        out.append(Case(name, language, at[0], at[1], raw, step))
        document, cursor = crlf(*at)
        out.append(Case(name + " (CRLF)", language, document, cursor, raw.replace("\n", "\r\n"), step))

    add("limit scope: continuing the cursor line",
        edit(s, "    function transfer(address to, uint256 value) public virtual returns (bool) {\n        address owner = ", rest=""),
        "_msgSender();\n        _transfer(owner, to, value);\n        return true;\n    }", "limitScopeByIndentation")
    add("duplicated block closing line, cursor at line start",
        edit(s, "        _transfer(owner, to, value);\n", rest=""),
        "        return true;\n    }", "removeDuplicatedBlockClosingLine")
    add("drop duplicated next line",
        edit(s, "        _transfer(owner, to, value);"),
        "\n        return true;", "dropDuplicated")
    add("single-line mode keeps the part before the rest of the line",
        edit(s, "        _transfer(owner, "),
        "spender, to, value);\n        return true;", "trimMultiLineInSingleLineMode")
    add("single-line mode drops other multi-line text",
        edit(s, "        _transfer(owner, "),
        "recipient);\n        return true;", "trimMultiLineInSingleLineMode")
    add("replace range: one closing parenthesis",
        edit(s, "        _transfer(", rest=")"),
        "owner, to, value);", "calculateReplaceRange")
    add("replace range: two closing parentheses",
        edit(s, "            revert ERC20InvalidSender(address(", rest="))"),
        "0));", "calculateReplaceRange")
    add("line ending in repetition is removed",
        edit(s, "            uint256 fromBalance = ", rest=""),
        "_balances[from];\n            uint256 limit = 100000000000000000000000000000000000000000", "removeLineEndsWithRepetition")
    add("repeated lines",
        edit(s, "            _totalSupply += value;"),
        "".join(f"\n            emit Log({n});" for n in range(1, 9)) + "\n            emit Lo", "removeRepetitiveLines")
    add("repeated blocks",
        edit(s, "        _transfer(owner, to, value);\n        return true;\n    }"),
        "\n" + "".join(f"\n    function a{n}() public {{}}\n" for n in range(1, 7)) + "\n    function a", "removeRepetitiveBlocks")
    add("leading and trailing space",
        edit(s, "        address spender = ", rest=""),
        "  _msgSender();  ", "trimSpace")
    add("blank text in the middle of a line",
        edit(s, "        _spendAllowance("),
        "   ", "dropBlank")
    add("new block: no closing line while the suffix stays deeper",
        edit(s, "    /// @inheritdoc IERC20\n    function allowance", typed="(address a) public pure returns (uint256) {", rest=""),
        "\n        return 0;\n    }\n\n    function other() public {}\n}", "limitScopeByIndentation")
    add("new statement on a new indented line, block closes",
        edit(SOL, "        _balances[msg.sender] += msg.value;", typed="\n        ", rest=""),
        "emit Deposit(msg.sender, msg.value);\n    }\n\n    function withdraw() external {}\n}", "limitScopeByIndentation")
    add("next function after a closing brace, contract closes",
        edit(SOL, "        _balances[msg.sender] += msg.value;\n    }"),
        "\n    function withdraw(uint256 amount) external {\n        _balances[msg.sender] -= amount;\n    }\n}",
        "removeDuplicatedBlockClosingLine")
    add("mid-word at end of line",
        edit(SOL, "    function deposit() external payable {\n        _bal", rest=""),
        "ances[msg.sender] += msg.value;\n    }\n}", "limitScopeByIndentation")
    add("blank prefix: no request", ("\n\n    ", 6), "contract A {}", None)
    return out


def typescript_cases() -> list[Case]:
    d = agent_dts()
    cases = [
        ("replace range: `})` after the cursor", edit(TS, '(data) => {', rest="})"),
         "\n  console.log(data.toString());\n});", "calculateReplaceRange"),
        ("dropped: duplicates the rest of the line", edit(TS, "Math.max(Math.min("), "value, max), min);", "dropDuplicated"),
        ("mid-word, rest of line deleted", edit(TS, "  const te", rest=""),
         'xt = await readFile(path, "utf8");\n  return JSON.parse(text);\n}', "limitScopeByIndentation"),
        ("method body at line start", edit(TS, "  increment(): number {\n", rest=""),
         "    this.count += 1;\n    return this.count;\n  }\n\n  reset(): void {\n    this.count = 0;\n  }", "limitScopeByIndentation"),
        ("astral characters before the cursor", edit(TS, "  return JSON.parse(", rest=")"),
         'text + "😀");', "calculateReplaceRange"),
        ("quote and parenthesis after the cursor", edit(TS, 'await readFile(path, "', rest='")'),
         'utf8");', "calculateReplaceRange"),
        ("declaration file: end of a member line", edit(d, "provideCompletions(request: CompletionRequest, options?: AbortSignalOption): Promise<CompletionResponse>;"),
         "\n    provideCompletions(request: CompletionRequest): Promise<CompletionResponse>;\n}", None),
        ("declaration file: repeated interface members", edit(d, "interface DataStore {"),
         "".join(f"\n    field{n}: string;" for n in range(9)) + "\n    fi", "removeRepetitiveLines"),
    ]
    out = []
    for name, (document, cursor), raw, step in cases:
        out.append(Case(name, "typescript", document, cursor, raw, step))
        document, cursor = crlf(document, cursor)
        out.append(Case(name + " (CRLF)", "typescript", document, cursor, raw, step))
    return out


def golden_cases(with_options: bool) -> list[Case]:
    """The agent's golden documents whose config the replay models, as LSP requests."""
    out = []
    for case in GOLDEN_CASES:
        if any(key.endswith("experimentalSyntax") and value for key, value in case.options.items()):
            continue
        if bool(case.options.get(KEEP_BLOCK)) != with_options:
            continue
        prefix, completion, suffix, _ = parse_doc(case.text)
        out.append(Case(case.path, case.language, prefix + suffix, len(prefix), completion, None, dict(case.options)))
    return out


def random_cases(seed: int, n: int = 120) -> list[Case]:
    """Cursors at line ends and mid-line in OpenZeppelin files (LF or CRLF), with raw texts made
    from the code that follows: cut in, repeated, padded with spaces; that code is removed from
    the document half of the time (the model writes what is not there yet)."""
    root = installed_asset("openzeppelin-contracts") / "package"
    rng = random.Random(seed)
    out: list[Case] = []
    for path in rng.sample(sorted(root.rglob("*.sol")), 6):
        text = path.read_text(encoding="utf-8")
        if rng.random() < 0.3:
            text = text.replace("\n", "\r\n")
        line_ends = [i for i, ch in enumerate(text) if ch == "\r" or (ch == "\n" and text[i - 1:i] != "\r")]
        for cursor in rng.sample(line_ends, min(n // 12, len(line_ends))) + [rng.randrange(len(text)) for _ in range(n // 12)]:
            if 0 < cursor < len(text) and text[cursor - 1] == "\r" and text[cursor] == "\n":
                continue  # an editor cannot put the cursor inside a line break
            follow = text[cursor:cursor + rng.randint(1, 400)]
            kind = rng.random()
            if kind < 0.2:
                raw = "".join(follow.splitlines(keepends=True)[:2]) * rng.randint(3, 8)
            elif kind < 0.35:
                raw = follow[rng.randint(0, len(follow)):] + follow
            elif kind < 0.5:
                raw = " " + follow + "  \n"
            else:
                raw = follow[rng.randint(0, 30):]
            document = text[:cursor] + text[cursor + (len(follow) if rng.random() < 0.5 else 0):]
            out.append(Case(f"{path.name}@{cursor}", "solidity", document, cursor, raw))
    return out


def agent_shown(agent: TabbyAgentSession, n: int, case: Case) -> tuple[dict | None, str | None, int]:
    """(request body, item text without the typed word, characters replaced after the cursor)."""
    line, character = lsp_position(case.document, case.cursor)
    sent, items = agent.completion(f"file:///ws/case{n}", case.language, case.document, line, character, reply=case.raw)
    if not items:
        return sent, None, 0
    assert len(items) == 1
    edit_ = items[0]["textEdit"]
    line_start = max(case.document.rfind("\n", 0, case.cursor), case.document.rfind("\r", 0, case.cursor)) + 1
    word = _WORD.search(case.document[line_start:case.cursor])
    typed = word.group(0) if word else ""
    assert edit_["newText"].startswith(typed)
    assert edit_["range"]["start"] == {"line": line, "character": character - len(typed)}
    end = edit_["range"]["end"]
    replaced = 0
    while lsp_position(case.document, case.cursor + replaced) != (end["line"], end["character"]):
        replaced += 1
        assert case.cursor + replaced <= len(case.document)
    return sent, edit_["newText"][len(typed):], replaced


def run(tmp_path: Path, cases: list[Case], config_toml: str = "") -> list[tuple[Case, tuple, tuple, tuple[str, ...]]]:
    results = []
    with tabby_agent(tmp_path, config_toml) as agent:
        for n, case in enumerate(cases):
            sent, text, replaced = agent_shown(agent, n, case)
            inp = EditorInput(prefix=case.document[:case.cursor], suffix=case.document[case.cursor:],
                              language=case.language, options=case.options)
            shown = complete(inp, case.raw, version="1.5.0")  # the npm release this test drives
            results.append((case, (sent is not None, text, replaced), (sent is not None, shown.text, shown.replace_after),
                            tuple(step.step for step in shown.trace)))
    return results


def test_completion_stage_matches_real_tabby_agent(tmp_path: Path) -> None:
    cases = solidity_cases() + typescript_cases() + golden_cases(with_options=False)
    results = run(tmp_path, cases)
    mismatches = [(case.name, agent, ours) for case, agent, ours, _ in results if agent != ours]
    assert not mismatches, mismatches[:3]
    missing = [(case.name, steps) for case, _, _, steps in results if case.step and case.step not in steps]
    assert not missing, missing[:3]
    acted = {step for *_, steps in results for step in steps}
    assert acted >= {"trimMultiLineInSingleLineMode", "removeLineEndsWithRepetition", "dropDuplicated", "trimSpace",
                     "dropBlank", "removeRepetitiveBlocks", "removeRepetitiveLines", "limitScopeByIndentation",
                     "removeDuplicatedBlockClosingLine", "calculateReplaceRange"}
    assert any(agent[1] is None for _, agent, _, _ in results) and any(agent[2] for _, agent, _, _ in results)
    assert len(results) >= 60


def test_random_cursors_match_real_tabby_agent(tmp_path: Path) -> None:
    """Breadth: seeded cursors and raw texts over real Solidity files."""
    results = run(tmp_path, random_cases(seed=5))
    mismatches = [(case.name, agent, ours) for case, agent, ours, _ in results if agent != ours]
    assert not mismatches, mismatches[:3]
    assert len(results) >= 100 and sum(agent[1] is not None for _, agent, _, _ in results) >= 20


def test_keep_block_scope_option_matches_real_tabby_agent(tmp_path: Path) -> None:
    """postprocess.limitScope.indentation.experimentalKeepBlockScopeWhenCompletingLine from the
    agent's config.toml (configFile.ts keeps keys outside its type-check list)."""
    cases = golden_cases(with_options=True)
    for case in solidity_cases()[:2] + typescript_cases()[6:8]:
        cases.append(Case(case.name + " (keep block)", case.language, case.document, case.cursor, case.raw))
    cases = [Case(c.name, c.language, c.document, c.cursor, c.raw, None, {KEEP_BLOCK: True}) for c in cases]
    results = run(tmp_path, cases, KEEP_BLOCK_TOML)
    mismatches = [(case.name, agent, ours) for case, agent, ours, _ in results if agent != ours]
    assert not mismatches, mismatches[:3]
    assert len(results) >= 4
