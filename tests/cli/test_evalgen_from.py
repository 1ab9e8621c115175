"""`fimreplay evalgen FILE --from FORMAT`: a public benchmark's file as items, and those items
rendered by every editor profile, each placing the benchmark's cross-file context as it places
snippets (tests/data/benchmarks/README.md: which files are published data, which schema-built)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from replay.editors import EDITORS
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "benchmarks"
SINGLE_LINE = DATA / "HumanEval-SingleLineInfilling.jsonl.gz"
CCE = DATA / "crosscodeeval-line_completion_rg1_bm25.jsonl"
MODEL = "qwen2.5-coder"


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_single_line_infilling_becomes_its_1033_items_and_is_stored(cli, tmp_path: Path) -> None:
    out = tmp_path / "he.jsonl"
    done = cli("evalgen", str(SINGLE_LINE), "--from", "humaneval-infilling", "-o", str(out), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["n_items"] == summary["n_rows"] == summary["stored_new"] == 1033
    assert (summary["n_files"], summary["n_rejects"], summary["format"]) == (164, 0, "humaneval-infilling")
    items = lines(out)
    originals = [json.loads(line) for line in gzip.decompress(SINGLE_LINE.read_bytes()).decode().splitlines()]
    assert [it["id"] for it in items] == [r["task_id"] for r in originals]
    assert all(it["prefix"] + it["middle"] + it["suffix"] == r["prompt"] + r["canonical_solution"] + r["suffix"]
               and it["test"] == r["test"] and it["entry_point"] == r["entry_point"] for it, r in zip(items, originals))
    again = cli("evalgen", str(SINGLE_LINE), "--from", "humaneval-infilling", "-o", str(out), "--json")
    assert json.loads(again.stdout)["stored_existing"] == 1033


def test_a_file_of_another_layout_is_one_line_and_exit_2(cli, tmp_path: Path) -> None:
    done = cli("evalgen", str(SINGLE_LINE), "--from", "crosscodeeval", "-o", str(tmp_path / "x.jsonl"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"fimreplay: {SINGLE_LINE}:1: not a crosscodeeval file: its first row has no 'groundtruth', 'right_context',"
        " 'metadata' (it looks like humaneval-infilling: --from humaneval-infilling)"]
    assert not (tmp_path / "x.jsonl").exists()


def test_bad_rows_are_rejected_beside_the_output_and_the_rest_kept(cli, tmp_path: Path) -> None:
    rows = CCE.read_text().splitlines()
    src = tmp_path / "cce.jsonl"
    src.write_text("\n".join([rows[0], "{broken", json.dumps({**json.loads(rows[1]), "metadata": []}), rows[2]]) + "\n")
    out = tmp_path / "items.jsonl"
    done = cli("evalgen", str(src), "--from", "crosscodeeval", "-o", str(out), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["n_rows"], summary["n_items"], summary["n_rejects"]) == (4, 2, 2)
    rejects = lines(Path(summary["rejects_file"]))
    assert [r["where"] for r in rejects] == [f"{src}:2", f"{src}:3"]
    assert "'metadata' must be an object" in rejects[1]["reason"]
    assert f"{src}:2: not JSON" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("args, message", [(("a.jsonl", "b.jsonl"), "reads one benchmark file, not 2"),
                                           (("a.jsonl", "--per-file", "2", "--mode", "span"),
                                            "--per-file, --mode only apply to cutting raw code")])
def test_from_takes_one_file_and_no_cutting_option(cli, tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    done = cli("evalgen", *args, "--from", "safim", "-o", str(tmp_path / "x.jsonl"))
    assert done.returncode == 2 and message in done.stderr


@pytest.fixture(scope="module")
def items(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three HumanEval single-line items and the CrossCodeEval sample's items, in one file."""
    from replay.benchmarks.formats import benchmark_format
    from replay.benchmarks.reader import read_benchmark
    from replay.corpus.evalgen import iter_jsonl
    from replay.rejects import Rejects

    folder = tmp_path_factory.mktemp("items")
    with Rejects(folder / "rejects.jsonl") as rejects:
        he = read_benchmark(SINGLE_LINE, benchmark_format("humaneval-infilling"), rejects).items[:3]
        cce = read_benchmark(CCE, benchmark_format("crosscodeeval"), rejects).items
    path = folder / "items.jsonl"
    path.write_bytes(b"".join(iter_jsonl([*he, *cce])))
    return path


# Where each profile puts the first CrossCodeEval item's retrieved chunks (stats/utils.py's
# `normalise`), as it places any snippet: the standard profile takes none (the fixed setting).
PLACED = {
    "tabby": "# Path: stats/utils.py\n# def normalise(xs):\n",  # the server's commented declarations
    "continue": "<|file_sep|>utils.py\ndef normalise(xs):\n",  # Continue's repo-level snippets
    "llama.vscode": "<|file_sep|>stats/utils.py\ndef normalise(xs):\n",  # the ring's input_extra chunks
    "llama.vim": "<|file_sep|>stats/utils.py\ndef normalise(xs):\n",
    "copilot": "Compare this snippet from utils.py:\ndef normalise(xs):\n",  # similar files from open tabs
    "copilot-ls": "# Compare this snippet from utils.py:\n# def normalise(xs):\n",
    "standard": None,
}


@pytest.mark.parametrize("editor", EDITORS)
def test_every_profile_renders_benchmark_items_and_places_their_snippets(cli, items: Path, tmp_path: Path,
                                                                         editor: str) -> None:
    out = tmp_path / "rendered.jsonl"
    done = cli("render", str(items), "--editor", editor, "--model", MODEL, "--keep-going", "-o", str(out), "--json")
    assert done.returncode == 0, done.stderr
    rendered = {row["id"]: row for row in lines(out)}
    summary = json.loads(done.stdout)
    # llama.vim sends no automatic request with more than max_line_suffix (8) bytes after the
    # cursor: a HumanEval single-line item's cursor is at the start of the next line's text.
    unsent = 3 if editor == "llama.vim" else 0
    assert (summary["rendered"], summary["rejected"]) == (6 - unsent, unsent)
    assert len(rendered) == 6 - unsent
    cce = rendered["project_cc_python/1"]
    if PLACED[editor] is None:
        assert "normalise(xs):" not in cce["prompt"]
    else:
        assert PLACED[editor] in cce["prompt"]
