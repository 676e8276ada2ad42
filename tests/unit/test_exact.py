"""The exact engines: brute force, enumeration and DP agree; theorems; API; CLI."""
import itertools
import json
import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact import ExactResult, exact_distribution
from exact.one_handed.dp import DEAD, _decode, _settle, canonical_key, dp_distribution, dp_distribution_reference
from exact.one_handed.dp_kernel import canonical_key_kernel
from exact.one_handed.enumerate import _settle as kernel_settle
from exact.one_handed.enumerate import enumerate_distribution
from exact.one_handed.limits import MAX_DP_CARDS, MAX_ENUMERATE_CARDS
from exact.one_handed.parity import check_parity, parity_theorem
from sim import Deck, Variant, simulate
from sim.errors import UsageError
from sim.rules.one_handed import play, settle

from ..naive import brute_force_one_handed
from ..strategies import all_variants, decks, shapes, variants

# final=once has its own tests (tests/test_one_handed_final.py); these keep their meaning over the others
ALL_VARIANTS = [v for v in all_variants("one-handed") if not v.rules.final_once]


def brute_force(deck, variant):
    """Every order, played by the reference rules (:func:`tests.naive.brute_force_one_handed`)."""
    counted = brute_force_one_handed(deck, variant)
    return list(counted.score_counts), counted.wins


@pytest.mark.parametrize("deck", shapes(7), ids=str)
@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=str)
def test_enumeration_and_dp_equal_brute_force(deck, variant):
    expected = brute_force(deck, variant)
    assert enumerate_distribution(deck, variant) == expected
    assert dp_distribution(deck, variant) == expected


@pytest.mark.parametrize("deck", [Deck(2, 4), Deck(4, 2)], ids=str)
@pytest.mark.parametrize("variant", ALL_VARIANTS[:4], ids=str)
def test_eight_cards_brute_force(deck, variant):
    expected = brute_force(deck, variant)
    assert enumerate_distribution(deck, variant) == expected == dp_distribution(deck, variant)


@pytest.mark.parametrize("deck", [d for d in shapes(10) if d.size >= 8], ids=str)
@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=str)
def test_enumeration_equals_dp_up_to_10_cards(deck, variant):
    assert enumerate_distribution(deck, variant) == dp_distribution(deck, variant)


@pytest.mark.parametrize("deck", shapes(9), ids=str)
def test_first_four_reversed_has_the_same_distribution(deck):
    """Not assumed: enumeration plays first4=reversed literally, order by order."""
    for win in ("end", "any"):
        for reverse in ("off", "on"):
            kept = Variant.make("one-handed", win=win, reverse=reverse, first4="kept")
            flipped = Variant.make("one-handed", win=win, reverse=reverse, first4="reversed")
            assert enumerate_distribution(deck, kept) == enumerate_distribution(deck, flipped)


def test_first_four_reversed_differs_per_order():
    deck = Deck(2, 3)
    flipped = Variant.make("one-handed", first4="reversed")
    assert any(play(o, deck).score != play(o, deck, flipped).score for o in itertools.permutations(range(6)))


@pytest.mark.parametrize("deck", [Deck(2, 5), Deck(3, 4), Deck(2, 3)], ids=str)
def test_reverse_is_the_transposed_game(deck):
    """reverse=on swaps the roles of suits and ranks: S x R reversed is R x S plain."""
    for win in ("end", "any"):
        rev = Variant.make("one-handed", win=win, reverse="on")
        plain = Variant.make("one-handed", win=win)
        assert dp_distribution(deck, rev) == dp_distribution(Deck(deck.ranks, deck.suits), plain)


def test_parity_theorem_symbolic():
    theorem = parity_theorem()
    assert theorem.verified
    assert "Mod" in str(theorem.statement)


@pytest.mark.parametrize("deck", [
    Deck(1, 3), Deck(3, 3), Deck(1, 9), Deck(1, 11),
    pytest.param(Deck(3, 5), marks=pytest.mark.slow), pytest.param(Deck(5, 3), marks=pytest.mark.slow)], ids=str)
def test_odd_by_odd_is_never_won(deck):
    result = exact_distribution(deck)
    assert result.wins == 0 and result.p_win == 0
    assert all(count == 0 for score, count in enumerate(result.score_counts) if score % 2 == 0)


def test_check_parity():
    assert check_parity([5, 0, 7], 4)
    assert not check_parity([5, 1, 7], 4)


def test_win_any_counts_more():
    end = exact_distribution(Deck(3, 3))
    anywin = exact_distribution(Deck(3, 3), "one-handed(win=any)")
    assert anywin.score_counts == end.score_counts
    assert anywin.wins > end.wins == 0


# --- the kernels' pieces against the reference -------------------------------------------------

@given(deck=decks(max_cards=30), variant=variants("one-handed"), data=st.data())
def test_enumeration_settle_equals_reference(deck, variant, data):
    import numpy as np

    row = data.draw(st.lists(st.sampled_from(list(deck.cards())), min_size=0, max_size=12))
    expected = list(row)
    settle(expected, deck, variant)
    buf = np.array(row + [0], dtype=np.int64)
    length, _ = kernel_settle(buf, len(row), deck.suit_array(), deck.rank_array(), variant.rules.reverse,
                              len(row))
    assert buf[:length].tolist() == expected


def future_scores(row, undealt, deal):
    """Final scores over every order of ``undealt``, each played from ``row`` by ``deal``."""
    scores = Counter()
    for order in itertools.permutations(undealt):
        current = list(row)
        for card in order:
            current.append(card)
            deal(current)
        scores[len(current)] += 1
    return scores


@settings(max_examples=150)
@given(deck=decks(max_cards=16), variant=variants("one-handed"), data=st.data())
def test_dp_key_keeps_the_future(deck, variant, data):
    """Soundness of the reductions: a reachable state and its reduced, relabelled key have the
    same future score distribution (brute force over the undealt cards)."""
    order = data.draw(st.permutations(list(deck.cards())))
    left = data.draw(st.integers(0, min(6, deck.size)))
    dealt, undealt = order[:deck.size - left], order[deck.size - left:]
    row = []
    for card in dealt:
        row.append(card)
        settle(row, deck, variant)
    pairs = [(deck.suit(c), deck.rank(c)) for c in row]
    reverse = variant.rules.reverse
    key, offset = canonical_key(pairs, [(deck.suit(c), deck.rank(c)) for c in undealt], deck.ranks,
                                reverse=reverse)
    key_row, key_undealt = _decode(key, deck.ranks)
    assert len(key_undealt) == len(undealt) and len(key_row) + offset == len(row)
    real = future_scores(row, undealt, lambda r: settle(r, deck, variant))
    reduced = future_scores(key_row, key_undealt, lambda r: _settle(r, reverse))
    assert real == Counter({score + offset: n for score, n in reduced.items()})


def test_dead_labels_never_match():
    row = [(DEAD, 0), (1, DEAD), (2, 2), (DEAD, DEAD)]
    assert _settle(row, False) == (0, 0) and len(row) == 4


# --- Monte Carlo agrees with the exact answer ---------------------------------------------------

@pytest.mark.parametrize("variant", ["one-handed", "one-handed(win=any,reverse=on)"])
def test_monte_carlo_interval_covers_exact(variant):
    deck = Deck(3, 4)
    exact = exact_distribution(deck, variant)
    mc = simulate(deck, variant, games=200_000, seed=20240601, workers=1, progress=False)
    low, high = mc.ci95
    assert low <= float(exact.p_win) <= high
    assert abs(mc.mean_score - float(exact.mean_score)) < 5 * mc.mean_score_se


# --- API, result record, limits -------------------------------------------------------------------

def test_result_record():
    result = exact_distribution(Deck(2, 4))
    assert result.kind == "exact" and result.orders == math.factorial(8)
    assert sum(result.score_counts) == result.orders
    assert result.p_win == Fraction(result.score_counts[0], result.orders)
    d = result.to_dict()
    assert {"game", "suits", "ranks", "variant", "method", "orders", "score_counts", "p_win",
            "mean_score"} <= d.keys()
    assert Fraction(d["p_win"]) == result.p_win and Fraction(d["mean_score"]) == result.mean_score
    assert result.provenance["method"] == "dp" and "git_commit" in result.provenance


def test_result_rejects_counts_that_do_not_add_up():
    deck = Deck(1, 2)
    with pytest.raises(ValueError):
        ExactResult(game="one-handed", deck=deck, variant=Variant.make("one-handed"), method="dp",
                    orders=2, score_counts=(0, 0, 1), wins=0)


def test_methods_agree_through_the_api():
    a = exact_distribution(Deck(3, 3), method="enumerate")
    b = exact_distribution(Deck(3, 3), method="dp")
    assert a.score_counts == b.score_counts and a.method == "enumerate" and b.method == "dp"


@pytest.mark.parametrize("method, cards", [("enumerate", MAX_ENUMERATE_CARDS + 1), ("dp", MAX_DP_CARDS + 1)])
def test_too_large_is_refused_at_once(method, cards):
    with pytest.raises(UsageError, match="simulate"):
        exact_distribution(Deck(1, cards), method=method)


def test_wide_decks_have_the_lower_dp_limit():
    from exact.one_handed.limits import MAX_DP_CARDS_WIDE, choose_method

    assert choose_method(Deck(4, 4), "dp") == "dp"  # 16 cards: played out, within the limits
    assert choose_method(Deck(3, 6), "dp") == "dp"  # 18 cards: within the limits (15 min, 7 GB)
    with pytest.raises(UsageError, match=str(MAX_DP_CARDS_WIDE)):
        exact_distribution(Deck(4, 5), method="dp")
    with pytest.raises(UsageError, match="simulate"):
        exact_distribution(Deck(5, 4), method="dp")
    assert choose_method(Deck(2, 10), "dp") == "dp"  # 20 cards with 2 suits: the narrow limit


def test_bad_method_and_game():
    with pytest.raises(UsageError):
        exact_distribution(Deck(2, 2), method="guess")
    with pytest.raises(UsageError):
        exact_distribution(Deck(2, 2), "hand")


def test_cli_json(cli_run):
    exact_distribution(Deck(2, 4), "one-handed(win=any)")  # compiled first: see test_exact_phase.test_cli_phase_json
    code, out, err = cli_run("exact", "--suits", "2", "--ranks", "4", "--json", "--variant", "win=any")
    assert code == 0 and err == ""
    obj = json.loads(out)
    assert obj["orders"] == 40320 and sum(obj["score_counts"]) == 40320
    assert obj["variant"] == "one-handed(win=any,reverse=off,first4=kept)"
    assert Fraction(obj["p_win"]) == Fraction(obj["wins"], 40320)
    assert obj["method"] == "dp"


@pytest.mark.parametrize("args", [
    ["--suits", "4", "--ranks", "13"],
    ["--suits", "4", "--ranks", "4", "--method", "enumerate"],
    ["--game", "hand"],
    ["--method", "magic"],
])
def test_cli_refusals_are_one_line(cli_run, args):
    code, out, err = cli_run("exact", *args, "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("solitaire: error: ")


@pytest.mark.parametrize("deck", shapes(9), ids=str)
@pytest.mark.parametrize("variant", ALL_VARIANTS[:4], ids=str)
def test_dp_kernel_equals_python_dp(deck, variant):
    assert dp_distribution(deck, variant) == dp_distribution_reference(deck, variant)


@settings(max_examples=150)
@given(deck=decks(max_cards=16), variant=variants("one-handed"), data=st.data())
def test_dp_kernel_key_keeps_the_future(deck, variant, data):
    """The numba DP's reduction and relabelling are sound, as for the Python reference."""
    order = data.draw(st.permutations(list(deck.cards())))
    left = data.draw(st.integers(0, min(6, deck.size)))
    dealt, undealt = order[:deck.size - left], order[deck.size - left:]
    reverse = variant.rules.reverse
    row = []
    for card in dealt:
        row.append(card)
        settle(row, deck, variant)
    key_row, key_undealt, offset = canonical_key_kernel(
        [(deck.suit(c), deck.rank(c)) for c in row], [(deck.suit(c), deck.rank(c)) for c in undealt],
        deck.suits, deck.ranks, reverse)
    assert len(key_undealt) == len(undealt) and len(key_row) + offset == len(row)
    real = future_scores(row, undealt, lambda r: settle(r, deck, variant))
    reduced = future_scores(key_row, key_undealt, lambda r: _settle(r, reverse))
    assert real == Counter({score + offset: n for score, n in reduced.items()})


# --- the play-out finish (exact.one_handed.finish) ------------------------------------------------------------

@pytest.mark.parametrize("deck", shapes(9), ids=str)
@pytest.mark.parametrize("variant", ALL_VARIANTS[::2], ids=str)  # the DP plays first4=kept
def test_finish_equals_full_dp_at_every_split(deck, variant):
    """Building every layer, or stopping k cards early and playing the rest out, for every k
    (k = the deck's size plays every order from the empty row: plain enumeration)."""
    full = dp_distribution(deck, variant, finish_cards=0)
    for k in range(1, deck.size + 1):
        assert dp_distribution(deck, variant, finish_cards=k) == full, k


@pytest.mark.parametrize("deck", [Deck(2, 5), Deck(5, 2)], ids=str)
@pytest.mark.parametrize("k", [0, 3, 6, 10])
def test_finish_equals_enumeration_on_larger_decks(deck, k):
    for variant in ALL_VARIANTS[::2]:
        assert dp_distribution(deck, variant, finish_cards=k) == enumerate_distribution(deck, variant)


@settings(max_examples=150)
@given(deck=decks(max_cards=20), variant=variants("one-handed"), data=st.data())
def test_play_out_equals_the_reference_rules(deck, variant, data):
    """The copy-free play-out (shared row, one cell written and restored per deal) against the
    reference rules played order by order, scores and emptied rows (win=any) both."""
    from exact.one_handed.finish import play_out_distribution

    order = data.draw(st.permutations(list(deck.cards())))
    left = data.draw(st.integers(0, min(6, deck.size)))
    dealt, undealt = order[:deck.size - left], order[deck.size - left:]
    row = []
    for card in dealt:
        row.append(card)
        settle(row, deck, variant)
    scores = Counter()
    emptied = 0
    for rest in itertools.permutations(undealt):
        current = list(row)
        ever_empty = False
        for card in rest:
            current.append(card)
            before = len(current)
            settle(current, deck, variant)
            ever_empty |= len(current) < before and not current
        scores[len(current)] += 1
        emptied += ever_empty
    got, got_emptied = play_out_distribution(
        [(deck.suit(c), deck.rank(c)) for c in row], [(deck.suit(c), deck.rank(c)) for c in undealt],
        reverse=variant.rules.reverse, track_empty=True, offset=3)
    assert got == [scores.get(s - 3, 0) for s in range(len(got))]
    assert got_emptied == emptied


@pytest.mark.slow
@pytest.mark.parametrize("deck", [Deck(3, 5), Deck(5, 3)], ids=str)
def test_finish_equals_full_dp_15_cards(deck):
    for variant in ALL_VARIANTS[::2]:
        assert dp_distribution(deck, variant) == dp_distribution(deck, variant, finish_cards=0)


def test_cli_out_saves_the_result(cli_run, tmp_path):
    from sim.store import ResultsStore

    path = tmp_path / "store.h5"
    code, out, err = cli_run("exact", "--suits", "2", "--ranks", "3", "--out", str(path))
    assert code == 0, err
    (name,) = ResultsStore(path).names(kind="exact")
    assert f"stored as {name} in {path}" in out
    record = ResultsStore(path).load(name)
    assert record["p_win"] == "2/15" and record["game"] == "one-handed" and sum(record["score_counts"]) == 720


def test_cli_out_refuses_a_foreign_file_before_any_work(cli_run, tmp_path):
    path = tmp_path / "not_a_store.h5"
    path.write_text("hello")
    code, out, err = cli_run("exact", "--suits", "2", "--ranks", "3", "--out", str(path), "--json")
    assert code == 2 and out == "" and err.count("\n") == 1
