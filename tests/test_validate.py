"""`validate` passes on small decks and fails on a deliberately wrong engine."""
import functools

from sim import Deck, Variant, simulate
from solitaire.validate import compare, g_test, holm, validate

from .naive import brute_force_one_handed

exact_cache = functools.lru_cache(maxsize=None)(brute_force_one_handed)


def test_validate_passes_on_small_decks():
    cases = [(Deck(2, 4), Variant.make("one-handed")), (Deck(2, 3), Variant.make("one-handed", win="any")),
             (Deck(4, 2), Variant.make("one-handed", reverse="on")), (Deck(3, 3), Variant.make("one-handed"))]
    report = validate(cases, games=100_000, coverage=10, coverage_games=5_000, seed=1, exact_source=exact_cache)
    assert report.passed, [c for c in report.checks if c.rejected]
    assert {c.test for c in report.checks} == {"distribution", "p_win", "coverage"}


def test_validate_fails_on_a_wrong_engine():
    deck = Deck(2, 4)
    exact_plain = exact_cache(deck, Variant.make("one-handed"))
    wrong = simulate(deck, Variant.make("one-handed", reverse="on"), games=100_000, seed=2, progress=False)
    checks = compare(exact_plain, wrong)
    assert any(holm([c.p_value for c in checks], 0.01))


def test_impossible_scores_fail_the_distribution_test():
    stat, p, detail = g_test([5, 1, 10], [3, 0, 7], 10)
    assert p == 0.0 and "impossible" in detail


def test_holm_step_down():
    assert holm([0.001, 0.02, 0.04, 0.5], 0.05) == [True, False, False, False]
    assert holm([0.001, 0.012, 0.02], 0.05) == [True, True, True]
