"""Hand Solitaire statistics: the figures of the published histogram of iterations to win, and their
printed form (used by ``solitaire simulate --game hand`` and the report).

The kernels (:mod:`sim.kernels.hand`) count runs per iteration of the win; this module turns those
counts into shares with intervals.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .stats import binomial_interval, mean_and_se


def _median_with_interval(counts, confidence_z: float = 1.959963984540054):
    """Median of a distribution given as counts per value, with a distribution-free 95% interval
    (the order statistics at ranks ``n/2 -+ z sqrt(n)/2``)."""
    n = int(sum(counts))
    if n == 0:
        return None, [None, None]
    cumulative = np.cumsum(np.asarray(counts, dtype=np.int64))

    def value_at(rank):  # rank in 1..n
        rank = min(max(int(rank), 1), n)
        return int(np.searchsorted(cumulative, rank))

    half = confidence_z * np.sqrt(n) / 2
    median = value_at((n + 1) // 2)
    return median, [value_at(np.floor(n / 2 - half)), value_at(np.ceil(n / 2 + 1 + half))]


def iteration_statistics(iterations_to_win, games: int, capped: int) -> dict:
    """The figures of the published Hand Solitaire histogram, each with a 95% interval.

    ``iterations_to_win[i]`` is the number of runs won on iteration ``i`` (index 0 unused). Returns
    ``p_win_within`` ({"1"/"10"/"25": [p, low, high]}, runs won on or before that iteration; absent
    when the cap is smaller), the mean iterations to win among runs won within the cap (with its
    standard error), the median (with a distribution-free 95% interval), and ``p_capped`` (the share
    of runs that reached the cap, [p, low, high]).
    """
    counts = [int(c) for c in iterations_to_win]
    out: dict = {"p_win_within": {}}
    for last in (1, 10, 25):
        if last < len(counts):
            won = sum(counts[1:last + 1])
            (low, high), _ = binomial_interval(won, games)
            out["p_win_within"][str(last)] = [won / games, low, high]
    if sum(counts):
        mean, se = mean_and_se(counts)
        out["mean_iterations_to_win"], out["mean_iterations_to_win_se"] = mean, se
    median, interval = _median_with_interval(counts)
    out["median_iterations_to_win"], out["median_iterations_to_win_ci95"] = median, interval
    (low, high), _ = binomial_interval(capped, games)
    out["p_capped"] = [capped / games, low, high]
    return out


def with_iteration_statistics(result, cap: int):
    """A copy of a Hand Solitaire :class:`~sim.montecarlo.SimulationResult` whose ``extra`` also
    holds ``cap`` and ``iteration_stats`` (:func:`iteration_statistics`)."""
    stats = iteration_statistics(result.extra["iterations_to_win"], result.games, result.extra["capped"])
    return dataclasses.replace(result, extra={**result.extra, "cap": int(cap), "iteration_stats": stats})


def describe_iteration_statistics(extra: dict) -> str:
    """Human-readable lines for ``extra`` of :func:`with_iteration_statistics`."""
    stats = extra["iteration_stats"]
    lines = [f"cap {extra['cap']:,} iterations; score = cards left at the end of the final iteration played"]
    for last, (p, low, high) in stats["p_win_within"].items():
        label = "first iteration" if last == "1" else f"within {last}"
        lines.append(f"won {label}: {p:.4%}  95% CI [{low:.4%}, {high:.4%}]")
    if "mean_iterations_to_win" in stats:
        low, high = stats["median_iterations_to_win_ci95"]
        lines.append(f"iterations to win (runs won within the cap): mean {stats['mean_iterations_to_win']:.3f}"
                     f" +- {stats['mean_iterations_to_win_se']:.3f} (s.e.), median {stats['median_iterations_to_win']}"
                     f" 95% CI [{low}, {high}]")
    p, low, high = stats["p_capped"]
    lines.append(f"reached the cap: {extra['capped']:,} runs, {p:.4%}  95% CI [{low:.4%}, {high:.4%}]"
                 " (`solitaire poison` decides them)")
    return "\n".join(lines)
