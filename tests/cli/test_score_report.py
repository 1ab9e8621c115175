"""`fimreplay score`, `report` and `corpus` end to end, on a temp store with runs written directly."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from replay.corpus.evalgen import EvalgenOptions, collect_files, generate
from replay.reading import RunConfig
from replay.records import Completion
from replay.store import Store
from tests.corpus.test_evalgen import write_corpus


def make_store(tmp_path: Path) -> tuple[Path, list]:
    """Items from a small corpus and two runs: one perfect, one that cuts every middle in half."""
    root = write_corpus(tmp_path / "c")
    items = generate(collect_files([root], ["sol"]), EvalgenOptions(per_file=3, mode="line", lines=2)).items
    db = tmp_path / "s.db"
    with Store(db) as store:
        store.add_items(items)
        store.create_run("good", RunConfig(backend="llamacpp", model="qwen2.5-coder-0.5b", editor="standard"))
        store.create_run("half", RunConfig(backend="llamacpp", model="tiny", editor="tabby@0.25"))
        for it in items:
            store.add_completion("good", Completion(item_id=it.id, text=it.middle, raw_text=it.middle + "\n\nfoo", backend="llamacpp", model="qwen"))
            half = it.middle[: len(it.middle) // 2]
            store.add_completion("half", Completion(item_id=it.id, text=half, raw_text=half, backend="llamacpp", model="tiny"))
        store.add_completion("half", Completion(item_id="ghost", text="x", raw_text="x", backend="llamacpp", model="tiny"))
    return db, items


def test_score_a_run_stores_scores_and_rejects_unknown_items(tmp_path: Path, cli) -> None:
    db, items = make_store(tmp_path)
    res = cli("score", "good", "--json", "--db", str(db))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["n_items"] == len(items) and out["n_files"] == len({i.file for i in items})
    assert out["mean"]["indel"] == 1.0 and out["mean"]["exact"] == 1.0
    assert out["total"]["indel"] == pytest.approx(out["n_files"])
    assert set(out["mean"]) == {"indel", "exact", "bleu", "codebleu"}
    assert out["n_stop_cut"] == len(items)  # text differs from raw_text: the stop words were applied
    # These completions were stored without an editor stage: the shown text is the received one.
    assert out["n_no_stage"] == len(items) and out["text"] == "shown" and out["lines"] == "auto"
    half = json.loads(cli("score", "half", "--json", "--db", str(db)).stdout)
    assert half["n_rejects"] == 1 and 0 < half["mean"]["indel"] < 1
    assert json.loads(Path(half["rejects_file"]).read_text().splitlines()[0])["where"] == "half:ghost"
    with Store(db) as store:
        kept = store.score_sets("good")
        assert list(kept) == ["shown:lines=auto"]
        assert all(set(values) == {"indel", "exact", "bleu", "codebleu"} for _, values in kept["shown:lines=auto"].entries.values())
    lines1 = json.loads(cli("score", "half", "--json", "--lines", "1", "--db", str(db)).stdout)
    assert lines1["lines"] == 1
    with Store(db) as store:
        assert "shown:lines=1" in store.score_sets("half")


def test_score_a_jsonl_with_a_bad_line(tmp_path: Path, cli) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join([
        json.dumps({"file": "A.sol", "reference": "uint x = 1;", "completion": "uint x = 1;\n\nfunction", "stop": ["\n\n"]}),
        json.dumps({"file": "A.sol", "reference": "abc", "completion": "xyz"}),
        "{not json",
        json.dumps({"file": "B.py", "reference": "x = 1", "completion": "x = 2"}),
        json.dumps({"file": "C.sol", "reference": 3, "completion": "x"}),
    ]) + "\n", encoding="utf-8")
    res = subprocess_cli(cli, "score", str(path), "--json", "--db", str(tmp_path / "s.db"))
    out = json.loads(res.stdout)
    assert out["n_items"] == 3 and out["n_files"] == 2 and out["n_rejects"] == 2
    assert out["per_file"]["A.sol"]["exact"] == 0.5 and out["per_file"]["A.sol"]["indel"] == 0.5
    assert out["total"]["exact"] == 0.5 and out["mean"]["exact"] == 0.25
    assert f"{path}:3: not JSON" in res.stderr and f"{path}:5: " in res.stderr
    text = cli("score", str(path), "--db", str(tmp_path / "s.db"))
    assert text.returncode == 0 and "A.sol" in text.stdout and "total" in text.stdout


def subprocess_cli(cli, *args: str):
    res = cli(*args)
    assert res.returncode == 0, res.stderr
    return res


def test_score_unknown_source_is_bad_usage(tmp_path: Path, cli) -> None:
    res = cli("score", "nope", "--db", str(tmp_path / "s.db"))
    assert res.returncode == 2 and "nope" in res.stderr


@pytest.mark.parametrize("fmt", ["md", "csv", "json", "html"])
def test_report_formats(tmp_path: Path, cli, fmt: str) -> None:
    db, items = make_store(tmp_path)
    out = tmp_path / f"report.{fmt}"
    res = cli("report", "good", "half", "--format", fmt, "-o", str(out), "--db", str(db))
    assert res.returncode == 0, res.stderr
    text = out.read_text(encoding="utf-8")
    if fmt == "md":
        assert "| good | qwen2.5-coder-0.5b | standard |" in text and "```diff" in text
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        star = {r["run"]: r for r in rows if r["file"] == "*"}
        assert float(star["good"]["indel"]) == 1.0 and float(star["half"]["indel"]) < 1.0
        assert float(star["good"]["indel_total"]) == pytest.approx(len({i.file for i in items}))
    elif fmt == "json":
        data = json.loads(text)
        assert [r["run"] for r in data["runs"]] == ["good", "half"]
        assert data["runs"][1]["worst"][0]["diff"].startswith("--- reference")
        assert {(g["model"], g["profile"]) for g in data["groups"]} == {("qwen2.5-coder-0.5b", "standard"), ("tiny", "tabby@0.25")}
    else:
        assert text.startswith("<!doctype html>") and text.count("<svg") >= 6
        assert "<script" not in text and "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text


def test_report_unknown_run(tmp_path: Path, cli) -> None:
    db, _ = make_store(tmp_path)
    res = cli("report", "good", "missing", "--db", str(db))
    assert res.returncode == 2 and "missing" in res.stderr


def test_corpus_add_folder_list_and_evalgen_by_name(tmp_path: Path, cli) -> None:
    root = write_corpus(tmp_path / "c")
    res = cli("corpus", "add", str(root), "--name", "mini", "--json")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["name"] == "mini" and info["kind"] == "folder" and info["n_files"] == 8
    listed = json.loads(cli("corpus", "list", "--json").stdout)["corpora"]
    assert [c["name"] for c in listed] == ["mini"]
    out = tmp_path / "items.jsonl"
    gen = cli("evalgen", "mini", "-o", str(out), "--json")
    assert gen.returncode == 0 and json.loads(gen.stdout)["n_items"] > 0
    bad = cli("corpus", "add", str(tmp_path / "missing"))
    assert bad.returncode == 2


def _npm_reachable() -> bool:
    if shutil.which("npm") is None:
        return False
    try:
        return subprocess.run(["npm", "ping"], capture_output=True, timeout=30).returncode == 0
    except subprocess.TimeoutExpired:
        return False


@pytest.mark.skipif(not _npm_reachable(), reason="the npm registry is not reachable (CI has it)")
def test_corpus_add_a_real_npm_package(home: Path) -> None:
    """solmate 6.8.0 from the registry: the tarball is checked against npm's integrity value."""
    from replay.corpus.sources import ensure_corpus, load_corpus

    root = ensure_corpus("npm:solmate@6.8.0")
    corpus = load_corpus("solmate-6.8.0")
    assert corpus is not None and corpus.root == root
    m = corpus.manifest
    assert m["package"] == "solmate" and m["version"] == "6.8.0" and m["integrity"].startswith("sha512-")
    assert len(m["tarball_sha256"]) == 64 and "src/tokens/ERC20.sol" in m["files"]
    assert (root / "src/tokens/ERC20.sol").read_text().lstrip().startswith("// SPDX-License-Identifier")
    assert ensure_corpus("npm:solmate@6.8.0") == root  # the second call reuses it


def test_profile_comes_from_the_replayed_prompts_when_the_config_has_none(tmp_path: Path, cli) -> None:
    from replay.records import RenderedPrompt

    db, items = make_store(tmp_path)
    with Store(db) as store:
        store.create_run("bare", RunConfig(backend="llamacpp", model="m"))
        store.add_run_prompts("bare", [RenderedPrompt(profile="continue@1.0", family="qwen2.5-coder", text="p",
                                                      prefix_sent=it.prefix, suffix_sent=it.suffix, item_id=it.id) for it in items[:2]])
        for it in items[:2]:
            store.add_completion("bare", Completion(item_id=it.id, text="", raw_text="", backend="llamacpp", model="m", error="boom"))
    out = json.loads(cli("score", "bare", "--json", "--db", str(db)).stdout)
    assert out["profile"] == "continue@1.0" and out["model"] == "m" and out["n_errors"] == 2
    assert out["mean"]["indel"] == 0.0 and out["mean"]["exact"] == 0.0
    rep = json.loads(cli("report", "bare", "--format", "json", "--db", str(db)).stdout)
    assert rep["runs"][0]["profile"] == "continue@1.0"
