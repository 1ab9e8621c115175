"""The sequential comparison: its validity and power by simulation (seeded, deterministic), its
verdicts and order, and `compare --sequential` end to end on `score` JSONL files.

The simulated streams have what real comparisons have: items of one file share a file effect
(a hard file is hard for both models), per-item scores are clipped to [0, 1], and the per-file
difference is the mean of that file's item differences."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from replay.reports.compare import paired
from replay.reports.confidence_sequences import DEFAULT_METHOD, MIN_FILES, AsymptoticSequence, ConfidenceSequence
from replay.reports.sequential import SequentialTest, decide, file_order, sequential
from replay.scoring import ScoredItem

ALPHA = 0.05


def stream(rng: np.random.Generator, files: int, shift: float, per_file: int = 3) -> list[ScoredItem]:
    """A's and B's items of one simulated comparison, B − A = `shift` on average; A first."""
    a, b = [], []
    for f in range(files):
        hard = rng.uniform(0.2, 0.9)  # the file effect both models share
        for k in range(per_file):
            item = f"f{f}-{k}"
            a.append(ScoredItem(item, f"f{f}.sol", {"indel": float(np.clip(hard + rng.normal(0, 0.2), 0, 1))}))
            b.append(ScoredItem(item, f"f{f}.sol", {"indel": float(np.clip(hard + shift + rng.normal(0, 0.2), 0, 1))}))
    return a + b


def halves(rows: list[ScoredItem]) -> tuple[list[ScoredItem], list[ScoredItem]]:
    return rows[: len(rows) // 2], rows[len(rows) // 2 :]


def method_of(method: str) -> dict[str, str]:
    """`sequential`'s keyword for a method; none for "default" (what `compare --sequential` uses)."""
    return {} if method == "default" else {"method": method}


def test_the_default_is_the_asymptotic_sequence() -> None:
    assert DEFAULT_METHOD == "asymptotic" and SequentialTest(ALPHA).method == "asymptotic"


@pytest.mark.parametrize("method", ["default", "betting"])
def test_a_against_a_declares_a_winner_at_most_at_the_rate_alpha(method: str) -> None:
    """400 A/A comparisons (exchangeable models, 40 files of 3 correlated items, looked at after
    every file): the share that names a winner stays under alpha plus three binomial standard
    errors (the sequence is valid at every look, so peeking costs nothing)."""
    rng = np.random.default_rng(27)
    runs = 400
    winners = 0
    for n in range(runs):
        a, b = halves(stream(rng, 40, 0.0))
        result = sequential(a, b, "indel", ALPHA, seed=n, **method_of(method))
        winners += result.verdict in ("A better", "B better")
        assert (result.shortfall is None) == (result.verdict != "undecided")
    assert winners / runs <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / runs)


@pytest.mark.parametrize("files", [10, 20, 60])
@pytest.mark.parametrize("shape", ["normal", "ties", "outliers"])
def test_the_asymptotic_sequence_holds_its_error_rate_at_a_few_dozen_files(files: int, shape: str) -> None:
    """The asymptotic sequence is proved valid only as the files grow many: its A/A error rate is
    measured where comparisons live (10–60 files) on per-file differences of the shapes real ones
    have — spread normally, mostly exact ties (both models right on most files), or mostly tiny
    with a few large ones — looked at after every file. 1,000 comparisons each: at most alpha
    plus three binomial standard errors name a winner."""
    rng = np.random.default_rng(files * 7 + len(shape))
    runs = 1000
    winners = 0
    for _ in range(runs):
        if shape == "normal":
            diffs = rng.normal(0, 0.125, files)
        elif shape == "ties":
            diffs = np.where(rng.random(files) < 0.6, 0.0, rng.normal(0, 0.3, files))
        else:
            diffs = np.where(rng.random(files) < 0.1, rng.choice([-0.6, 0.6], files), rng.normal(0, 0.03, files))
        cs = AsymptoticSequence(ALPHA)
        winners += any(decide(cs.update(float(d)), None) for d in np.clip(diffs, -1, 1))
    assert winners / runs <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / runs)


def test_the_asymptotic_sequence_decides_a_narrowly_spread_difference_with_fewer_files() -> None:
    """Per-file differences of mean 0.12 spread 0.125 (the shape of Qwen2.5-Coder 1.5B against
    0.5B on new Solidity code): the betting sequence needs some 27 files at least (its bound, see
    the module), the asymptotic one decides the right way before it, in each of 50 streams of 63
    files, never before MIN_FILES files, and in half of them with at most a third of the files."""
    rng = np.random.default_rng(4)
    asymptotic = []
    for _ in range(50):
        diffs = np.clip(rng.normal(0.12, 0.125, 63), -1, 1)
        used = {}
        for name, cs in (("betting", ConfidenceSequence(ALPHA)), ("asymptotic", AsymptoticSequence(ALPHA))):
            for t, d in enumerate(diffs, 1):
                if decide(cs.update(float(d)), None):
                    used[name] = (t, decide(cs.interval, None))
                    break
        assert used["asymptotic"][1] == "B better" and MIN_FILES <= used["asymptotic"][0]
        assert used["asymptotic"][0] < used.get("betting", (64, None))[0]
        asymptotic.append(used["asymptotic"][0])
    assert np.median(asymptotic) <= 63 / 3


def test_the_sequence_covers_the_mean_at_every_look() -> None:
    """Differences of known mean 0.1: the interval holds it after every one of 200 looks, in at
    least 1 − alpha of 200 streams (time-uniform coverage, not only at the end)."""
    rng = np.random.default_rng(5)
    missed = 0
    for _ in range(200):
        cs = ConfidenceSequence(ALPHA)
        xs = np.clip(rng.normal(0.1, 0.3, 200), -1, 1)
        mean = float(np.mean(np.clip(rng.normal(0.1, 0.3, 200_000), -1, 1)))
        missed += any(not lo <= mean <= hi for lo, hi in (cs.update(float(x)) for x in xs))
    assert missed / 200 <= ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / 200)


@pytest.mark.parametrize("method", ["default", "betting"])
@pytest.mark.parametrize("shift", [0.25, -0.25])
def test_a_clear_difference_names_the_right_winner_with_at_most_half_the_items(shift: float, method: str) -> None:
    """A clear difference (0.25 on 60 files of 3 items): in each of 50 streams the right model
    is named using at most half the items, and the fixed-size paired bootstrap over all the items
    names the same one."""
    rng = np.random.default_rng(11 if shift > 0 else 12)
    right = "B better" if shift > 0 else "A better"
    for n in range(50):
        a, b = halves(stream(rng, 60, shift))
        result = sequential(a, b, "indel", ALPHA, seed=n, **method_of(method))
        assert result.verdict == right and result.method == ("asymptotic" if method == "default" else method)
        assert result.shortfall is None
        assert result.items_used <= result.n_items / 2 and result.units_used <= result.n_units / 2
        assert paired(a, b, "indel", seed=n).verdict == right
        lo, hi = result.interval
        assert (lo > 0) if shift > 0 else (hi < 0)


def test_a_small_difference_the_fixed_size_interval_sees_is_decided_by_default() -> None:
    """Per-file differences of 0.09 spread 0.1 over 40 files: the fixed-size bootstrap says "B
    better" far from zero; the default sequence says so too, while betting cannot (a difference of
    0.09 needs at least log(20) / log(1.09), 35 files, and more as they spread) and says why."""
    z = np.random.default_rng(9).normal(size=40)
    diffs = 0.09 + 0.1 * (z - z.mean()) / z.std()  # mean 0.09 exactly, spread 0.1
    a = [ScoredItem(f"i{f}", f"f{f}.sol", {"indel": 0.5}) for f in range(40)]
    b = [ScoredItem(f"i{f}", f"f{f}.sol", {"indel": 0.5 + d}) for f, d in enumerate(diffs)]
    fixed = paired(a, b, "indel", seed=0)
    assert fixed.verdict == "B better" and fixed.ci95[0] > 0.05
    default = sequential(a, b, "indel", ALPHA, seed=0)
    assert default.verdict == "B better" and default.method == "asymptotic" and default.units_used < 40
    betting = sequential(a, b, "indel", ALPHA, seed=0, method="betting")
    assert betting.verdict == "undecided" and betting.units_used == 40
    why = betting.shortfall
    assert why is not None and why.files_needed == math.ceil(math.log(1 / ALPHA) / math.log1p(abs(betting.mean_diff))) == 35
    assert "fewer than 35" not in why.reason and "at least 35 files" in why.reason and "--method asymptotic" in why.reason
    out = betting.to_json()["why_undecided"]
    assert out["files_needed"] == 35 and out["half_width"] == pytest.approx((betting.interval[1] - betting.interval[0]) / 2)
    assert out["bound"].startswith("log(1/alpha) / log(1 + |d|)") and out["reason"] == why.reason
    assert betting.summary().splitlines()[1] == f"undecided: {why.reason}"
    assert default.to_json()["why_undecided"] is None and "\n" not in default.summary()


@pytest.mark.parametrize("d", [0.05, 0.09, 0.12, 0.3])
def test_betting_never_decides_before_its_bound(d: float) -> None:
    """The betting bound is a floor: fed the same difference d on every file (no spread at all,
    its easiest case), the sequence decides no sooner than log(1/alpha) / log(1 + d) files, and
    a run cut short before that says it needs that many."""
    cs = ConfidenceSequence(ALPHA)
    need = cs.files_to_decide(d)
    assert need == math.ceil(math.log(1 / ALPHA) / math.log1p(d))
    t = 0
    while decide(cs.interval, None) is None:
        cs.update(d)
        t += 1
        if t == need - 1:
            short = cs.shortfall(d)
            assert short.files_needed == need and f"fewer than {need} files" in short.reason
    assert t >= need
    assert cs.files_to_decide(-d) == need and cs.files_to_decide(0.0) is None


def test_the_asymptotic_shortfall_says_about_how_many_files_would_decide() -> None:
    """An undecided asymptotic comparison (differences of 0.06 spread 0.15, 20 files) names the
    files that would decide a difference of that size at that spread: its half-width there falls
    below the mean and not one file sooner, and streams of the same shape run that long decide in
    about half of the cases (it is the point where the interval just clears zero)."""
    rng = np.random.default_rng(21)
    decided, needs = 0, []
    for _ in range(200):
        diffs = np.clip(rng.normal(0.06, 0.15, 2000), -1, 1)
        cs = AsymptoticSequence(ALPHA)
        for d in diffs[:20]:
            cs.update(float(d))
        if decide(cs.interval, None):
            continue
        mean = float(np.mean(diffs[:20]))
        if mean <= 0:
            continue
        need = cs.files_to_decide(mean)
        short = cs.shortfall(mean)
        assert need is not None and need > 20 and short.files_needed == need
        assert cs.width(need, cs.spread(need)) < mean <= cs.width(need - 1, cs.spread(need - 1))
        assert f"about {need} files" in short.reason and "wider than the observed difference" in short.reason
        needs.append(need)
        for d in diffs[20:need]:
            cs.update(float(d))
        decided += decide(cs.interval, None) == "B better"
    assert len(needs) >= 100
    assert 0.25 <= decided / len(needs) <= 0.9


def test_too_few_files_or_no_difference_say_so() -> None:
    cs = AsymptoticSequence(ALPHA)
    for d in (0.2, 0.3):
        cs.update(d)
    short = cs.shortfall(0.25)
    assert f"no interval is drawn before {MIN_FILES} files; it had 2" in short.reason and short.files_needed >= MIN_FILES
    assert short.half_width == 1.0
    flat = ConfidenceSequence(ALPHA)
    flat.update(0.0)
    assert flat.shortfall(0.0).files_needed is None and "no number of files" in flat.shortfall(0.0).reason
    assert AsymptoticSequence(ALPHA).shortfall(0.0).files_needed is None


def test_no_difference_within_a_margin() -> None:
    """The same model twice: the interval closes around 0, inside ±margin, and says so."""
    rng = np.random.default_rng(3)
    a, _ = halves(stream(rng, 60, 0.0))
    result = sequential(a, a, "indel", ALPHA, margin=0.1, seed=0)
    assert result.verdict == "no difference beyond ±M" and result.units_used < 60
    assert -0.1 < result.interval[0] <= 0 <= result.interval[1] < 0.1
    assert result.verdict_text() == "no difference beyond ±0.1"
    assert sequential(a, a, "indel", ALPHA, seed=0).verdict == "undecided"  # no margin: never decided


def test_verdicts_order_and_bounds() -> None:
    assert decide((0.01, 0.3), None) == "B better" and decide((-0.3, -0.01), 0.5) == "A better"
    assert decide((-0.04, 0.04), 0.05) == "no difference beyond ±M" and decide((-0.04, 0.06), 0.05) is None
    # The order is a permutation of the sorted files, the same for the same seed, another for another.
    files = [f"f{i}" for i in range(30)]
    assert sorted(file_order(files, 1)) == sorted(files) and file_order(reversed(files), 1) == file_order(files, 1)
    assert file_order(files, 1) != file_order(files, 2)
    test = SequentialTest(ALPHA)
    for _ in range(12):
        if test.look(1.0, 3):
            break
    assert test.verdict == "B better" and test.items == 3 * len(test.diffs)
    with pytest.raises(ValueError):
        test.look(0.5, 1)
    with pytest.raises(ValueError):  # a difference out of [-1, 1] is refused
        ConfidenceSequence(ALPHA).update(1.5)
    with pytest.raises(ValueError):
        ConfidenceSequence(0)
    with pytest.raises(ValueError):
        AsymptoticSequence(1.0)
    with pytest.raises(ValueError):
        AsymptoticSequence(ALPHA).update(-1.01)


def test_a_file_is_one_unit_used_whole() -> None:
    """Items of a file are looked at together: the items used are whole files' items."""
    rng = np.random.default_rng(8)
    a, b = halves(stream(rng, 30, 0.3, per_file=4))
    result = sequential(a, b, "indel", ALPHA, seed=4)
    assert result.items_used == 4 * result.units_used and result.n_units == 30 and result.n_items == 120


def write_scores(path: Path, rows: list[ScoredItem]) -> None:
    """A `score` JSONL file whose Indel values are the rows' (reference of 20 characters, the
    completion its first round(20 * value) of them: Indel 2k / (20 + k))."""
    with path.open("w") as f:
        for r in rows:
            k = round(20 * r.values["indel"])
            f.write(json.dumps({"id": r.item_id, "file": r.file, "reference": "x" * 20, "completion": "x" * k}) + "\n")


def test_compare_sequential_end_to_end(cli, tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    a, b = halves(stream(rng, 60, 0.3))
    write_scores(tmp_path / "a.jsonl", a)
    write_scores(tmp_path / "b.jsonl", b)
    db = str(tmp_path / "s.db")
    res = cli("compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--sequential", "--seed", "7", "--json", "--db", db)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["verdict"] == "B better" and out["items_used"] <= out["n_items"] / 2 and out["n_items"] == 180 and out["n_units"] == 60
    assert out["unit"] == "file" and out["alpha"] == 0.05 and out["margin"] is None and out["seed"] == 7
    assert out["method"] == "asymptotic" and "Ann. Statist." in out["method_reference"] and out["why_undecided"] is None
    assert out["items_used"] == 3 * out["units_used"] and out["interval"][0] > 0
    bet = cli("compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--sequential", "--seed", "7",
              "--method", "betting", "--json", "--db", db)
    assert bet.returncode == 0, bet.stderr
    slow = json.loads(bet.stdout)
    assert slow["verdict"] == "B better" and slow["method"] == "betting" and slow["units_used"] > out["units_used"]
    assert slow["method_reference"].startswith("betting confidence sequence")
    same = cli("compare", str(tmp_path / "a.jsonl"), str(tmp_path / "a.jsonl"), "--sequential", "--json", "--db", db)
    undecided = json.loads(same.stdout)
    assert undecided["verdict"] == "undecided" and undecided["why_undecided"]["files_needed"] is None
    assert "no number of files" in undecided["why_undecided"]["reason"]
    text = cli("compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--sequential", "--db", db)
    assert text.returncode == 0 and "b.jsonl better" in text.stdout and "confidence sequence" in text.stdout
    assert "undecided:" not in text.stdout
    aa = cli("compare", str(tmp_path / "a.jsonl"), str(tmp_path / "a.jsonl"), "--sequential", "--method", "betting", "--db", db)
    assert aa.returncode == 0 and ": undecided; betting" in aa.stdout and "\nundecided: the per-file differences average 0" in aa.stdout
    helped = cli("compare", "--help")
    assert "asymptotic (the default" in " ".join(helped.stdout.split())
    bad = cli("compare", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--sequential", "--margin", "0", "--db", db)
    assert bad.returncode == 2 and "--margin" in bad.stderr
