"""New code only: the lines a version added since an older one (a real diff: difflib), and
items whose middles lie only inside them, on small hand-made versions."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from replay.corpus import newcode
from replay.corpus.evalgen import EvalgenOptions, items_for_text, split_lines
from replay.records import FimItem

OLD = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Vault {
    uint256 public total;

    function deposit(uint256 amount) external {
        total += amount;
    }
}
"""

# Re-indented with tabs and CRLF (old code still), one line changed, a function added.
NEW = """// SPDX-License-Identifier: MIT\r
pragma solidity ^0.8.24;\r
\r
contract Vault {\r
\tuint256 public total;\r
\r
\tfunction deposit(uint256 amount) external {\r
\t\ttotal += amount;\r
\t}\r
\r
\tfunction withdraw(uint256 amount) external {\r
\t\trequire(amount <= total, "too much");\r
\t\ttotal -= amount;\r
\t}\r
}\r
"""

MOVED = "contract Moved {\n    function g() external pure returns (uint256) {\n        return 7;\n    }\n}\n"


def test_diff_marks_changed_and_added_lines_only() -> None:
    ranges = newcode.new_lines(split_lines(OLD), split_lines(NEW))
    # The pragma; withdraw (the blank line before it is not new code). Of the two closing braces
    # at the end, the diff keeps the first as the old contract's and calls the last one new.
    assert ranges == [(1, 2), (10, 13), (14, 15)]
    lines = split_lines(NEW)
    assert [lines[i].strip() for a, b in ranges for i in range(a, b)] == [
        "pragma solidity ^0.8.24;", "function withdraw(uint256 amount) external {",
        'require(amount <= total, "too much");', "total -= amount;", "}"]
    assert newcode.new_lines(split_lines(OLD), split_lines(OLD)) == []
    assert newcode.new_lines([], ["\n", "a\n", "\n"]) == [(1, 2)]


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode())
    return root


def test_files_are_diffed_at_their_path_or_where_they_moved_from(tmp_path: Path) -> None:
    old = _write(tmp_path / "old", {"src/Vault.sol": OLD, "src/Moved.sol": MOVED})
    new = _write(tmp_path / "new", {"src/Vault.sol": NEW, "lib/Moved.sol": MOVED, "src/Fresh.sol": "\ncontract F {}\n"})
    got = newcode.corpus_new_lines(new, ["lib/Moved.sol", "src/Fresh.sol", "src/Vault.sol"], old, ["src/Moved.sol", "src/Vault.sol"])
    assert got == {"src/Fresh.sol": [(1, 2)], "src/Vault.sol": [(1, 2), (10, 13), (14, 15)]}
    assert newcode.summary(got) == {"n_files": 2, "n_lines": 6}
    assert newcode.char_ranges("a\nbb\ncc", [(1, 3)]) == [(2, 7)]


@pytest.mark.parametrize("mode", ["line", "span"])
def test_middles_only_inside_new_lines_prefix_and_suffix_whole(mode: str) -> None:
    allowed = newcode.new_lines(split_lines(OLD), split_lines(NEW))
    spans = newcode.char_ranges(NEW, allowed)
    opts = EvalgenOptions(per_file=10**6, mode=mode, min_lines=1, min_chars=1)
    res = items_for_text(NEW, "Vault.sol", opts, allowed=allowed, stamp={"new_code": True, "since": "old"})
    assert res.items and res.usable == len(res.items)
    for it in res.items:
        assert any(a <= it.start and it.end <= b for a, b in spans), it.middle
        assert it.prefix + it.middle + it.suffix == NEW  # one chunk: the whole file around the middle
        assert it.new_code and it.since == "old"
    every = items_for_text(NEW, "Vault.sol", opts)
    inside = {(i.start, i.end) for i in every.items if any(a <= i.start and i.end <= b for a, b in spans)}
    assert {(i.start, i.end) for i in res.items} == inside  # exactly the usable spots inside new lines
    assert items_for_text(NEW, "Vault.sol", opts, allowed=[]).items == []


def test_corpus_add_since_then_evalgen_new_code_only(tmp_path: Path, home: Path, cli) -> None:
    old = _write(tmp_path / "v1", {"src/Vault.sol": OLD, "src/Moved.sol": MOVED,
                                   "CHANGELOG.md": "## 1.0.0 (2024-01-10)\n", "package.json": '{"version": "1.0.0"}'})
    new = _write(tmp_path / "v2", {"src/Vault.sol": NEW, "lib/Moved.sol": MOVED,
                                   "CHANGELOG.md": "## 2.0.0 (2025-06-01)\n## 1.0.0 (2024-01-10)\n",
                                   "package.json": '{"version": "2.0.0"}'})
    res = cli("corpus", "add", str(new), "--since", str(old), "--json")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["published"]["date"] == "2025-06-01" and info["published"]["source"] == "changelog"
    assert info["new_code"] == {"since": str(old), "since_corpus": "v1", "since_date": "2024-01-10",
                                "since_date_source": "changelog", "n_files": 1, "n_lines": 5}
    assert "new code since" in cli("corpus", "list").stdout
    for mode in ("line", "span"):
        out = tmp_path / f"{mode}.jsonl"
        res = cli("evalgen", "v2", "-o", str(out), "--mode", mode, "--per-file", "4", "--new-code-only", "--json",
                  "--db", str(tmp_path / "s.db"))
        assert res.returncode == 0, res.stderr
        summary = json.loads(res.stdout)
        assert summary["n_files_without_new_code"] == 1 and summary["n_items"] == 4
        spans = newcode.char_ranges(NEW, [(1, 2), (10, 13), (14, 15)])
        for line in out.read_bytes().splitlines():
            item = msgspec.json.decode(line, type=FimItem)
            assert item.file == "src/Vault.sol" and any(a <= item.start and item.end <= b for a, b in spans)
            assert (item.new_code, item.since, item.since_date) == (True, str(old), "2024-01-10")
            assert (item.published, item.published_source) == ("2025-06-01", "changelog")
    plain = tmp_path / "plain.jsonl"
    assert cli("evalgen", "v2", "-o", str(plain), "--db", str(tmp_path / "p.db")).returncode == 0
    first = json.loads(plain.read_text().splitlines()[0])
    assert first["published"] == "2025-06-01" and "new_code" not in first and "since" not in first
    res = cli("evalgen", "v1", "-o", str(tmp_path / "x.jsonl"), "--new-code-only")
    assert res.returncode == 2 and "no new code recorded" in res.stderr
    res = cli("evalgen", str(new), "-o", str(tmp_path / "x.jsonl"), "--new-code-only")
    assert res.returncode == 2 and "only for a stored corpus" in res.stderr


def test_evalgen_keeps_only_items_newer_than_a_day_or_a_models_cutoff(tmp_path: Path, home: Path, cli) -> None:
    """New code since 1.0.0 (2024-01-10) was written after that day; whole-file items may be of any
    age. Qwen2.5-Coder's cutoff (2024-01-31, replay/data/model_cutoffs.json) is later than the
    older version's day, so none of the new code can be told newer than it."""
    old = _write(tmp_path / "v1", {"src/Vault.sol": OLD, "CHANGELOG.md": "## 1.0.0 (2024-01-10)\n",
                                   "package.json": '{"version": "1.0.0"}'})
    new = _write(tmp_path / "v2", {"src/Vault.sol": NEW, "CHANGELOG.md": "## 2.0.0 (2025-06-01)\n## 1.0.0 (2024-01-10)\n",
                                   "package.json": '{"version": "2.0.0"}'})
    assert cli("corpus", "add", str(new), "--since", str(old)).returncode == 0

    def evalgen(*args: str) -> dict:
        out = tmp_path / "items.jsonl"
        res = cli("evalgen", "v2", "-o", str(out), "--per-file", "4", "--json", "--db", str(tmp_path / "s.db"), *args)
        assert res.returncode == 0, res.stderr
        summary = json.loads(res.stdout)
        assert len(out.read_bytes().splitlines()) == summary["n_items"]
        return summary

    kept = evalgen("--new-code-only", "--newer-than", "2024-01-09")
    assert kept["n_items"] == 4 and kept["n_not_newer"] == 0 and kept["newer_than"]["date"] == "2024-01-09"
    dropped = evalgen("--new-code-only", "--newer-than", "2024-01-10")
    assert dropped["n_items"] == 0 and dropped["n_not_newer"] == 4
    by_model = evalgen("--new-code-only", "--newer-than", "qwen2.5-coder-1.5b")
    assert by_model["n_items"] == 0 and by_model["newer_than"] == {"date": "2024-01-31", "model": "Qwen2.5-Coder",
                                                                  "source": by_model["newer_than"]["source"]}
    whole_files = evalgen("--newer-than", "2000-01-01")
    assert whole_files["n_items"] == 0 and whole_files["n_not_newer"] == 4  # a whole file may be of any age
    res = cli("evalgen", "v2", "-o", str(tmp_path / "x.jsonl"), "--newer-than", "no-such-model")
    assert res.returncode == 2 and "no known cutoff" in res.stderr
