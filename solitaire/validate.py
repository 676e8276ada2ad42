"""Check the Monte Carlo engine against exact values.

Cases are pairs of a deck and a variant of a game with an exact score distribution: One-Handed
Solitaire (:func:`exact.exact_distribution`) and Prisoner's Patience under both move policies
(:func:`exact.prisoners.distribution.exact_distribution`; the score is the number of piles left, a win is one
pile). Hand Solitaire has no exact score distribution to compare with (a run reshuffles until it
wins or reaches the cap), so it is refused (:func:`exact_source_for`). Which games have an exact
engine is read from the game registry (:mod:`sim.games`).

**Tested** (one family of p-values, corrected with Holm's step-down method at ``alpha``; the
validation fails when any of them is rejected):

* ``distribution`` (one per case): a G-test of the simulated score distribution against the exact
  one (cells with expected counts below 5 pooled with their neighbours; a simulated score that is
  impossible exactly is an immediate failure);
* ``p_win`` (one per case): a two-sided exact binomial test of the simulated wins against the exact
  ``p_win``;
* ``coverage`` pooled over all cases (one check): every 95% interval the validation computed (each
  case's main run and its repeated-seed runs) either covers the exact ``p_win`` or not. Under a
  correct engine the number covering is a sum of binomials whose success probabilities are the
  interval method's exact coverage at that ``p_win`` and number of games (Wilson, or Clopper-Pearson
  for tiny counts, as :func:`sim.stats.binomial_interval`; about 95%, but not exactly). The check is
  the one-sided probability of covering this few or fewer.

**Displayed only** (not in the family, since 10 or 20 intervals per case have no power after
Holm's correction over hundreds of comparisons): whether the exact ``p_win`` lies in each case's main
95% interval (in the ``p_win`` row's detail), and each case's own coverage count (``coverage`` rows
with ``tested`` false, with their one-sided p-value for information).
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

import numpy as np
from scipy import stats

from exact import engine
from sim import Deck, UsageError, Variant, interrupts, provenance, rng, simulate
from sim.checks import check_workers, positive_int
from sim.games import REGISTRY, get_game
from sim.interrupts import Interrupted
from sim.progress import progress_bar
from sim.stats import binomial_interval
from sim.store import ResultsStore, run_key
from sim.variant import GAMES
from sim.tables import TableMixin

MIN_EXPECTED = 5.0
#: The games validate can check: those with an exact score distribution.
VALIDATED_GAMES = tuple(name for name, game in REGISTRY.items() if game.exact is not None)


@dataclass(frozen=True)
class Check:
    deck: Deck | None  #: None for the pooled coverage check
    variant: Variant | None
    test: str  #: "distribution", "p_win" or "coverage"
    statistic: float
    p_value: float
    detail: str
    rejected: bool = False  #: after Holm's correction
    tested: bool = True  #: False: shown for information, not part of the Holm family

    @classmethod
    def from_dict(cls, d: dict) -> "Check":
        return cls(None if d["suits"] is None else Deck(d["suits"], d["ranks"]),
                   None if d["variant"] is None else Variant.parse(d["variant"]), d["test"], d["statistic"],
                   d["p_value"], d["detail"], d["rejected"], d["tested"])

    def to_dict(self) -> dict:
        return {"suits": None if self.deck is None else self.deck.suits,
                "ranks": None if self.deck is None else self.deck.ranks,
                "variant": None if self.variant is None else str(self.variant),
                "test": self.test, "statistic": self.statistic, "p_value": self.p_value,
                "detail": self.detail, "tested": self.tested, "rejected": self.rejected}


@dataclass(frozen=True, repr=False)
class ValidationReport(TableMixin):
    kind: ClassVar[str] = "validation"
    checks: tuple[Check, ...]
    alpha: float
    games: int
    seed: int
    provenance: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not any(c.rejected for c in self.checks)

    @classmethod
    def from_record(cls, record: dict) -> "ValidationReport":
        """Rebuild a report from its stored ``to_dict()`` content."""
        return cls(tuple(Check.from_dict(_finite_back(c)) for c in record["checks"]), record["alpha"],
                   record["games"], record["seed"], dict(record.get("provenance", {})))

    def to_dict(self) -> dict:
        games_validated = sorted({c.variant.game for c in self.checks if c.variant is not None})
        return {"game": ",".join(games_validated) or "none", "passed": self.passed, "alpha": self.alpha,
                "games": self.games, "seed": self.seed, "correction": "holm",
                "tested": sum(c.tested for c in self.checks), "checks": [c.to_dict() for c in self.checks]}


def _finite_back(d: dict) -> dict:
    """A check as stored: an infinite statistic went through JSON as null (strict JSON)."""
    return {**d, "statistic": float("inf") if d.get("statistic") is None else d["statistic"]}


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


@functools.lru_cache(maxsize=None)  # asked again per case (compare, validate) and for variants alike
def interval_coverage(p_exact: Fraction, games: int, confidence: float = 0.95) -> float:
    """The probability that the interval of :func:`sim.stats.binomial_interval` from ``games``
    games covers ``p_exact``: the sum of the binomial probabilities of the win counts whose
    interval contains it (counts beyond 12 standard deviations are left out: < 1e-30)."""
    p = float(p_exact)
    if p in (0.0, 1.0):  # every interval from 0 (or all) wins reaches 0 (or 1)
        return 1.0
    sd = (games * p * (1 - p)) ** 0.5
    low, high = max(0, int(games * p - 12 * sd) - 1), min(games, int(games * p + 12 * sd) + 1)
    covered = 0.0
    for k in range(low, high + 1):
        (a, b), _ = binomial_interval(k, games, confidence)
        if a <= p <= b:
            covered += float(stats.binom.pmf(k, games, p))
    return covered


def _covers(result, p_exact: Fraction) -> bool:
    return result.ci95[0] <= float(p_exact) <= result.ci95[1]


def pooled_coverage_check(groups) -> Check:
    """One check over every interval: ``groups`` holds ``(covered, runs, coverage)`` triples, runs
    intervals of which ``covered`` contain the exact value, each covering with probability
    ``coverage`` under a correct engine. p-value: the probability of ``sum(covered)`` or fewer."""
    pmf = np.ones(1)
    covered = runs = 0
    expected = 0.0
    for c, n, q in groups:
        covered, runs, expected = covered + c, runs + n, expected + n * q
        pmf = np.convolve(pmf, stats.binom.pmf(np.arange(n + 1), n, q))
    p = float(min(1.0, pmf[:covered + 1].sum())) if runs else 1.0
    share = covered / runs if runs else 1.0
    return Check(None, None, "coverage", share, p,
                 f"pooled: {covered}/{runs} 95% intervals cover the exact p_win "
                 f"(expected {expected / runs if runs else 1.0:.2%} for the interval method)")


def case_seed_for(seed: int, deck: Deck, variant: Variant) -> int:
    """A seed for one case that depends only on the run's seed, the deck and the variant."""
    return rng.derive_seed(seed, f"{deck}|{variant}")


def coverage_seeds(seed: int, n: int) -> list[int]:
    """Seeds for the coverage runs, derived from ``seed`` (independent of the case list)."""
    return rng.spawn_seeds(seed, n)


def compare(exact, simulation, coverage_runs=()) -> list[Check]:
    """The comparisons of one case: an exact result against simulations of (what should be) the same game.

    Returns the tested ``distribution`` and ``p_win`` checks and, with ``coverage_runs``, the
    case's displayed (untested) ``coverage`` row; the pooled coverage check is made by :func:`validate`.
    """
    deck, variant = simulation.deck, simulation.variant
    checks = []
    stat, p, detail = g_test(simulation.score_counts, exact.score_counts, exact.orders)
    checks.append(Check(deck, variant, "distribution", stat, p, detail))
    p_exact = exact.p_win
    stat, p = p_win_test(simulation.wins, simulation.games, p_exact)
    low, high = simulation.ci95
    inside = _covers(simulation, p_exact)
    checks.append(Check(deck, variant, "p_win", stat, p,
                        f"exact {p_exact} = {float(p_exact):.6g} {'in' if inside else 'OUTSIDE'} "
                        f"[{low:.6g}, {high:.6g}]"))
    if coverage_runs:
        covered = sum(_covers(r, p_exact) for r in coverage_runs)
        n = len(coverage_runs)
        q = interval_coverage(p_exact, coverage_runs[0].games)
        p = float(stats.binom.cdf(covered, n, q))
        checks.append(Check(deck, variant, "coverage", covered / n, p,
                            f"{covered}/{n} intervals cover (expected {q:.2%}); shown, not tested", tested=False))
    return checks


def exact_source_for(game: str):
    """The exact engine of ``game``: a function ``(deck, variant) -> ExactResult``; a game without
    one (Hand Solitaire: a run reshuffles until it wins or reaches the iteration cap) is refused in
    one line that says what to use instead."""
    try:
        return engine(game)
    except UsageError as exc:
        raise UsageError(f"validate --game {game} is not possible: {exc}") from None


def exact_for(deck: Deck, variant: Variant):
    """The exact result of ``deck`` under ``variant``, from the engine of its game."""
    return exact_source_for(variant.game)(deck, variant)


def default_cases(max_cards: int = 10, min_cards: int = 4, game: str = "one-handed"):
    """Every deck with ``min_cards <= S*R <= max_cards`` and every variant of ``game``.

    Games without an exact engine (Hand Solitaire) are refused.
    """
    exact_source_for(game)  # refuses games without an exact score distribution
    spec = GAMES[game]
    variants = [Variant.make(game, **dict(zip(spec, values))) for values in itertools.product(*spec.values())]
    decks = [Deck(s, r) for s in range(1, max_cards + 1) for r in range(1, max_cards + 1)
             if min_cards <= s * r <= max_cards]
    return [(d, v) for d in decks for v in variants]


def validation_identity(cases, *, games: int, seed: int, coverage: int, coverage_games: int, alpha: float) -> dict:
    """What makes two validations the same (a finished one is served from the store, not redone)."""
    games_played = sorted({variant.game for _, variant in cases})
    return {"kind": "validation", "cases": [f"{deck}|{variant}" for deck, variant in cases], "games": games,
            "seed": seed, "coverage": coverage, "coverage_games": coverage_games, "alpha": alpha,
            "package_version": provenance.package_version(), "engine_versions": {g: get_game(g).engine_version for g in games_played}}


def validate(cases=None, *, games: int = 200_000, seed: int = 0, coverage: int = 20,
             coverage_games: int = 20_000, alpha: float = 0.01, workers: int | None = None,
             exact_source=None, progress: bool | None = None, out=None, notify=None) -> ValidationReport:
    """Validate the simulator against exact values on ``cases`` (pairs of deck and variant).

    ``exact_source(deck, variant)`` gives the exact result (default: :func:`exact_for`, the exact
    engine of the variant's game). Each case is simulated with its own seed derived from ``seed``,
    deck and variant. What is tested and what is only displayed: see the module docstring.

    With ``out`` (a results store or its path) the report is stored there, and a validation with the
    same cases and parameters already stored is returned from there instead of being run again; each
    finished case is saved in the store's journal as it ends, so an interrupted validation resumes
    from the next case when run again. ``notify(message)`` hears about both.
    """
    cases = list(cases if cases is not None else default_cases())
    if not cases:
        raise UsageError("no cases to validate: the deck sizes and variant filter leave none (decks have at least "
                         "4 cards; check --max-cards and --variant)")
    games, coverage_games = positive_int("games", games), positive_int("coverage_games", coverage_games)
    if isinstance(coverage, bool) or not isinstance(coverage, int) or coverage < 0:
        raise UsageError(f"coverage must be a non-negative integer, got {coverage!r}")
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must lie strictly between 0 and 1, got {alpha!r}")
    if workers is not None:
        check_workers(workers)
    for game in {variant.game for _, variant in cases}:
        exact_source_for(game)
    if out is None:
        return _validate_cases(cases, games, seed, coverage, coverage_games, alpha, workers, exact_source, progress)
    store = out if isinstance(out, ResultsStore) else ResultsStore(out)
    store.check_writable()
    identity = validation_identity(cases, games=games, seed=seed, coverage=coverage, coverage_games=coverage_games,
                                   alpha=alpha)
    with store.run_lock(identity, on_wait=notify):
        found = store.find_run(identity)
        if found is not None:
            if notify:
                notify(f"this validation is already in {store.path} as {found}: shown from there")
            return ValidationReport.from_record(store.load(found))
        parts = store.load_parts(identity)
        if parts and notify:
            notify(f"resuming the unfinished validation: {len(parts)} of {len(cases)} cases already done")

        def save(i, part):
            parts[str(i)] = part
            store.write_parts(identity, parts, total=len(cases), unit="cases")

        try:
            report = _validate_cases(cases, games, seed, coverage, coverage_games, alpha, workers, exact_source,
                                     progress, done=parts, on_case=save)
        except Interrupted as exc:
            exc.saved = (f"{len(parts)} of {len(cases)} cases saved to {store.path}; run the same command to "
                         "resume")
            raise
        report.provenance["run_key"] = run_key(identity)
        store.commit(report, identity)
        return report


def _validate_cases(cases, games, seed, coverage, coverage_games, alpha, workers, exact_source, progress,
                    done=None, on_case=None) -> ValidationReport:
    if exact_source is None:
        exact_source = exact_for
    done = done or {}
    started = provenance.now()
    checks: list[Check] = []
    intervals = []  # (covered, runs, coverage per run) for the pooled check
    with interrupts.deferred():  # a signal stops the validation between two cases (see sim.interrupts)
        _play_cases(cases, games, seed, coverage, coverage_games, workers, exact_source, progress, done, on_case,
                    checks, intervals)
    if intervals:
        checks.append(pooled_coverage_check(intervals))
    tested = [i for i, c in enumerate(checks) if c.tested]
    rejected = holm([checks[i].p_value for i in tested], alpha)
    for i, r in zip(tested, rejected):
        checks[i] = dataclasses.replace(checks[i], rejected=r)
    return ValidationReport(tuple(checks), alpha, games, seed,
                            provenance.collect(started=started, finished=provenance.now()))


def _play_cases(cases, games, seed, coverage, coverage_games, workers, exact_source, progress, done, on_case,
                checks, intervals) -> None:
    for i, (deck, variant) in enumerate(progress_bar(len(cases), progress, iterable=cases, desc="validate",
                                                     unit="case")):
        interrupts.check()
        if str(i) in done:  # finished before an interruption
            checks.extend(Check.from_dict(_finite_back(c)) for c in done[str(i)]["checks"])
            intervals.extend(tuple(t) for t in done[str(i)]["intervals"])
            continue
        exact = exact_source(deck, variant)
        case_seed = case_seed_for(seed, deck, variant)
        sim = simulate(deck, variant, games=games, seed=case_seed, workers=workers, progress=False)
        runs = [simulate(deck, variant, games=coverage_games, seed=s, workers=1, progress=False)
                for s in coverage_seeds(case_seed, coverage)]
        case_checks = compare(exact, sim, runs)
        case_intervals = [(int(_covers(sim, exact.p_win)), 1, interval_coverage(exact.p_win, games))]
        if runs:
            case_intervals.append((sum(_covers(r, exact.p_win) for r in runs), len(runs),
                                   interval_coverage(exact.p_win, coverage_games)))
        checks.extend(case_checks)
        intervals.extend(case_intervals)
        if on_case is not None:
            on_case(i, {"checks": [_json_safe(c.to_dict()) for c in case_checks], "intervals": case_intervals})


def _json_safe(d: dict) -> dict:
    """A check's dict with an infinite statistic as None (strict JSON; see :func:`_finite_back`)."""
    stat = d["statistic"]
    return {**d, "statistic": None if stat in (float("inf"), float("-inf")) else stat}
