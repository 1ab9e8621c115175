"""An anytime-valid paired comparison: look at the files one at a time, stop as soon as it is decided.

Peeking at a fixed-size interval (replay.reports.compare's bootstrap) after every item and stopping
when it excludes zero is not valid: every look is another chance of a false verdict. A confidence
sequence is an interval valid at every look at once (time-uniform), so a comparison may stop at
the first look where it decides, whenever that is. Two are offered (`METHODS`):

- "betting" (the default), valid at every number of files with nothing assumed but that the
  differences are bounded: `ConfidenceSequence`, a betting confidence sequence of Waudby-Smith and
  Ramdas (JRSS B 2024). Its price is the bound itself: no method that assumes only boundedness
  can decide much faster (see the class), some 27 files for a difference of 0.12 at alpha 0.05.
- "asymptotic": `AsymptoticSequence`, the asymptotic confidence sequence of Waudby-Smith, Arbour,
  Sinha, Kennedy and Ramdas (Annals of Statistics 2024), valid as the number of files grows (a time-uniform
  central limit theorem) and as wide as the differences' spread, not their range: on per-file
  differences spread far less than their range it decides with about half the files. Its error
  rate at a few dozen files is measured by simulation in the tests, not proved.

The unit treated as independent is the file: items of one file share its code and are
correlated, so each file's mean difference B − A over its paired items (in [-1, 1] for metrics in
[0, 1]) is one observation, X = (D + 1) / 2, and a file is used whole (a comparison stops between
files, never inside one). The files are visited in a seeded random order (numpy's PCG64 seeded by
`seed`, a permutation of the sorted file names), so that the order carries no information (files
sorted by name are sorted by folder, and folders differ). The mean estimated is that of per-file
differences over the population the files are drawn from: the quantity the fixed-size bootstrap
interval is about too.

Verdicts, at the first look where one holds: "B better" (the interval lies above 0), "A better"
(below), "no difference beyond ±M" (it lies inside (−M, M); only with a margin); else, when the
files run out, "undecided". All verdicts are read off the one sequence, so together they are
wrong with probability at most alpha (for "asymptotic": about alpha, as the files grow many).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from replay.reports.compare import paired_files
from replay.scoring import HEADLINE, ScoredItem

UNIT = "file"
GRID = 2000  # candidate means on [0, 1]: a step of 0.001 on the difference scale
TRUNCATION = 0.9  # c of the bets' truncation to [-c/(1 - m), c/m]
T_OPT = 10  # files where the asymptotic sequence is narrowest
PRIOR_VAR = 0.25  # the asymptotic sequence's fake observation's variance
MIN_FILES = 5  # files before the asymptotic sequence draws an interval
VERDICTS = ("A better", "B better", "no difference beyond ±M", "undecided")


class IntervalSequence:
    """What every confidence sequence here shares: its level, the interval after the looks so far
    (all of [-1, 1] before any), and the observations' range."""

    name: str
    description: str

    def __init__(self, alpha: float = 0.05) -> None:
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
        self.alpha = alpha
        self.t = 0
        self.interval = (-1.0, 1.0)

    def update(self, difference: float) -> tuple[float, float]:
        """Take one observation (a difference in [-1, 1]) and return the interval after it."""
        if not -1.0 <= difference <= 1.0:
            raise ValueError(f"a difference must lie in [-1, 1], got {difference}")
        self.t += 1
        return self._look(difference)

    def _look(self, difference: float) -> tuple[float, float]:
        raise NotImplementedError


class ConfidenceSequence(IntervalSequence):
    """The betting confidence sequence for the mean of observations in [-1, 1], updated one
    observation at a time.

    The method: a betting confidence sequence of Waudby-Smith and Ramdas, "Estimating means of
    bounded random variables by betting", JRSS B 86(1), 2024 (arXiv:2010.09686): their Theorem 3 (a
    capital process with predictable bets is a test martingale for each candidate mean, and the
    candidates it has not rejected form a confidence sequence) with their aGRAPA bets (Section 5,
    "approximate growth rate adaptive to the particular alternative"), computed on a grid of
    candidate means as their Section 5 does. For observations X_t in [0, 1] and a candidate mean m:

    - K_t(m) = prod (1 + l_i(m) (X_i - m)); under mean m it is a nonnegative martingale, so by
      Ville's inequality P(exists t: K_t(m) >= 1/alpha) <= alpha, and the set {m : K_t(m) < 1/alpha}
      covers the mean at every t at once with probability at least 1 - alpha;
    - the bets are predictable (they use X_1..X_{i-1} only): l_i(m) = (mu_{i-1} - m) / (s2_{i-1} +
      (mu_{i-1} - m)^2), with mu_t = (1/2 + sum X) / (t + 1) and s2_t = (1/4 + sum (X_i - mu_i)^2) /
      (t + 1) (one fake observation of mean 1/2 and variance 1/4), truncated to [-c/(1 - m), c/m];
      c = 0.9 (the authors' package below truncates its hedged bets at 1/2 and these at 1): a file
      multiplies a candidate's capital by 1 + c (X - m) / m at most, the per-file differences of two
      models lie near 0 (m near 1/2), and there c = 1/2 needs half again as many files (simulated);
      c < 1 keeps one file at the end of the range from zeroing a candidate's capital for good;
    - the grid has GRID steps; a candidate once rejected stays rejected (the running intersection,
      valid since the sets are time-uniform), and the interval is the hull of the candidates left,
      widened by one step on each side (the boundary lies between a rejected and a kept point).
    The same facts (the fake observation's mean and variance, the bets' form and truncation, the
    grid and its one-step widening) are those of the authors' `confseq` package
    (github.com/gostevehoward/confseq, src/confseq/betting_strategies.py `lambda_aKelly`,
    src/confseq/betting.py `cs_from_martingale`).

    No method that assumes only that the differences are bounded can decide much faster: the capital
    of a candidate m grows by at most E log(X / m) a file (the bet l = 1/m), so a difference of 0.12
    on [-1, 1] (m = 1/2, X near 0.56) needs about log(1/alpha) / 0.11, some 27 files, at alpha 0.05.
    """

    name = "betting"
    description = "betting confidence sequence, aGRAPA bets (Waudby-Smith & Ramdas 2024, JRSS B)"

    def __init__(self, alpha: float = 0.05) -> None:
        super().__init__(alpha)
        self.m = np.linspace(0.0, 1.0, GRID + 1)
        with np.errstate(divide="ignore"):
            self._low = -TRUNCATION / (1.0 - self.m)  # -inf at m = 1
            self._high = TRUNCATION / self.m  # inf at m = 0
        self._log_capital = np.zeros_like(self.m)
        self._kept = np.ones_like(self.m, dtype=bool)
        self._threshold = math.log(1 / alpha)
        self._sum = 0.0
        self._sum_sq = 0.0  # sum of (X_i - mu_i)^2
        self._mean, self._var = 0.5, 0.25  # mu_0, s2_0: the fake observation

    def _look(self, difference: float) -> tuple[float, float]:
        x = (difference + 1.0) / 2.0
        gap = self._mean - self.m
        bets = np.clip(gap / (self._var + gap * gap), self._low, self._high)
        self._log_capital += np.log1p(bets * (x - self.m))
        self._kept &= self._log_capital < self._threshold
        self._sum += x
        self._mean = (0.5 + self._sum) / (self.t + 1)
        self._sum_sq += (x - self._mean) ** 2
        self._var = (0.25 + self._sum_sq) / (self.t + 1)
        kept = np.flatnonzero(self._kept)
        if len(kept):  # none kept: the 1 - alpha event failed; the last interval stays
            step = 1.0 / GRID
            lo, hi = max(0.0, self.m[kept[0]] - step), min(1.0, self.m[kept[-1]] + step)
            self.interval = (2 * lo - 1, 2 * hi - 1)
        return self.interval


class AsymptoticSequence(IntervalSequence):
    """The asymptotic confidence sequence for the mean of observations in [-1, 1]: Waudby-Smith,
    Arbour, Sinha, Kennedy and Ramdas, "Time-uniform central limit theory and asymptotic confidence
    sequences", Annals of Statistics 52(6), 2024 (arXiv:2103.06476), their Theorem 2.2 (the
    Gaussian mixture boundary of Robbins, with the sample variance in place of the known one):

        mean_t ± s_t · sqrt(2 (t r² + 1) / (t² r²) · log(sqrt(t r² + 1) / alpha))

    covers the mean at every t at once with probability tending to 1 - alpha as the start of the
    looks grows. It is a CLT's interval made time-uniform: its width follows the differences'
    spread, where a bound-only method (`ConfidenceSequence`) pays for their range. The tuning
    r² = (-2 log alpha + log(-2 log alpha + 1)) / T_OPT makes it narrowest near T_OPT files (the
    authors' closed form of the optimal r²; any r² keeps the guarantee).

    Three choices make it more cautious than the theorem needs at a few dozen files, where the
    sample variance of a handful of files can be far too small (two files with the same difference
    would give a zero-width interval): the variance counts one fake observation with variance
    PRIOR_VAR (a quarter of the largest a difference in [-1, 1] can have) — s_t² = (PRIOR_VAR +
    sum (D_i - mean_t)²) / (t + 1) —, no interval is drawn before MIN_FILES files, and, as for the
    betting sequence, the running intersection is kept (the interval never widens). Its error rate
    at 20–60 files is measured in the tests (A/A comparisons), not proved.
    """

    name = "asymptotic"
    description = "asymptotic confidence sequence (Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas 2024, Ann. Statist.)"

    def __init__(self, alpha: float = 0.05) -> None:
        super().__init__(alpha)
        a = -2 * math.log(alpha)
        self._r2 = (a + math.log(a + 1)) / T_OPT
        self._mean = 0.0
        self._m2 = 0.0  # sum of squared deviations from the running mean (Welford)

    def _look(self, difference: float) -> tuple[float, float]:
        step = difference - self._mean
        self._mean += step / self.t
        self._m2 += step * (difference - self._mean)
        if self.t < MIN_FILES:
            return self.interval
        t, r2 = self.t, self._r2
        spread = math.sqrt((PRIOR_VAR + self._m2) / (t + 1))
        width = spread * math.sqrt(2 * (t * r2 + 1) / (t * t * r2) * math.log(math.sqrt(t * r2 + 1) / self.alpha))
        lo, hi = max(self.interval[0], self._mean - width), min(self.interval[1], self._mean + width)
        if lo <= hi:  # empty: the 1 - alpha event failed; the last interval stays
            self.interval = (lo, hi)
        return self.interval


METHODS: dict[str, type[IntervalSequence]] = {
    c.name: c for c in (ConfidenceSequence, AsymptoticSequence)}
DEFAULT_METHOD = "betting"


def describe(method: str) -> str:
    """The method's name as reports print it (with its reference)."""
    return METHODS[method].description


def decide(interval: tuple[float, float], margin: float | None) -> str | None:
    """The verdict an interval of B − A gives, or None while it gives none."""
    lo, hi = interval
    if lo > 0:
        return "B better"
    if hi < 0:
        return "A better"
    if margin is not None and -margin < lo and hi < margin:
        return "no difference beyond ±M"
    return None


def file_order(files: Iterable[str], seed: int) -> list[str]:
    """The files in the seeded random order a sequential comparison visits them in."""
    names = sorted(set(files))
    return [names[i] for i in np.random.default_rng(seed).permutation(len(names))]


@dataclass(frozen=True)
class Sequential:
    """A sequential comparison of B against A: its verdict, the interval when it stopped, and how
    much of the paired items it used."""

    metric: str
    verdict: str
    interval: tuple[float, float]
    mean_diff: float  # mean of the per-file differences used
    items_used: int
    n_items: int
    units_used: int
    n_units: int
    alpha: float
    margin: float | None
    seed: int
    n_only_a: int = 0
    n_only_b: int = 0
    method: str = DEFAULT_METHOD
    unit: str = UNIT

    def verdict_text(self, a: str = "A", b: str = "B") -> str:
        if self.verdict == "no difference beyond ±M":
            return f"no difference beyond ±{self.margin:g}"
        return {"A better": f"{a} better", "B better": f"{b} better"}.get(self.verdict, self.verdict)

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "items_used": self.items_used, "n_items": self.n_items,
                "units_used": self.units_used, "n_units": self.n_units, "interval": list(self.interval),
                "mean_diff": self.mean_diff, "metric": self.metric, "method": self.method,
                "method_reference": describe(self.method), "unit": self.unit,
                "alpha": self.alpha, "margin": self.margin, "seed": self.seed, "n_only_a": self.n_only_a,
                "n_only_b": self.n_only_b}

    def summary(self, a: str = "A", b: str = "B") -> str:
        line = (f"{self.metric} {b} − {a}: {self.mean_diff:+.4f}, {1 - self.alpha:.0%} confidence sequence "
                f"[{self.interval[0]:+.4f}, {self.interval[1]:+.4f}] after {self.units_used} of {self.n_units} "
                f"{self.unit}s ({self.items_used} of {self.n_items} items, seed {self.seed}): "
                f"{self.verdict_text(a, b)}; {describe(self.method)}")
        if self.n_only_a or self.n_only_b:
            line += f"; unpaired: {self.n_only_a} only in {a}, {self.n_only_b} only in {b}"
        return line


class SequentialTest:
    """A sequential comparison fed one file at a time (its per-file mean difference and its item
    count), as a leaderboard replays them; `verdict` is None until decided."""

    def __init__(self, alpha: float = 0.05, margin: float | None = None, method: str = DEFAULT_METHOD) -> None:
        self.cs = METHODS[method](alpha)
        self.method = method
        self.margin = margin
        self.items = 0
        self.diffs: list[float] = []
        self.verdict: str | None = None

    def look(self, difference: float, items: int) -> str | None:
        """Add one file; the verdict once decided (later files are refused)."""
        if self.verdict is not None:
            raise ValueError("the comparison is decided already")
        self.diffs.append(difference)
        self.items += items
        self.verdict = decide(self.cs.update(max(-1.0, min(1.0, difference))), self.margin)
        return self.verdict

    def result(self, metric: str, n_items: int, n_units: int, seed: int, only: tuple[int, int] = (0, 0)) -> Sequential:
        """The comparison as it stands ("undecided" while no verdict holds)."""
        mean = float(np.mean(self.diffs)) if self.diffs else 0.0
        return Sequential(metric=metric, verdict=self.verdict or "undecided", interval=self.cs.interval, mean_diff=mean,
                          items_used=self.items, n_items=n_items, units_used=len(self.diffs), n_units=n_units,
                          alpha=self.cs.alpha, margin=self.margin, seed=seed, n_only_a=only[0], n_only_b=only[1],
                          method=self.method)


def sequential(a: Iterable[ScoredItem], b: Iterable[ScoredItem], metric: str = HEADLINE, alpha: float = 0.05,
               margin: float | None = None, seed: int = 0, method: str = DEFAULT_METHOD) -> Sequential:
    """Pair A's and B's scored items by id (as compare.paired does) and compare them file by file in
    the seeded order, stopping at the first decided look."""
    files, only_a, only_b, _ = paired_files(a, b, metric)
    test = SequentialTest(alpha, margin, method)
    order = file_order(files, seed)
    for name in order:
        pairs = files[name]
        if test.look(file_difference(pairs), len(pairs)) is not None:
            break
    n_items = sum(len(p) for p in files.values())
    return test.result(metric, n_items, len(order), seed, (len(only_a), len(only_b)))


def file_difference(pairs: Sequence[tuple[float, float]]) -> float:
    """A file's mean difference B − A over its paired (a, b) values."""
    return float(np.mean([vb - va for va, vb in pairs]))
