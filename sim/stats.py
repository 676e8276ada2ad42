"""Confidence intervals and summary statistics from integer counts."""
from __future__ import annotations

import math
from fractions import Fraction

from scipy import stats as _stats

#: Below this many successes (or failures), intervals are Clopper-Pearson rather than Wilson.
TINY_COUNT = 10


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion."""
    if trials <= 0:
        raise ValueError("trials must be positive")
    z = float(_stats.norm.ppf(0.5 + confidence / 2))
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def clopper_pearson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper-Pearson) binomial interval: conservative, used where counts are tiny."""
    if trials <= 0:
        raise ValueError("trials must be positive")
    alpha = 1 - confidence
    low = 0.0 if successes == 0 else float(_stats.beta.ppf(alpha / 2, successes, trials - successes + 1))
    high = 1.0 if successes == trials else float(_stats.beta.ppf(1 - alpha / 2, successes + 1, trials - successes))
    return low, high


def binomial_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[tuple[float, float], str]:
    """Wilson, or Clopper-Pearson when successes or failures number fewer than :data:`TINY_COUNT`.

    Returns ``((low, high), method_name)``.
    """
    if min(successes, trials - successes) < TINY_COUNT:
        return clopper_pearson_interval(successes, trials, confidence), "clopper-pearson"
    return wilson_interval(successes, trials, confidence), "wilson"


def bracket_interval(successes: int, undecided: int, trials: int, confidence: float = 0.95):
    """Solvitaire-style interval: undecided cases count as failures for the low bound and as
    successes for the high bound."""
    (low, _), _ = binomial_interval(successes, trials, confidence)
    (_, high), _ = binomial_interval(successes + undecided, trials, confidence)
    return low, high


def mean_from_counts(counts) -> Fraction:
    """Exact mean of a distribution given as counts per value (index = value)."""
    total = sum(int(c) for c in counts)
    return Fraction(sum(int(c) * v for v, c in enumerate(counts)), total)


def mean_and_se(counts) -> tuple[float, float]:
    """Mean and its standard error (sample standard deviation / sqrt(n)) from counts per value."""
    n = sum(int(c) for c in counts)
    s1 = sum(int(c) * v for v, c in enumerate(counts))
    s2 = sum(int(c) * v * v for v, c in enumerate(counts))
    mean = Fraction(s1, n)
    if n < 2:
        return float(mean), float("nan")
    var = (Fraction(s2, n) - mean * mean) * Fraction(n, n - 1)
    return float(mean), math.sqrt(float(var) / n)
