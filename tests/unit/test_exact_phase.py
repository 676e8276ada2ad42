"""The phase method (exact.one_handed.phase, phase_plan, phase_kernel): its decomposition checked against brute force
on random game positions, the kernel against the Python reference and the DP, limits, CLI."""
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact import exact_distribution
from exact.one_handed.dp import dp_distribution
from exact.one_handed.limits import MAX_PHASE_CARDS, choose_method
from exact.one_handed.phase import SENTINEL, PhaseReference, phase_distribution_reference
from exact.one_handed.phase import phase_distribution
from exact.one_handed.phase_plan import MAX_GROUP, PhasePlan
from sim import Deck, Variant, simulate
from sim.errors import UsageError
from sim.rules.one_handed import settle

from ..naive import brute_phase
from ..strategies import all_variants, decks, shapes

ALL_VARIANTS = [v for v in all_variants("one-handed") if not v.rules.final_once]  # phase refuses final=once
KEPT = [v for v in ALL_VARIANTS if v["first4"] == "kept"]  # win x reverse; first4 is played as kept


@settings(max_examples=60, deadline=None)
@given(deck=decks(max_cards=14, max_suits=4, max_ranks=5), reverse=st.sampled_from(["off", "on"]),
       data=st.data())
def test_phase_counts_equal_brute_force_on_random_positions(deck, reverse, data):
    """The decomposition itself: from a real position (a random prefix played by the rules), the
    orders of a random set of cards end the phase of the top three cards as the recursion says,
    whatever lies below them."""
    variant = Variant.make("one-handed", reverse=reverse)
    order = data.draw(st.permutations(list(deck.cards())))
    dealt = data.draw(st.integers(0, deck.size))
    row = []
    for c in order[:dealt]:
        row.append(c)
        settle(row, deck, variant)
    rest = list(order[dealt:])
    cards = data.draw(st.lists(st.sampled_from(rest), unique=True, max_size=6)) if rest else []
    tup = lambda c: (deck.suit(c), deck.rank(c))  # noqa: E731
    padded = [SENTINEL] * max(0, 3 - len(row)) + [tup(c) for c in row[-3:]]
    ref = PhaseReference(reverse=reverse == "on")
    expected = brute_phase(deck, variant, row, cards)
    got = {o: c for o, c in ref.phase(tuple(padded), frozenset(tup(c) for c in cards)).items() if c}
    assert got == expected


@pytest.mark.parametrize("deck", shapes(8), ids=str)
@pytest.mark.parametrize("variant", KEPT, ids=str)
def test_reference_equals_dp(deck, variant):
    assert phase_distribution_reference(deck, variant) == dp_distribution(deck, variant)


@pytest.mark.parametrize("deck", shapes(10), ids=str)
@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=str)
def test_kernel_equals_dp_up_to_10_cards(deck, variant):
    assert phase_distribution(deck, variant) == dp_distribution(deck, variant)


@pytest.mark.parametrize("deck", [Deck(3, 4), Deck(4, 3), Deck(2, 6), Deck(6, 2)], ids=str)
@pytest.mark.parametrize("variant", KEPT, ids=str)
def test_kernel_equals_dp_on_12_cards(deck, variant):
    assert phase_distribution(deck, variant) == dp_distribution(deck, variant)


@pytest.mark.slow
@pytest.mark.parametrize("deck", [Deck(4, 4), Deck(3, 5), Deck(5, 3)], ids=str)
def test_kernel_equals_dp_on_15_16_cards(deck):
    variant = Variant.make("one-handed", win="any")
    assert phase_distribution(deck, variant) == dp_distribution(deck, variant)


@pytest.mark.parametrize("deck", [Deck(3, 4), Deck(2, 5)], ids=str)
def test_symmetry_changes_the_work_not_the_counts(deck, monkeypatch):
    """Canonical sets under each window's stabiliser (and _fill copying them to their orbits) give the
    counts of the kernel without any symmetry, with fewer (set, subset) pairs visited."""
    import exact.one_handed.phase_plan as phase_plan

    variant = Variant.make("one-handed", win="any")
    with_symmetry = {}
    counts = phase_distribution(deck, variant, stats=with_symmetry)
    monkeypatch.setattr(phase_plan, "MAX_GROUP", 1)
    without = {}
    assert phase_distribution(deck, variant, stats=without) == counts
    assert with_symmetry["subset_pairs"] < without["subset_pairs"]
    assert with_symmetry["windows"] == without["windows"] > 1


def test_stabiliser_groups_fix_their_windows():
    plan = PhasePlan(4, 5)
    for w, group in zip(plan.reps, plan.groups):
        assert group[0] == list(range(20))  # the identity comes first: _canon_tables relies on it
        assert len({tuple(t) for t in group}) == len(group) <= max(MAX_GROUP, 1)
        for tau in group:
            assert all(tau[c] == c for c in w if c >= 0) and sorted(tau) == list(range(20))


def test_monte_carlo_agrees_with_phase():
    deck = Deck(4, 4)
    exact = exact_distribution(deck, method="phase")
    mc = simulate(deck, "one-handed", games=400_000, seed=20261123, workers=1, progress=False)
    low, high = mc.ci95
    assert low <= float(exact.p_win) <= high
    assert abs(mc.mean_score - float(exact.mean_score)) < 5 * mc.mean_score_se


@pytest.mark.slow
def test_four_by_five_against_monte_carlo():
    """The published 20-card case: exact counts sum to 20!, and 10^7 games agree with them."""
    deck = Deck(4, 5)
    exact = exact_distribution(deck, method="phase")
    assert exact.method == "phase" and sum(exact.score_counts) == math.factorial(20)
    mc = simulate(deck, "one-handed", games=10_000_000, seed=5, workers=2, progress=False)
    low, high = mc.ci95
    assert low <= float(exact.p_win) <= high


def test_auto_chooses_phase_for_wide_decks_and_refuses_beyond(monkeypatch):
    assert choose_method(Deck(4, 4), "auto") == "phase"  # below 18 cards
    assert choose_method(Deck(4, 5), "auto") == "zeta" and choose_method(Deck(3, 6), "auto") == "zeta"
    monkeypatch.setenv("SOLITAIRE_ZETA_MAX_GIB", "0.5")  # zeta tables that do not fit: phase up to 20 cards
    assert choose_method(Deck(4, 5), "auto") == "phase" and choose_method(Deck(3, 6), "auto") == "zeta"
    monkeypatch.setenv("SOLITAIRE_ZETA_MAX_GIB", "6")
    assert choose_method(Deck(2, 10), "auto") == "dp"  # narrow: the DP is fast there
    assert choose_method(Deck(4, 5), "phase") == "phase"
    with pytest.raises(UsageError, match="GiB"):
        choose_method(Deck(2, 10), "phase")  # little symmetry: tables too large
    with pytest.raises(UsageError, match=str(MAX_PHASE_CARDS)):
        choose_method(Deck(3, 7), "phase")
    with pytest.raises(UsageError, match="simulate"):
        exact_distribution(Deck(4, 6))
    # reverse=on is built on the transposed deck: the memory check follows it
    reverse = Variant.make("one-handed", reverse="on")
    assert choose_method(Deck(2, 10), "phase", reverse) == "phase"  # builds 10x2
    with pytest.raises(UsageError, match="GiB"):
        choose_method(Deck(10, 2), "phase", reverse)  # builds 2x10
    assert choose_method(Deck(10, 2), "phase") == "phase"


def test_cli_phase_json(cli_run):
    # the kernels compiled first: a cold numba compile under load can outlast the progress bar's delay
    # (3 s) and draw it on stderr, which is not what this test is about
    exact_distribution(Deck(3, 3), method="phase")
    code, out, err = cli_run("exact", "--suits", "3", "--ranks", "3", "--method", "phase", "--json")
    assert code == 0 and err == ""
    obj = json.loads(out)
    assert obj["method"] == "phase" and sum(obj["score_counts"]) == math.factorial(9)
    assert obj["p_win"] == "0/1"  # 3x3: odd suits and odd ranks never win


@pytest.mark.parametrize("args", [["--suits", "2", "--ranks", "10", "--method", "phase"],
                                  ["--suits", "3", "--ranks", "7", "--method", "phase"],
                                  ["--game", "prisoners", "--suits", "2", "--ranks", "3", "--method", "phase"]])
def test_cli_phase_refusals_are_one_line(cli_run, args):
    code, out, err = cli_run("exact", *args, "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("solitaire: error: ")
