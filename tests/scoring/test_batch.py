"""Scoring at scale: batched, parallel and single scores are the same numbers; sentence BLEU from
n-gram statistics is sacrebleu's; a run's stored scores are reused for another text or window
that cuts the same texts, and a report of a scored run scores nothing again."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from rapidfuzz.distance import Indel
from sacrebleu.metrics import BLEU
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

from replay import scoring
from replay.reading import RunConfig
from replay.records import Completion, FimItem
from replay.scoring import pool
from replay.scoring.runs import same_cuts
from replay.scoring.sentence_bleu import sentence_bleu, tokenize_13a
from replay.store import Store
from tests.conftest import ROOT

GOLDEN = json.loads((ROOT / "tests" / "data" / "scoring_golden.json").read_text(encoding="utf-8"))["pairs"]


def _texts() -> list[str]:
    """The golden pairs' texts and their windows, and random strings of the characters the 13a
    tokenizer treats specially (digits, '.', ',', '-', '&' entities, newlines)."""
    texts = [t for p in GOLDEN for t in (p["reference"], p["completion"], *scoring.windowed(p["reference"], p["completion"], "auto"))]
    rng = random.Random(7)
    alphabet = "ab09.,-&;<>\n \t{}[]()=+*/:@_'\"\\`~|^!?#$%é€"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(5000)]
    return texts + ["&amp;lt;", "<skipped>", "a-\nb", "1-\n2", "&quot;x&quot;", "1.-2", "..1..", ",,,", "1,2,3", "a.1.b"]


def test_the_13a_tokens_are_sacrebleus() -> None:
    tokenizer = Tokenizer13a()
    wrong = [t for t in _texts() if tokenize_13a(t) != tokenizer(t.rstrip()).split()]
    assert wrong == []


def test_sentence_bleu_is_sacrebleus_sentence_score_bit_for_bit() -> None:
    reference_bleu = BLEU(tokenize="13a", smooth_method="exp", effective_order=True)
    texts = _texts()
    pairs = list(zip(texts[::2], texts[1::2])) + [(p["reference"], p["reference"]) for p in GOLDEN]
    wrong = [(r, h) for r, h in pairs if sentence_bleu(r, h) != reference_bleu.sentence_score(h, [r]).score / 100]
    assert len(pairs) > 3000 and wrong == []
    assert sum(0 < sentence_bleu(r, h) < 1 for r, h in pairs) > 300  # partial matches were compared, not only 0 and 1


def test_indel_many_is_float64_and_equal_to_indel() -> None:
    refs = [p["reference"] for p in GOLDEN] + ["foo(bar)", ""]
    comps = [p["completion"] for p in GOLDEN] + ["frob(bar)", ""]
    many = scoring.indel_many(refs, comps)
    assert many.dtype == np.float64
    assert [float(v) for v in many] == [scoring.indel(r, c) for r, c in zip(refs, comps)]
    assert many[-2] == Indel.normalized_similarity("foo(bar)", "frob(bar)") == 14 / 17


def test_parallel_and_batched_scores_equal_single_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forked workers score contiguous chunks; the rows come back in order with the numbers of
    score_pair, duplicates scored once and given their own dict."""
    monkeypatch.setattr(pool, "MIN_PARALLEL", 4)
    pairs = [(str(n), "F.sol", p["language"], p["reference"], p["completion"]) for n, p in enumerate(GOLDEN)]
    pairs += pairs[:5]
    calls: list[int] = []
    real = pool._score_distinct
    monkeypatch.setattr(pool, "_score_distinct", lambda distinct, workers: calls.append(len(distinct)) or real(distinct, workers))
    for lines in ("auto", 1, "all"):
        parallel = scoring.score_rows(pairs, lines, workers=2)
        single = [scoring.score_pair(r, c, lang, lines) for _, _, lang, r, c in pairs]
        assert [row.values for row in parallel] == single
        assert [row.values for row in scoring.score_rows(pairs, lines, workers=1)] == single
    assert all(n <= len(GOLDEN) for n in calls)  # the repeated pairs were not scored twice
    rows = scoring.score_rows(pairs, "auto", workers=1)
    rows[-1].values["indel"] = -1.0
    assert rows[4].values["indel"] != -1.0


POOL_CHECK = r"""
import json, multiprocessing, os
from replay.scoring import pool
from replay.scoring.runs import same_cuts
pool.MIN_PARALLEL = 4
pool.metric_values = lambda r, c, lang: {"pid": float(os.getpid()), "n": float(r)}
out = pool.score_many([("solidity", str(n), "x") for n in range(40)], workers=2)
print(json.dumps({"out": out, "me": os.getpid(), "left": len(multiprocessing.active_children())}))
"""


def test_the_pool_uses_forked_workers_and_leaves_none() -> None:
    """In a process running no other thread (a fresh one), a large batch is scored in child
    processes (which of the two takes which chunk is up to the machine), in order, and none is
    left running."""
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", POOL_CHECK], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert [v["n"] for v in result["out"]] == list(range(40))
    seen = {v["pid"] for v in result["out"]}
    assert 1 <= len(seen) <= 2 and float(result["me"]) not in seen
    assert result["left"] == 0


def test_beside_another_thread_the_pool_scores_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forking a process that runs other threads could copy a lock one of them holds: then the
    batch is scored in this process."""
    import os
    import threading

    monkeypatch.setattr(pool, "MIN_PARALLEL", 4)
    monkeypatch.setattr(pool, "metric_values", lambda r, c, lang: {"pid": float(os.getpid())})
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        out = pool.score_many([("solidity", str(n), "x") for n in range(40)], workers=2)
    finally:
        stop.set()
        other.join()
    assert {v["pid"] for v in out} == {float(os.getpid())}


def test_windows_cut_the_same_texts_exactly_when_same_cuts_says_so() -> None:
    """same_cuts (counted for all pairs at once) against windowed (the texts themselves), and
    first_lines against its definition, on texts made of the pieces that matter: empty lines,
    final newlines, lone \r."""
    rng = random.Random(11)
    pieces = ["", "a", "b c", "\r", " "]
    texts = ["\n".join(rng.choice(pieces) for _ in range(rng.randint(1, 5))) for _ in range(400)]
    windows: list[scoring.Lines] = ["auto", "all", 1, 2, 3, 4, 7]
    for n in (None, 1, 2, 3, 6):
        for text in texts:
            assert scoring.first_lines(text, n) == (text if n is None else "\n".join(text.split("\n")[:n]))
    for _ in range(300):
        entries = [("i", "f", "solidity", rng.choice(texts), None) for _ in range(rng.randint(1, 4))]
        scored = [rng.choice(texts) for _ in entries]
        for a in windows:
            for b in windows:
                same = all(scoring.windowed(e[3], t, a) == scoring.windowed(e[3], t, b) for e, t in zip(entries, scored))
                assert same_cuts(entries, scored, a, b) == same, (entries, scored, a, b)


def test_file_means_are_numpys_means() -> None:
    """The aggregate's per-file means, made without a mean() call per file and metric, are
    np.mean's numbers bit for bit (a metric missing from some rows included)."""
    from replay.scoring.aggregate import _file_means

    rng = random.Random(5)
    for _ in range(300):
        by_file: dict[str, list[dict[str, float]]] = {}
        for f in range(rng.randint(1, 30)):
            rows = []
            for _ in range(rng.randint(1, 300)):
                v = {"indel": rng.random(), "exact": float(rng.random() < 0.3), "bleu": rng.random() ** 3}
                if rng.random() < 0.7:
                    v["codebleu"] = rng.random() / 3
                rows.append(v)
            by_file[f"f{f}"] = rows
        files = sorted(by_file)
        means = _file_means(by_file, files)
        for f in files:
            expected = {m: float(np.mean([v[m] for v in by_file[f] if m in v])) for m in sorted({m for v in by_file[f] for m in v})}
            assert means[f] == expected and list(means[f]) == list(expected)


def _store(tmp_path: Path) -> tuple[Path, list[FimItem]]:
    """One-line items, and a run whose completions go on past the middle; every third one was
    changed by its editor stage."""
    items = [FimItem(id=f"i{n}", file=f"F{n % 3}.sol", prefix="", middle=m, suffix="", mode="line")
             for n, m in enumerate(p["reference"] for p in GOLDEN[:60] if p["reference"].strip())]
    db = tmp_path / "s.db"
    with Store(db) as store:
        store.add_items(items)
        store.create_run("r", RunConfig(backend="llamacpp", model="m", editor="standard"))
        for n, it in enumerate(items):
            raw = it.middle.rstrip("\n") + "\n    next();\n}"
            shown = it.middle[: len(it.middle) // 2] if n % 3 == 0 else raw
            store.add_completion("r", Completion(item_id=it.id, text=raw, raw_text=raw, backend="llamacpp", model="m",
                                                 stage="standard", shown_text=shown))
    return db, items


def test_another_window_or_text_reuses_the_stored_scores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from replay.usecases.score import report, score_result

    db, items = _store(tmp_path)
    with Store(db) as store:
        first = score_result(store, "r", lines="auto").to_json()
        assert first["n_scored"] == len(items) and first["n_reused"] == 0
        # One-line references: `--lines 1` cuts the same texts as `auto`; nothing is scored again.
        again = score_result(store, "r", lines=1).to_json()
        assert again["n_scored"] == 0 and again["n_reused"] == len(items)
        assert again["mean"] == first["mean"] and again["per_file"] == first["per_file"]
        # The raw text: the same cut texts where the editor showed the raw text unchanged.
        raw = score_result(store, "r", lines="auto", text="raw").to_json()
        changed = sum(1 for n in range(len(items)) if n % 3 == 0)
        assert raw["n_scored"] == changed and raw["n_reused"] == len(items) - changed
        # The whole texts: every completion has more lines than the reference.
        whole = score_result(store, "r", lines="all").to_json()
        assert whole["n_scored"] == len(items)
        # Each score is stored once, under the first text and window that needed it.
        kept = store.score_sets("r")
        assert {k: len(v.entries) for k, v in kept.items()} == {"shown:lines=auto": len(items), "raw:lines=auto": changed,
                                                               "shown:lines=all": len(items)}
        fresh = scoring.score_rows([(it.id, it.file, it.language, it.middle, c.scored_text("raw"))
                                    for it, c in zip(items, store.completions("r"))], "auto", workers=1)
        raw_rows = scoring.run_scores(store, "r", "raw", "auto").rows
        assert [row.values for row in raw_rows] == [row.values for row in fresh]  # reused numbers are the scored ones
        # A report of scored runs scores nothing.
        monkeypatch.setattr("replay.scoring.runs.score_many", lambda *a, **k: pytest.fail("scored again"))
        for lines in ("auto", 1, "all"):
            assert "fimreplay report" in report(store, ["r"], "md", lines=lines).page
        assert score_result(store, "r", lines="all").to_json()["n_reused"] == len(items)
