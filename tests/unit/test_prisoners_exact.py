"""Exact Prisoner's Patience distributions: DP against enumeration, enumeration against the rules."""
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from exact.prisoners.distribution import dp_score_counts, enumerate_score_counts, exact_distribution, rank_maps
from sim import Deck, UsageError, Variant, simulate
from sim.kernels.prisoners import play_orders

from ..naive import brute_force_prisoners as brute_force_counts
from ..strategies import all_variants

ALL_VARIANTS = all_variants("prisoners")


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(1, 1), (2, 1), (1, 2), (1, 3), (2, 2), (1, 5), (3, 2), (1, 7)])
def test_enumeration_equals_reference_rules(shape, variant):
    deck = Deck(*shape)
    assert enumerate_score_counts(deck, variant) == brute_force_counts(deck, variant)


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(2, 3), (3, 3), (2, 4), (1, 8), (4, 2), (1, 9)])
def test_dp_equals_enumeration(shape, variant):
    deck = Deck(*shape)
    counts = dp_score_counts(deck, variant)
    assert counts == enumerate_score_counts(deck, variant)
    assert sum(counts) == math.factorial(deck.size) and counts[0] == 0


def test_hand_counted_three_card_deck():
    # 1 x 3, no wrap, physical: of the 6 orders, 102 and 120 end with two piles (the middle rank
    # covers the 1-adjacent card first and the last card cannot reach it); the other four win.
    r = exact_distribution(Deck(1, 3), "prisoners(moves=physical,wrap=off)")
    assert r.score_counts == (0, 4, 2, 0) and r.p_win == Fraction(2, 3)
    assert r.to_dict()["p_win"] == "2/3" and r.kind == "exact"


def test_rank_maps_preserve_adjacency():
    from sim.rules.prisoners import adjacent_ranks

    for ranks, wrap in [(5, True), (5, False), (13, True), (2, True), (1, False)]:
        maps = rank_maps(ranks, wrap)
        assert len(maps) == (2 * ranks if wrap and ranks >= 3 else min(2, math.factorial(ranks)))
        for m in maps:
            assert all(adjacent_ranks(a, b, ranks, wrap) == adjacent_ranks(m[a], m[b], ranks, wrap)
                       for a in range(ranks) for b in range(ranks))


def test_four_by_four_published_always_wins():
    # A finding of the DP, checked independently with the kernel on random orders.
    variant = Variant.make("prisoners", moves="published")
    r = exact_distribution(Deck(4, 4), variant)
    assert r.p_win == 1 and r.orders == math.factorial(16)
    rng = np.random.default_rng(0)
    orders = np.array([rng.permutation(16) for _ in range(20_000)])
    assert (play_orders(orders, Deck(4, 4), variant) == 1).all()
    assert exact_distribution(Deck(4, 4), "prisoners(moves=physical)").p_win < 1


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=str)
def test_simulation_agrees_with_exact(variant):
    deck = Deck(2, 5)
    exact = exact_distribution(deck, variant)
    sim = simulate(deck, variant, games=200_000, seed=99, progress=False, workers=1)
    assert stats.binomtest(sim.wins, sim.games, float(exact.p_win)).pvalue > 1e-4
    # the whole distribution: chi-square over scores with expected count >= 5
    expected = np.array([c * sim.games / exact.orders for c in exact.score_counts])
    observed = np.array(sim.score_counts)
    keep = expected >= 5
    assert keep.sum() >= 2  # a distribution with something to test
    assert observed[~keep].sum() <= 5
    assert stats.chisquare(observed[keep], expected[keep] * observed[keep].sum() / expected[keep].sum()).pvalue > 1e-4


def test_too_large_or_wrong_input_is_refused():
    with pytest.raises(UsageError):
        exact_distribution(Deck(4, 13))
    with pytest.raises(UsageError):
        exact_distribution(Deck(2, 6), method="enumerate")
    with pytest.raises(UsageError):
        exact_distribution(Deck(2, 2), method="guess")
    with pytest.raises(UsageError):
        exact_distribution(Deck(2, 2), "one-handed")


EXACT_KEYS = {"game", "suits", "ranks", "variant", "method", "orders", "score_counts", "p_win", "mean_score"}


@pytest.mark.parametrize("moves", ["published", "physical"])
@pytest.mark.parametrize("method", ["dp", "enumerate"])
def test_cli_exact_prisoners_json(cli_run, moves, method):
    # compiled first: see test_exact_phase.test_cli_phase_json
    exact_distribution(Deck(2, 3), f"prisoners(moves={moves})", method=method)
    code, out, err = cli_run("exact", "--game", "prisoners", "--suits", "2", "--ranks", "3", "--variant",
                             f"moves={moves}", "--method", method, "--json")
    assert code == 0 and err == ""
    obj = json.loads(out)
    assert EXACT_KEYS <= obj.keys()
    api = exact_distribution(Deck(2, 3), Variant.make("prisoners", moves=moves))
    assert obj["game"] == "prisoners" and obj["variant"] == str(api.variant) and obj["method"] == method
    assert obj["orders"] == 720 and obj["score_counts"] == list(api.score_counts)
    assert obj["p_win"] == f"{api.p_win.numerator}/{api.p_win.denominator}"
    assert Fraction(obj["p_win"]) == Fraction(obj["score_counts"][1], 720)
    assert Fraction(obj["mean_score"]) == Fraction(sum(s * c for s, c in enumerate(obj["score_counts"])), 720)


def test_cli_exact_prisoners_policies_differ(cli_run):
    # the two move policies give different exact distributions (physical: 4/7 on 2x4, published: 1)
    results = {}
    for moves in ("published", "physical"):
        code, out, _ = cli_run("exact", "--game", "prisoners", "--suits", "2", "--ranks", "4", "--variant",
                               f"moves={moves}", "--json")
        assert code == 0
        results[moves] = json.loads(out)["p_win"]
    assert results == {"published": "1/1", "physical": "4/7"}


@pytest.mark.parametrize("args", [[], ["--suits", "3", "--ranks", "4", "--method", "enumerate"],
                                  ["--suits", "3", "--ranks", "7"]])
def test_cli_exact_prisoners_refuses_large_decks_in_one_line(cli_run, args):
    code, out, err = cli_run("exact", "--game", "prisoners", *args, "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("solitaire: error: ") and "at most" in err


def test_cli_exact_prisoners_out_saves_to_the_store(cli_run, tmp_path):
    from exact.result import ExactResult
    from sim.store import ResultsStore

    path = tmp_path / "store.h5"
    code, out, err = cli_run("exact", "--game", "prisoners", "--suits", "2", "--ranks", "3", "--out", str(path),
                             "--json")
    assert code == 0, err
    (name,) = ResultsStore(path).names(kind="exact")
    record = ResultsStore(path).load(name)
    assert {k: record[k] for k in EXACT_KEYS} == {k: v for k, v in json.loads(out).items() if k in EXACT_KEYS}
    assert ExactResult.from_record(record).score_counts == exact_distribution(Deck(2, 3)).score_counts
