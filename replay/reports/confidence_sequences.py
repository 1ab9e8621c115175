"""The confidence sequences a sequential comparison is read off (replay.reports.sequential): an
interval for the mean of per-file differences in [-1, 1] that holds at every look at once, updated
one file at a time, and what each method's bound says of a comparison it has not decided.

- `AsymptoticSequence` (the default): the asymptotic confidence sequence of Waudby-Smith, Arbour,
  Sinha, Kennedy and Ramdas (Annals of Statistics 2024), as wide as the differences' spread.
- `ConfidenceSequence`: the betting confidence sequence of Waudby-Smith and Ramdas (JRSS B 2024),
  valid at every number of files assuming only that the differences are bounded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

GRID = 2000  # candidate means on [0, 1]: a step of 0.001 on the difference scale
TRUNCATION = 0.9  # c of the bets' truncation to [-c/(1 - m), c/m]
T_OPT = 10  # files where the asymptotic sequence is narrowest
PRIOR_VAR = 0.25  # the asymptotic sequence's fake observation's variance
MIN_FILES = 5  # files before the asymptotic sequence draws an interval


@dataclass(frozen=True)
class Shortfall:
    """Why a comparison ended undecided, by its method's bound: how many files would decide a mean
    difference of the size observed (None: the observed mean is 0, and no number of files decides
    a side), the interval's half-width when the files ran out, and the reason in words."""

    files_needed: int | None
    half_width: float
    bound: str  # how files_needed is reckoned
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"files_needed": self.files_needed, "half_width": self.half_width, "bound": self.bound,
                "reason": self.reason}


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

    def shortfall(self, mean: float) -> Shortfall:
        """Why the looks so far decide no side of a mean difference `mean` (the mean of the
        per-file differences seen): the method's bound on the files that would."""
        raise NotImplementedError

    def half_width(self) -> float:
        return (self.interval[1] - self.interval[0]) / 2


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

    def files_to_decide(self, mean: float) -> int | None:
        """The fewest files in which any bet could decide a mean difference `mean`: the capital
        of the candidate "no difference" grows by at most log(1 + |d|) a file (the bet 1/m at
        m = 1/2) and must reach 1/alpha, so at least log(1/alpha) / log(1 + |d|) files, whatever
        the spread (more when the per-file differences spread). None for a mean of 0."""
        if mean == 0:
            return None
        return math.ceil(math.log(1 / self.alpha) / math.log1p(abs(mean)))

    def shortfall(self, mean: float) -> Shortfall:
        need = self.files_to_decide(mean)
        bound = "log(1/alpha) / log(1 + |d|): the fewest files any bet decides a mean difference d in"
        if need is None:
            reason = "the per-file differences average 0: no number of files decides a side"
        elif need > self.t:
            reason = (f"the betting sequence cannot decide a difference of {abs(mean):.4f} in fewer than {need} files "
                      f"(log(1/alpha) / log(1 + |d|), whatever the spread); it had {self.t}")
        else:
            reason = (f"the betting sequence needs at least {need} files for a difference of {abs(mean):.4f} "
                      f"(log(1/alpha) / log(1 + |d|)) and more as the per-file differences spread; {self.t} were not enough")
        return Shortfall(need, self.half_width(), bound, reason + "; --method asymptotic decides from the spread")


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
        width = self.width(self.t, self.spread(self.t))
        lo, hi = max(self.interval[0], self._mean - width), min(self.interval[1], self._mean + width)
        if lo <= hi:  # empty: the 1 - alpha event failed; the last interval stays
            self.interval = (lo, hi)
        return self.interval

    def spread(self, t: int) -> float:
        """s_t, the fake observation counted: at the files seen (t = self.t) the boundary's own;
        at another t, what it would be with the per-file differences spread as they have been (the
        sum of squared deviations t times its mean per file so far)."""
        return math.sqrt((PRIOR_VAR + self._m2 * t / self.t) / (t + 1))

    def width(self, t: int, spread: float) -> float:
        """The half-width of the interval at t files for a spread s_t (the boundary above)."""
        r2 = self._r2
        return spread * math.sqrt(2 * (t * r2 + 1) / (t * t * r2) * math.log(math.sqrt(t * r2 + 1) / self.alpha))

    def files_to_decide(self, mean: float) -> int | None:
        """The files at which the half-width, at the spread seen so far, falls below |mean|: about
        when a mean difference of that size would be decided (None for a mean of 0, or before
        any file). The half-width shrinks as t grows (about sqrt(log t / t))."""
        if mean == 0 or self.t == 0:
            return None

        def narrow(t: int) -> bool:
            return t >= MIN_FILES and self.width(t, self.spread(t)) < abs(mean)

        high = MIN_FILES
        while not narrow(high):
            high *= 2
        low = high // 2  # not narrow (or below MIN_FILES); high is
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (low, mid) if narrow(mid) else (mid, high)
        return high

    def shortfall(self, mean: float) -> Shortfall:
        need = self.files_to_decide(mean)
        bound = ("the files at which the half-width s_t sqrt(2 (t r^2 + 1) / (t^2 r^2) log(sqrt(t r^2 + 1) / alpha)), "
                 "at the spread seen, falls below the observed |mean difference|")
        if self.t < MIN_FILES:
            reason = f"no interval is drawn before {MIN_FILES} files; it had {self.t}"
        else:
            reason = (f"the interval's half-width {self.half_width():.4f} is wider than the observed difference "
                      f"{abs(mean):.4f}")
        if need is None:
            reason += "; the per-file differences average 0: no number of files decides a side"
        else:
            reason += (f"; at the spread seen (s_t = {self.spread(self.t):.4f}) about {need} files would decide "
                       f"a difference of this size")
        return Shortfall(need, self.half_width(), bound, reason)


METHODS: dict[str, type[IntervalSequence]] = {
    c.name: c for c in (AsymptoticSequence, ConfidenceSequence)}
DEFAULT_METHOD = "asymptotic"


def describe(method: str) -> str:
    """The method's name as reports print it (with its reference)."""
    return METHODS[method].description
