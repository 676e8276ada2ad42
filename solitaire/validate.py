"""Check the Monte Carlo engine against exact values.

For each deck and variant with exact values, three comparisons are made:

* ``distribution``: a G-test of the simulated score distribution against the exact one (cells with
  expected counts below 5 pooled with their neighbours; a simulated score that is impossible
  exactly is an immediate failure);
* ``p_win``: a two-sided exact binomial test of the simulated wins against the exact ``p_win``
  (the table also shows whether the exact value lies in the simulated 95% interval);
* ``coverage``: over repeated seeds, how many 95% intervals contain the exact ``p_win``, tested
  one-sided against the nominal 95%.

All p-values form one family, corrected with Holm's step-down method at ``alpha``; the validation
fails when any comparison is rejected.
"""
from __future__ import annotations

import dataclasses
import itertools
import zlib
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from scipy import stats

from sim import Deck, Variant, provenance, simulate
from sim.variant import GAMES

MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class Check:
    deck: Deck
    variant: Variant
    test: str  #: "distribution", "p_win" or "coverage"
    statistic: float
    p_value: float
    detail: str
    rejected: bool = False  #: after Holm's correction

    def to_dict(self) -> dict:
        return {"suits": self.deck.suits, "ranks": self.deck.ranks, "variant": str(self.variant),
                "test": self.test, "statistic": self.statistic, "p_value": self.p_value,
                "detail": self.detail, "rejected": self.rejected}


@dataclass(frozen=True)
class ValidationReport:
    kind = "validation"
    checks: tuple[Check, ...]
    alpha: float
    games: int
    seed: int
    provenance: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not any(c.rejected for c in self.checks)

    def to_dict(self) -> dict:
        return {"passed": self.passed, "alpha": self.alpha, "games": self.games, "seed": self.seed,
                "correction": "holm", "checks": [c.to_dict() for c in self.checks]}


def holm(p_values, alpha: float) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected at family-wise level ``alpha``."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    rejected = [False] * len(p_values)
    m = len(p_values)
    for rank, i in enumerate(order):
        if p_values[i] <= alpha / (m - rank):
            rejected[i] = True
        else:
            break
    return rejected


def g_test(observed, exact_counts, orders: int) -> tuple[float, float, str]:
    """G-test of observed score counts against exact counts over ``orders`` deck orders."""
    games = int(sum(observed))
    observed = list(observed) + [0] * (len(exact_counts) - len(observed))
    impossible = [s for s, (o, e) in enumerate(zip(observed, exact_counts)) if o and not e]
    if impossible:
        return float("inf"), 0.0, f"simulated scores {impossible} are impossible exactly"
    cells_o, cells_e = [], []
    acc_o, acc_e = 0, 0.0
    for o, e in zip(observed, exact_counts):
        if e == 0:
            continue
        acc_o += o
        acc_e += games * (e / orders)  # e / orders: exact Fraction-free ratio of Python ints -> float
        if acc_e >= MIN_EXPECTED:
            cells_o.append(acc_o)
            cells_e.append(acc_e)
            acc_o, acc_e = 0, 0.0
    if acc_e > 0 or acc_o > 0:
        if cells_e:
            cells_o[-1] += acc_o
            cells_e[-1] += acc_e
        else:
            cells_o.append(acc_o)
            cells_e.append(acc_e)
    if len(cells_e) < 2:
        return 0.0, 1.0, "one cell: nothing to test"
    result = stats.power_divergence(cells_o, cells_e, lambda_="log-likelihood")
    return float(result.statistic), float(result.pvalue), f"{len(cells_e)} cells"


def p_win_test(wins: int, games: int, p_exact: Fraction) -> tuple[float, float]:
    if p_exact == 0:
        return float(wins), (1.0 if wins == 0 else 0.0)
    if p_exact == 1:
        return float(games - wins), (1.0 if wins == games else 0.0)
    return wins / games, float(stats.binomtest(wins, games, float(p_exact)).pvalue)


def case_seed_for(seed: int, deck: Deck, variant: Variant) -> int:
    """A seed for one case that depends only on the run's seed, the deck and the variant."""
    key = zlib.crc32(f"{deck}|{variant}".encode())
    return int(np.random.SeedSequence([seed, key]).generate_state(1, np.uint64)[0])


def coverage_seeds(seed: int, n: int) -> list[int]:
    """Seeds for the coverage runs, derived from ``seed`` (independent of the case list)."""
    return [int(np.random.SeedSequence(seed, spawn_key=(j,)).generate_state(1, np.uint64)[0]) for j in range(n)]


def compare(exact, simulation, coverage_runs=()) -> list[Check]:
    """The comparisons of one case: an exact result against simulations of (what should be) the same game."""
    deck, variant = simulation.deck, simulation.variant
    checks = []
    stat, p, detail = g_test(simulation.score_counts, exact.score_counts, exact.orders)
    checks.append(Check(deck, variant, "distribution", stat, p, detail))
    p_exact = exact.p_win
    stat, p = p_win_test(simulation.wins, simulation.games, p_exact)
    low, high = simulation.ci95
    inside = low <= float(p_exact) <= high
    checks.append(Check(deck, variant, "p_win", stat, p,
                        f"exact {p_exact} = {float(p_exact):.6g} {'in' if inside else 'OUTSIDE'} "
                        f"[{low:.6g}, {high:.6g}]"))
    if coverage_runs:
        covered = sum(r.ci95[0] <= float(p_exact) <= r.ci95[1] for r in coverage_runs)
        n = len(coverage_runs)
        p = float(stats.binom.cdf(covered, n, 0.95))
        checks.append(Check(deck, variant, "coverage", covered / n, p, f"{covered}/{n} intervals cover"))
    return checks


def default_cases(max_cards: int = 10, min_cards: int = 4, game: str = "one-handed"):
    """Every deck with ``min_cards <= S*R <= max_cards`` and every variant of ``game``."""
    spec = GAMES[game]
    variants = [Variant.make(game, **dict(zip(spec, values))) for values in itertools.product(*spec.values())]
    decks = [Deck(s, r) for s in range(1, max_cards + 1) for r in range(1, max_cards + 1)
             if min_cards <= s * r <= max_cards]
    return [(d, v) for d in decks for v in variants]


def validate(cases=None, *, games: int = 200_000, seed: int = 0, coverage: int = 20,
             coverage_games: int = 20_000, alpha: float = 0.01, workers: int | None = None,
             exact_source=None, progress: bool | None = None) -> ValidationReport:
    """Validate the simulator against exact values on ``cases`` (pairs of deck and variant).

    ``exact_source(deck, variant)`` gives the exact result (default: :func:`exact.exact_distribution`).
    Each case is simulated with its own seed derived from ``seed``, deck and variant.
    """
    from tqdm.auto import tqdm

    if exact_source is None:
        from exact import exact_distribution as exact_source
    cases = list(cases if cases is not None else default_cases())
    started = provenance.now()
    checks: list[Check] = []
    for deck, variant in tqdm(cases, desc="validate", delay=3, disable=progress is False, leave=False):
        exact = exact_source(deck, variant)
        case_seed = case_seed_for(seed, deck, variant)
        sim = simulate(deck, variant, games=games, seed=case_seed, workers=workers, progress=False)
        runs = [simulate(deck, variant, games=coverage_games, seed=s, workers=1, progress=False)
                for s in coverage_seeds(case_seed, coverage)]
        checks.extend(compare(exact, sim, runs))
    rejected = holm([c.p_value for c in checks], alpha)
    checks = [dataclasses.replace(c, rejected=r) for c, r in zip(checks, rejected)]
    return ValidationReport(tuple(checks), alpha, games, seed,
                            provenance.collect(started=started, finished=provenance.now()))
