"""The `compiles` metric: the real Solidity compiler (solc-js 0.8.37, an offline npm asset, run
by node) on the file with the completion in place; a tree-sitter parse for other languages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from replay.scoring import compiles
from replay.corpus import sources
from replay.corpus.evalgen import EvalgenOptions, collect_files, generate, items_for_text
from replay.records import FimItem
from replay.store import Store
from tests.support.scores import half_right_run

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node runs solc-js")

LIB = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

library Math {
    function twice(uint256 x) internal pure returns (uint256) {
        return x * 2;
    }
}
"""

VAULT = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Math} from "./lib/Math.sol";

contract Vault {
    uint256 public total;

    function deposit(uint256 amount) external {
        total += Math.twice(amount);
    }
}
"""

OLD = "// SPDX-License-Identifier: MIT\npragma solidity 0.7.6;\n\ncontract Old {\n    uint256 public x;\n}\n"


def _item(text: str, rel: str, middle: str) -> FimItem:
    """The line-mode item of `text` whose middle is `middle`."""
    res = items_for_text(text, rel, EvalgenOptions(per_file=10**6, min_lines=1, min_chars=1))
    return next(it for it in res.items if it.middle == middle)


@pytest.fixture()
def corpus(tmp_path: Path, home: Path) -> Path:
    src = tmp_path / "pkg"
    (src / "lib").mkdir(parents=True)
    (src / "lib" / "Math.sol").write_text(LIB)
    (src / "Vault.sol").write_text(VAULT)
    (src / "Old.sol").write_text(OLD)
    return sources.add_corpus(str(src)).root


def test_judge_compares_error_sets() -> None:
    undeclared = ("DeclarationError", "7576", "Undeclared identifier.")
    parse = ("ParserError", "2314", "Expected ';' but got '}'")
    assert compiles.judge(frozenset(), frozenset()) == 1.0
    assert compiles.judge(frozenset(), frozenset({parse})) == 0.0
    assert compiles.judge(frozenset({undeclared}), frozenset({undeclared})) == 1.0  # fails as the original did
    assert compiles.judge(frozenset({undeclared}), frozenset({undeclared, parse})) == 0.0
    other = ("ParserError", "5333", "Source file requires different compiler version")
    assert compiles.judge(frozenset({other}), frozenset({other})) is None


def test_solidity_compiled_with_imports_from_the_corpus(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    item = _item(VAULT, "Vault.sol", "        total += Math.twice(amount);\n")
    old = _item(OLD, "Old.sol", "    uint256 public x;\n")
    cases = [
        (item, item.middle),  # the original: compiles (Math read through the import)
        (item, "        total += Math.twice(amount) + 1;\n"),  # another correct line
        (item, "        total += Math.thrice(amount);\n"),  # parses, fails type checking
        (item, "        total += ;\n"),  # does not parse
        (item, ""),  # nothing shown: still compiles
        (old, old.middle),  # pragma 0.7.6: this compiler cannot judge it
    ]
    assert compiles.compiles_many(cases) == [1.0, 1.0, 0.0, 0.0, 1.0, None]
    # Cached by content hash: the same cases again need no compiler (no node on the PATH).
    monkeypatch.setattr(compiles.shutil, "which", lambda name: None)
    assert compiles.compiles_many(cases[:4]) == [1.0, 1.0, 0.0, 0.0]
    with pytest.raises(compiles.CompilerUnavailable):
        compiles.compiles_many([(item, "        total += 2;\n")])


def test_an_item_whose_file_cannot_be_had_is_not_judged(tmp_path: Path, home: Path) -> None:
    long = VAULT + "".join(f"// padding line {i}\n" for i in range(200))
    items = items_for_text(long, "Far.sol", EvalgenOptions(per_file=3, chunk_tokens=64))
    assert items.items and all(len(it.prefix + it.middle + it.suffix) < len(long) for it in items.items)  # chunks
    assert compiles.compiles_many([(it, it.middle) for it in items.items]) == [None] * len(items.items)


def test_other_languages_count_tree_sitter_syntax_errors(home: Path) -> None:
    text = "def f(x):\n    y = x + 1\n    return y\n\nprint(f(2))\n"
    item = _item(text, "m.py", "    y = x + 1\n")
    assert item.language == "python"
    assert compiles.compiles_many([(item, item.middle), (item, "    y = x +\n"), (item, "    y = (x\n")]) == [1.0, 0.0, 0.0]
    assert compiles.syntax_errors("def f(:\n", "python") >= 1 and compiles.syntax_errors(text, "python") == 0
    assert compiles.syntax_errors("anything", "brainfuck") is None


def test_score_compiles_beside_indel(corpus: Path, tmp_path: Path, cli) -> None:
    items = generate(collect_files([corpus], ["sol"]), EvalgenOptions(per_file=2, mode="line")).items
    db = tmp_path / "s.db"
    half_right_run(db, items, "function ;\n")
    plain = json.loads(cli("score", "r", "--json", "--db", str(db)).stdout)
    assert "compiles" not in plain["mean"]  # opt-in
    res = cli("score", "r", "--compiles", "--db", str(db))
    assert res.returncode == 0, res.stderr
    header = next(line for line in res.stdout.splitlines() if "indel" in line)
    assert header.index("indel") < header.index("compiles") < header.index("exact")
    out = json.loads(cli("score", "r", "--compiles", "--json", "--db", str(db)).stdout)
    judged = [it for it in items if not it.file.endswith("Old.sol")]
    assert out["n_items"] == len(items) and 0 < out["mean"]["compiles"] < 1
    with Store(db) as store:
        judged_set = store.score_sets("r")["shown:compiles"].entries
        values = {item_id: v["compiles"] for item_id, (_, v) in judged_set.items() if "compiles" in v}
    assert set(values) == {it.id for it in judged}
    assert all(values[it.id] == float(k % 2) for k, it in enumerate(items) if it.id in values)
    report = cli("report", "r", "--format", "json", "--db", str(db))
    assert report.returncode == 0 and "compiles" in report.stdout
