"""evalgen --code-only: every middle holds code, comments told apart by the grammar's own nodes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replay.corpus import newcode
from replay.corpus.comments import comment_mask
from replay.corpus.evalgen import EvalgenOptions, items_for_text, split_lines

# Comments of every form Solidity has, a `//` inside a string (code), a trailing comment on a
# code line (the line is code), and non-ASCII text before comments (byte -> character offsets).
SOL = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/**
 * @notice Pays — once — the owed amount («ünïcode»).
 */
contract Pay {
    string public url = "https://example.org//path"; // where it is
    /// @dev the owed amounts
    mapping(address => uint256) public owed;
    /* one block
       over two lines */
    function pay(address to) external {
        uint256 amount = owed[to]; // read
        // clear before the call
        owed[to] = 0;
        payable(to).transfer(amount);
    }
}
"""


def _is_comment_line(line: str) -> bool:
    s = line.strip()
    return s.startswith(("//", "/*", "*")) or s.endswith("*/")


def test_the_comment_mask_is_the_grammars_comment_nodes() -> None:
    mask = comment_mask(SOL, "solidity")
    assert mask is not None and len(mask) == len(SOL)
    commented = "".join(c if m else "\0" for c, m in zip(SOL, mask))
    pieces = [p for p in commented.split("\0") if p]
    assert pieces == ["// SPDX-License-Identifier: MIT", "/**\n * @notice Pays — once — the owed amount («ünïcode»).\n */",
                      "// where it is", "/// @dev the owed amounts", "/* one block\n       over two lines */",
                      "// read", "// clear before the call"]
    assert not mask[SOL.index('"https://example.org//path"') + 20]  # a `//` in a string is code
    assert comment_mask("x = 1  # note\n", "python").tolist() == [False] * 7 + [True] * 6 + [False]
    assert comment_mask("anything", "cobol") is None


@pytest.mark.parametrize("lines", [1, 2])
def test_line_mode_middles_hold_code_and_every_code_line_is_a_spot(lines: int) -> None:
    opts = EvalgenOptions(per_file=1000, mode="line", lines=lines, chunk_tokens=4096)
    every = items_for_text(SOL, "Pay.sol", opts)
    code = items_for_text(SOL, "Pay.sol", EvalgenOptions(**{**opts.__dict__, "code_only": True}))
    assert code.items and all(any(not _is_comment_line(ln) and ln.strip() for ln in split_lines(it.middle))
                              for it in code.items)
    # exactly the spots of the plain run that hold a code line
    expected = [(it.start, it.end) for it in every.items
                if any(ln.strip() and not _is_comment_line(ln) for ln in split_lines(it.middle))]
    assert [(it.start, it.end) for it in code.items] == expected and code.usable == len(expected)
    assert any(it.middle.strip().startswith("uint256 amount") for it in code.items)  # code with a trailing comment


def test_span_mode_middles_hold_a_code_character() -> None:
    opts = EvalgenOptions(per_file=300, mode="span", max_middle=40, seed=3, code_only=True)
    res = items_for_text(SOL, "Pay.sol", opts)
    mask = comment_mask(SOL, "solidity")
    assert len(res.items) == 300
    for it in res.items:
        assert any(not ch.isspace() and not mask[it.start + k] for k, ch in enumerate(it.middle)), it.middle
    plain = items_for_text(SOL, "Pay.sol", EvalgenOptions(per_file=300, mode="span", max_middle=40, seed=3))
    assert res.usable < plain.usable  # middles inside comments only were spots before


def test_code_only_with_new_code_keeps_both_rules() -> None:
    old = SOL.replace("        // clear before the call\n        owed[to] = 0;\n", "")
    allowed = newcode.new_lines(split_lines(old), split_lines(SOL))
    opts = EvalgenOptions(per_file=10, mode="line", code_only=True)
    res = items_for_text(SOL, "Pay.sol", opts, allowed=allowed)
    assert [it.middle for it in res.items] == ["        owed[to] = 0;\n"]  # the new comment line is not a spot


def test_a_language_without_a_grammar_is_skipped_and_said(tmp_path: Path, cli) -> None:
    res = items_for_text("MOVE A TO B.\nMOVE C TO D.\nSTOP RUN.\n", "notes.cob", EvalgenOptions(code_only=True))
    assert res.items == [] and res.skipped == "no cob grammar to tell comments from code (--code-only)"
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "Pay.sol").write_text(SOL)
    (tmp_path / "src" / "old.cob").write_text("IDENTIFICATION DIVISION.\nPROGRAM-ID. X.\n* a comment\nSTOP RUN.\n")
    out = tmp_path / "items.jsonl"
    done = cli("evalgen", str(tmp_path / "src"), "--ext", "sol", "--ext", "cob", "-o", str(out), "--code-only",
               "--per-file", "4", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["n_items"] == 4 and any("old.cob" in str(s) and "grammar" in str(s) for s in summary["skipped"])
    assert all(not _is_comment_line(json.loads(line)["middle"]) for line in out.read_text().splitlines())
