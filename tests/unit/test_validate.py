"""`validate` passes on small decks and fails on a deliberately wrong engine."""
import functools
import json
from fractions import Fraction

import pytest

from sim import Deck, Variant, simulate
from solitaire.validate import (compare, g_test, holm, interval_coverage, pooled_coverage_check,
                                validate)

from ..naive import brute_force_one_handed

exact_cache = functools.lru_cache(maxsize=None)(brute_force_one_handed)


def test_validate_passes_on_small_decks():
    cases = [(Deck(2, 4), Variant.make("one-handed")), (Deck(2, 3), Variant.make("one-handed", win="any")),
             (Deck(4, 2), Variant.make("one-handed", reverse="on")), (Deck(3, 3), Variant.make("one-handed"))]
    report = validate(cases, games=100_000, coverage=10, coverage_games=5_000, seed=1, exact_source=exact_cache)
    assert report.passed, [c for c in report.checks if c.rejected]
    assert {c.test for c in report.checks} == {"distribution", "p_win", "coverage"}
    pooled = [c for c in report.checks if c.deck is None]
    assert len(pooled) == 1 and pooled[0].test == "coverage" and pooled[0].tested
    assert "/44 95% intervals" in pooled[0].detail  # 4 cases x (1 main run + 10 seeds)
    assert not any(c.tested for c in report.checks if c.test == "coverage" and c.deck is not None)


def test_validate_fails_with_another_variants_exact_values():
    """validate() itself (not just compare + holm) rejects: plain exact values, reverse=on simulated."""
    deck, plain = Deck(2, 4), Variant.make("one-handed")
    wrong_source = lambda d, v: exact_cache(d, plain)  # noqa: E731
    report = validate([(deck, Variant.make("one-handed", reverse="on"))], games=50_000, coverage=5,
                      coverage_games=5_000, seed=2, exact_source=wrong_source, progress=False)
    assert not report.passed
    assert report.to_dict()["passed"] is False
    rejected = {c.test for c in report.checks if c.rejected}
    assert {"distribution", "p_win", "coverage"} <= rejected  # the pooled coverage check too


def test_validate_passes_on_prisoners_both_policies_wrap_on_and_off():
    cases = [(Deck(s, r), Variant.make("prisoners", moves=moves, wrap=wrap))
             for s, r in ((2, 3), (1, 6), (2, 4)) for moves in ("published", "physical") for wrap in ("on", "off")]
    report = validate(cases, games=30_000, coverage=4, coverage_games=3_000, seed=5, progress=False)
    assert report.passed, [c for c in report.checks if c.rejected]
    assert sum(c.test == "distribution" for c in report.checks) == len(cases)


def test_validate_fails_with_the_other_prisoners_policy():
    deck = Deck(2, 4)
    physical = Variant.make("prisoners", moves="physical")
    from exact.prisoners.distribution import exact_distribution
    report = validate([(deck, Variant.make("prisoners", moves="published"))], games=30_000, coverage=3,
                      coverage_games=3_000, seed=6, exact_source=lambda d, v: exact_distribution(d, physical),
                      progress=False)
    assert not report.passed


def test_pooled_coverage_rejects_too_few_covering_intervals():
    assert pooled_coverage_check([(85, 100, 0.95), (9, 10, 0.95)]).p_value < 1e-3
    assert pooled_coverage_check([(95, 100, 0.95), (10, 10, 0.95)]).p_value > 0.3
    assert pooled_coverage_check([(5, 5, 1.0)]).p_value == 1.0


def test_interval_coverage_of_the_interval_method():
    assert interval_coverage(Fraction(0), 1000) == 1.0 and interval_coverage(Fraction(1), 1000) == 1.0
    for p, n in ((Fraction(1, 7), 20_000), (Fraction(1, 2), 50), (Fraction(1, 1000), 5_000)):
        assert 0.93 < interval_coverage(p, n) < 0.99


def test_validate_cli_exits_1_on_failure(cli_run, monkeypatch):
    import solitaire.validate as module

    plain = Variant.make("one-handed")
    monkeypatch.setattr(module, "exact_for", lambda d, v: exact_cache(d, plain))
    code, out, err = cli_run("validate", "--max-cards", "4", "--variant", "reverse=on", "--variant", "win=end",
                             "--variant", "first4=kept", "--games", "20000", "--coverage", "2",
                             "--coverage-games", "2000", "--json")
    assert code == 1
    report = json.loads(out)
    assert report["passed"] is False and any(c["rejected"] for c in report["checks"])
    code, out, err = cli_run("validate", "--max-cards", "4", "--variant", "reverse=on", "--variant", "win=end",
                             "--variant", "first4=kept", "--games", "20000", "--coverage", "0")
    assert code == 1 and "FAILED" in out and "Traceback" not in err


@pytest.mark.parametrize("args", [["--game", "hand"], ["--game", "hand", "--json"]])
def test_validate_hand_is_refused_in_one_line(cli_run, args):
    code, out, err = cli_run("validate", *args)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "Hand Solitaire has no exact score distribution" in err


def test_validate_cli_prisoners(cli_run):
    code, out, err = cli_run("validate", "--game", "prisoners", "--max-cards", "5", "--games", "20000",
                             "--coverage", "2", "--coverage-games", "2000", "--seed", "3", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["passed"] and report["game"] == "prisoners"
    variants = {c["variant"] for c in report["checks"] if c["variant"]}
    assert len(variants) == 4  # moves published/physical x wrap on/off


def test_impossible_scores_fail_the_distribution_test():
    stat, p, detail = g_test([5, 1, 10], [3, 0, 7], 10)
    assert p == 0.0 and "impossible" in detail


def test_holm_step_down():
    assert holm([0.001, 0.02, 0.04, 0.5], 0.05) == [True, False, False, False]
    assert holm([0.001, 0.012, 0.02], 0.05) == [True, True, True]


def test_compare_flags_a_wrong_engine():
    deck = Deck(2, 4)
    exact_plain = exact_cache(deck, Variant.make("one-handed"))
    wrong = simulate(deck, Variant.make("one-handed", reverse="on"), games=100_000, seed=2, progress=False)
    checks = compare(exact_plain, wrong)
    assert any(holm([c.p_value for c in checks], 0.01))
