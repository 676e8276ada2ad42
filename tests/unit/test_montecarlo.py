"""The Monte Carlo engine: reproducibility, agreement with published figures."""
import pytest

from sim import Deck, UsageError, Variant, simulate
from sim.stats import binomial_interval, clopper_pearson_interval, wilson_interval


def test_same_seed_same_counts_for_any_worker_count():
    runs = [simulate(Deck(4, 13), games=300_000, seed=11, workers=w, chunk_games=40_000, progress=False)
            for w in (1, 2, 3)]
    assert len({(r.wins, r.score_counts) for r in runs}) == 1


def test_different_seeds_differ():
    a = simulate(Deck(4, 13), games=100_000, seed=1, progress=False)
    b = simulate(Deck(4, 13), games=100_000, seed=2, progress=False)
    assert a.score_counts != b.score_counts


def test_standard_deck_agrees_with_published_rate():
    # Published: 0.706% (10^9 games, 95% CI 0.70543%-0.7065%); mean score about 13.32.
    r = simulate(Deck(4, 13), games=4_000_000, seed=20261123, progress=False)
    low, high = r.ci95
    assert low <= 0.00706 <= high
    assert abs(r.mean_score - 13.32) < 4 * r.mean_score_se + 0.005
    assert sum(r.score_counts) == r.games and r.score_counts[0] == r.wins


def test_odd_by_odd_never_wins():
    r = simulate(Deck(3, 5), games=200_000, seed=3, progress=False)
    assert r.wins == 0 and all(c == 0 for c in r.score_counts[0::2])
    assert r.interval_method == "clopper-pearson" and r.ci95[0] == 0.0


@pytest.mark.parametrize("kwargs", [dict(games=0), dict(games=-3), dict(games=2.5), dict(seed=-1),
                                    dict(workers=0), dict(chunk_games=0)])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(UsageError):
        simulate(Deck(2, 2), **{"games": 10, **kwargs})


def test_variant_strings_are_accepted():
    r = simulate(Deck(4, 5), "one-handed(win=any)", games=1000, seed=1, progress=False)
    assert r.variant == Variant.make("one-handed", win="any")


def test_intervals_against_known_values():
    # Wilson 95% for 10/100: (0.0552, 0.1744) (Newcombe 1998, Table I style value)
    low, high = wilson_interval(10, 100)
    assert abs(low - 0.05523) < 1e-4 and abs(high - 0.17437) < 1e-4
    low, high = clopper_pearson_interval(0, 100)
    assert low == 0.0 and abs(high - 0.036217) < 1e-5  # 1 - 0.025**(1/100)
    assert binomial_interval(3, 1000)[1] == "clopper-pearson"
    assert binomial_interval(500, 1000)[1] == "wilson"
