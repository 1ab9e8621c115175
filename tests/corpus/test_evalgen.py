"""evalgen: items cut from raw code are exact, never whitespace-only, and reproducible."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from replay.corpus.evalgen import EvalgenOptions, chunk_text, collect_files, generate, items_for_text
from replay.records import FimItem
from replay.store import Store
from tests.conftest import ROOT

CONTRACT = """// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice A counter.
contract Counter{n} {{
    uint256 public count;
    mapping(address => uint256) public owed;

    event Bumped(address indexed who, uint256 by);

    function bump(uint256 by) external {{
        require(by > 0, "zero");
        count += by;
        owed[msg.sender] = owed[msg.sender] + by;
        emit Bumped(msg.sender, by);
    }}

    function reset() external {{
        count = 0;
    }}
}}
"""


# Every kind of whitespace str.isspace knows, inside code: a span's middle must hold a character
# that is none of them.
UNICODE_SPACES = ("contract S {\n\tuint a;\u00a0\u2028 // x\x1c\x1d\x1e\x1f\x85\n"
                  "\u3000\u2000\u200a\u202f\u205f  uint b; \x0b\x0c\r\n  function f() {}\u1680\n}\n")


def write_corpus(root: Path, n: int = 6) -> Path:
    """A small corpus of distinct contracts, a tiny file, a duplicate and a non-.sol file."""
    for i in range(n):
        sub = root / ("lib" if i % 2 else "src")
        sub.mkdir(parents=True, exist_ok=True)
        body = CONTRACT.format(n=i) + "".join(f"// note {k} for contract {i}\n" for k in range(i * 3))
        (sub / f"C{i}.sol").write_text(body.replace("\n", "\r\n") if i == 3 else body, encoding="utf-8")
    (root / "src" / "Tiny.sol").write_text("pragma solidity ^0.8.0;\n", encoding="utf-8")
    (root / "lib" / "Copy.sol").write_text(CONTRACT.format(n=0).replace("    ", "\t"), encoding="utf-8")
    (root / "README.md").write_text("not code\n" * 10, encoding="utf-8")
    return root


def run_items(roots: list[Path], opts: EvalgenOptions, workers: int = 1) -> list[FimItem]:
    return generate(collect_files(roots, ["sol"]), opts, workers=workers).items


@pytest.mark.parametrize("mode", ["line", "span"])
def test_prefix_middle_suffix_is_the_chunk_and_offsets_hold(tmp_path: Path, mode: str) -> None:
    root = write_corpus(tmp_path / "c")
    opts = EvalgenOptions(per_file=5, mode=mode, chunk_tokens=64)  # 128-character chunks: many per file
    items = run_items([root], opts)
    assert items
    for it in items:
        text = (root / it.file).read_bytes().decode()
        chunk = it.prefix + it.middle + it.suffix
        assert text[it.chunk_start : it.chunk_start + len(chunk)] == chunk
        assert text[it.start : it.end] == it.middle
        assert it.start - it.chunk_start == len(it.prefix)
        assert len(chunk) <= opts.chunk_chars
        assert it.middle.strip(), "whitespace-only middle"
        assert it.prefix and it.suffix
        assert it.mode == mode and it.language == "solidity"
        import hashlib
        assert it.corpus_hash == hashlib.sha256(text.encode()).hexdigest()


def test_line_mode_masks_whole_lines_and_keeps_crlf(tmp_path: Path) -> None:
    root = write_corpus(tmp_path / "c")
    items = run_items([root], EvalgenOptions(per_file=4, mode="line", lines=2))
    for it in items:
        assert it.prefix.endswith("\n") and it.middle.endswith("\n")
        assert it.middle.count("\n") == 2
        assert it.middle.splitlines()[0].strip()  # first masked line not blank (the seed's rule)
    crlf = [it for it in items if it.file.endswith("C3.sol")]
    assert crlf and all(it.middle.endswith("\r\n") for it in crlf)


def test_span_mode_respects_min_and_max_middle(tmp_path: Path) -> None:
    root = write_corpus(tmp_path / "c")
    items = run_items([root], EvalgenOptions(per_file=20, mode="span", min_middle=5, max_middle=9))
    assert items and all(5 <= len(it.middle) <= 9 for it in items)


def test_tiny_and_duplicate_files_are_skipped_and_said(tmp_path: Path) -> None:
    root = write_corpus(tmp_path / "c")
    result = generate(collect_files([root], ["sol"]), EvalgenOptions())
    skipped = {f.file: f.skipped for f in result.files if f.skipped}
    assert skipped["src/Tiny.sol"].startswith("tiny")
    assert skipped["src/C0.sol"] == "duplicate of lib/Copy.sol"  # whitespace-insensitive, first in path order
    assert not any(it.file.endswith(".md") for it in result.items)


def test_a_file_with_few_spots_gives_what_it_has_and_is_short() -> None:
    text = "a\nbb\n\n  \ncc\ndd\n"  # line mode, 1 line: candidate starts 1..4, of which 1 and 4 are not blank
    opts = EvalgenOptions(per_file=50, mode="line", min_lines=3, min_chars=5)
    res = items_for_text(text, "f.sol", opts)
    assert res.usable == 2 and sorted(it.middle for it in res.items) == ["bb\n", "cc\n"]
    span = items_for_text("x" + " " * 30 + "y\nz", "g.sol", EvalgenOptions(per_file=10**6, mode="span", min_lines=1, min_chars=1))
    assert len(span.items) == span.usable == len({(i.start, i.end) for i in span.items})
    assert all(i.middle.strip() for i in span.items)


def test_span_spots_are_exactly_the_usable_ones() -> None:
    """The exact count equals a brute-force count of every (start, end) that obeys the rules."""
    text = "ab  \n\n   c d\n  e"
    opts = EvalgenOptions(per_file=10**6, mode="span", min_middle=2, min_lines=1, min_chars=1)
    res = items_for_text(text, "t.sol", opts)
    brute = {(s, e) for s in range(1, len(text)) for e in range(s + 2, len(text)) if text[s:e].strip()}
    assert {(i.start, i.end) for i in res.items} == brute


def test_chunks_end_at_line_ends_and_join_back() -> None:
    text = "one\ntwo\n" + "x" * 25 + "\nlast"
    chunks = chunk_text(text, 10)
    assert "".join(c for _, c in chunks) == text
    assert all(len(c) <= 10 for _, c in chunks)
    assert [c for _, c in chunks][:1] == ["one\ntwo\n"]
    assert all(text[o : o + len(c)] == c for o, c in chunks)


def test_same_items_whatever_workers_and_file_order(tmp_path: Path) -> None:
    a = write_corpus(tmp_path / "a")
    opts = EvalgenOptions(per_file=3, mode="span", chunk_tokens=64, seed=7)
    one = run_items([a], opts, workers=1)
    two = run_items([a], opts, workers=2)
    assert one == two
    # The same files written in the opposite order (other inode and directory order).
    b = tmp_path / "b"
    for f in sorted(a.rglob("*"), reverse=True):
        if f.is_file():
            (b / f.relative_to(a)).parent.mkdir(parents=True, exist_ok=True)
            (b / f.relative_to(a)).write_bytes(f.read_bytes())
    assert run_items([b], opts) == one
    other_seed = run_items([a], EvalgenOptions(per_file=3, mode="span", chunk_tokens=64, seed=8))
    assert other_seed != one


def test_default_workers_only_for_a_corpus_large_enough(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """By default one process cuts a small corpus (a pool costs more than it saves there) and
    every usable core a large one, unless this process runs other threads; the items are the
    same either way."""
    import threading

    from replay.corpus import evalgen

    files = collect_files([write_corpus(tmp_path / "a")], ["sol"])
    opts = EvalgenOptions(per_file=3, mode="span", chunk_tokens=64)
    assert evalgen.default_workers(files) == 1
    one = generate(files, opts).items
    size = sum(f.path.stat().st_size for f in files)
    monkeypatch.setattr(evalgen, "PARALLEL_MIN_BYTES", size)
    monkeypatch.setattr(evalgen, "usable_cores", lambda: 2)
    monkeypatch.setattr(threading, "active_count", lambda: 1)  # threads other tests left do not count here
    assert evalgen.default_workers(files) == 2
    assert generate(files, opts).items == one
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert evalgen.default_workers(files) == 1


def test_same_output_whatever_pythonhashseed(tmp_path: Path, home: Path) -> None:
    root = write_corpus(tmp_path / "c")
    outs = []
    for seed, workers in (("0", "1"), ("12345", "2"), ("random", "1")):
        out = tmp_path / f"items-{seed}.jsonl"
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT), FIMREPLAY_HOME=str(home))
        subprocess.run([sys.executable, "-m", "replay", "evalgen", str(root), "-o", str(out), "--mode", "span",
                        "--workers", workers, "--db", str(tmp_path / f"{seed}.db")], env=env, check=True, cwd=ROOT,
                       capture_output=True)
        outs.append(out.read_bytes())
    assert outs[0] and outs[0] == outs[1] == outs[2]


def test_evalgen_cli_writes_items_and_stores_them(tmp_path: Path, cli) -> None:
    root = write_corpus(tmp_path / "c")
    (root / "src" / "Bad.sol").write_bytes(b"\xff\xfe not utf-8\n\n\n")
    out = tmp_path / "items.jsonl"
    db = tmp_path / "s.db"
    res = cli("evalgen", str(root), "-o", str(out), "--per-file", "2", "--json", "--db", str(db))
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    lines = out.read_text().splitlines()
    assert summary["n_items"] == len(lines) == summary["stored_new"]
    assert summary["n_rejects"] == 1 and "src/Bad.sol: unreadable: not UTF-8 text: byte 0xff at byte 1" in res.stderr and "codec" not in res.stderr
    assert Path(summary["rejects_file"]).read_text().count("\n") == 1
    items = [msgspec.json.decode(line, type=FimItem) for line in lines]
    assert {"id", "file", "prefix", "middle", "suffix", "mode"} <= set(json.loads(lines[0]))
    with Store(db) as store:
        assert [i.id for i in store.items()] == [i.id for i in items]
    again = cli("evalgen", str(root), "-o", str(out), "--per-file", "2", "--json", "--db", str(db))
    assert json.loads(again.stdout)["stored_existing"] == len(lines)  # same items: same ids, not duplicated


def test_evalgen_cli_bad_usage(tmp_path: Path, cli) -> None:
    res = cli("evalgen", str(tmp_path / "nope"), "-o", str(tmp_path / "o.jsonl"))
    assert res.returncode == 2 and "nope" in res.stderr


def test_lines_end_at_newline_only() -> None:
    from replay.corpus.evalgen import split_lines

    text = "a\r\nb // form\x0cfeed \u2028 sep\nlast"
    assert split_lines(text) == ["a\r\n", "b // form\x0cfeed \u2028 sep\n", "last"]
    assert "".join(split_lines(text)) == text and split_lines("") == []


# sha256 of the JSONL written for these options on write_corpus + UNICODE_SPACES, recorded with the
# first implementation (a Python loop per character): a faster splitter must cut the same items.
GOLDEN = [
    (EvalgenOptions(per_file=4), "0276cc7c7fc0e91f8868f07a4d8fc219e15a5858389dfdd391b988989609f877"),
    (EvalgenOptions(per_file=3, lines=2, chunk_tokens=64, seed=3), "f5ef0a2cb257a5b272a186810ec5c9cef0a20bbf51ad62936aeefb967688c037"),
    (EvalgenOptions(per_file=6, mode="span"), "beee70661eb17a40bc40417137084a8883e3d1c82324b48c92e590f1d62e68b9"),
    (EvalgenOptions(per_file=5, mode="span", min_middle=4, max_middle=30, chunk_tokens=64, seed=9),
     "9e3e8ce4840ebd5bd0af90b7e5c92d4c648d006dca0dab4ee7a5c8a36270f8d3"),
]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize(("opts", "digest"), GOLDEN)
def test_items_are_byte_identical_to_the_recorded_ones(tmp_path: Path, opts: EvalgenOptions, digest: str, workers: int) -> None:
    import hashlib

    from replay.corpus.evalgen import iter_jsonl

    root = write_corpus(tmp_path / "c")
    (root / "src" / "Spaces.sol").write_text(UNICODE_SPACES, encoding="utf-8")
    data = b"".join(iter_jsonl(run_items([root], opts, workers=workers)))
    assert hashlib.sha256(data).hexdigest() == digest


def test_whitespace_as_str_isspace_sees_it() -> None:
    """The span splitter's whitespace table and the duplicate key agree with str.isspace on
    every code point (no surrogates: a decoded file has none)."""
    import re

    from replay.corpus.evalgen import _squeeze
    from replay.corpus.spots import _spaces

    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    assert [i for i, v in enumerate(_spaces(text)) if v] == [i for i, ch in enumerate(text) if ch.isspace()]
    assert _squeeze(text) == re.sub(r"\s+", "", text)
