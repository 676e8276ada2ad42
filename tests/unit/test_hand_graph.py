"""The whole-deck Hand Solitaire graph (classes + suit/rank relabelling) against a brute-force
state graph built from the reference rules, and against Monte Carlo."""
import itertools
from collections import Counter
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from exact.hand.graph import canonical_class, canonical_orders, explore_classes, group_size
from exact.hand.limits import MAX_GRAPH_CARDS
from exact.hand.whole_deck import analyse_deck, analyse_deck_reference
from sim import Deck, UsageError, Variant, simulate
from sim.rules.hand import next_order, play_iteration
from sim.stats import mean_and_se

ALL_VARIANTS = [Variant.make("hand", step7=a, rank_resets=b, reshuffle=c)
                for a in ("on", "off") for b in ("written", "published") for c in ("on", "off")]


def state_graph(deck: Deck, variant: Variant):
    """Every deck order as a node, successors from the reference rules; no classes, no symmetry.

    Returns ``(graph, first_wins)``; winning orders point to the node ``"win"``.
    """
    graph = nx.DiGraph()
    graph.add_node("win")
    first_wins = 0
    for order in itertools.permutations(deck.cards()):
        it = play_iteration(order, deck, variant)
        if it.won:
            graph.add_edge(order, "win")
            first_wins += 1
        elif not variant.rules.reshuffle:
            graph.add_edge(order, next_order(it, variant))
        else:
            graph.add_edges_from((order, it.prefix + p) for p in itertools.permutations(it.leftovers))
    return graph, first_wins


def brute_force(deck: Deck, variant: Variant):
    """Poison sets, unwinnable orders, P(win) and E[iterations | win] from :func:`state_graph`."""
    graph, first_wins = state_graph(deck, variant)
    poison = Counter(len(c) for c in nx.attracting_components(graph) if "win" not in c)
    can_win = nx.ancestors(graph, "win")
    states = [s for s in graph if s != "win"]
    unwinnable = sum(s not in can_win for s in states)
    # P(win) and E[T 1_win] per state, in floats (numpy), as an independent check of the fractions
    transient = [s for s in states if s in can_win]
    index = {s: i for i, s in enumerate(transient)}
    q = np.zeros((len(transient), len(transient)))
    b = np.zeros(len(transient))
    for s in transient:
        successors = list(graph.successors(s))
        for t in successors:
            if t == "win":
                b[index[s]] += 1.0
            elif t in index:
                q[index[s], index[t]] += 1.0 / len(successors)
    h = np.linalg.solve(np.eye(len(transient)) - q, b) if transient else b
    m = np.linalg.solve(np.eye(len(transient)) - q, h) if transient else b
    p_win = h.sum() / len(states)
    expected = m.sum() / h.sum() if h.sum() else None
    return first_wins, unwinnable, dict(poison), p_win, expected


@pytest.mark.parametrize("shape", [(1, 4), (2, 2), (2, 3), (3, 2), (1, 5)])
@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=str)
def test_graph_equals_brute_force(shape, variant):
    deck = Deck(*shape)
    result = analyse_deck(deck, variant)
    first_wins, unwinnable, poison, p_win, expected = brute_force(deck, variant)
    assert result.orders == deck.orders
    assert result.winning_orders == first_wins
    assert result.unwinnable_orders == unwinnable
    assert result.poison_sets == poison
    assert abs(float(result.p_win) - p_win) < 1e-9
    assert result.p_win + result.p_trapped == 1
    if expected is None:
        assert result.expected_iterations_given_win is None
    else:
        assert abs(float(result.expected_iterations_given_win) - expected) < 1e-7


def test_exact_odds_agree_with_monte_carlo():
    deck = Deck(2, 3)
    exact = analyse_deck(deck)
    # won runs of this deck are short (2.07 iterations on average): a cap of 200 leaves a share of
    # the wins far below the interval's width unplayed
    r = simulate(deck, Variant.make("hand"), games=20_000, seed=17, progress=False, options={"cap": 200})
    low, high = r.ci95
    assert low <= exact.p_win <= high
    mean, se = mean_and_se(r.extra["iterations_to_win"])
    assert abs(mean - float(exact.expected_iterations_given_win)) < 4 * se


def test_canonical_forms_are_the_same_for_relabelled_classes():
    deck = Deck(2, 3)
    rng = np.random.default_rng(3)
    for _ in range(50):
        order = rng.permutation(deck.size).tolist()
        cut = int(rng.integers(0, deck.size))
        suits, ranks = rng.permutation(2), rng.permutation(3)
        image = [int(suits[c // 3] * 3 + ranks[c % 3]) for c in order]
        for ordered in (False, True):
            assert (canonical_class(order[:cut], order[cut:], deck, ordered=ordered)
                    == canonical_class(image[:cut], image[cut:], deck, ordered=ordered))


def test_canonical_orders_cover_each_orbit_once():
    deck = Deck(2, 3)
    orders = list(canonical_orders(deck))
    assert len(orders) * group_size(deck) == deck.orders


def test_known_small_results():
    # One suit: only suit matches, each leaves two of every four cards: never won.
    assert analyse_deck(Deck(1, 6)).p_win == 0
    # 2x2: a rank match clears the deck; every order is won sooner or later.
    assert analyse_deck(Deck(2, 2)).p_win == 1
    assert analyse_deck(Deck(2, 3)).p_win == Fraction(118, 377)


def test_large_decks_are_refused():
    with pytest.raises(UsageError):
        analyse_deck(Deck(4, 13))


@pytest.mark.parametrize("shape", [(2, 4), (4, 2), (1, 7)])
@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=str)
def test_kernel_graph_equals_plain_python_graph(shape, variant):
    # the numba path (canonical keys, stabiliser orbits, state elimination) against the old oracle
    deck = Deck(*shape)
    fast, slow = analyse_deck(deck, variant).to_dict(), analyse_deck_reference(deck, variant).to_dict()
    for key in ("seconds", "orders_played"):
        fast.pop(key), slow.pop(key)
    assert fast == slow


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=str)
def test_real_classes_cover_every_order_once(variant):
    # raw mode plays every member: from the start class the member counts add up to (S*R)!
    deck = Deck(2, 3)
    real = explore_classes(deck, variant, canonical=False)
    assert real.members[0] == deck.orders
    assert real.weight.tolist() == [1] * len(real.keys)
    assert int(real.wins[0]) + int(real.edge_count[real.edge_src == 0].sum()) == deck.orders


def test_whole_graph_limit_names_the_limit():
    with pytest.raises(UsageError, match=f"at most {MAX_GRAPH_CARDS} cards"):
        analyse_deck(Deck(1, MAX_GRAPH_CARDS + 1))


SURVEY_VARIANTS = [Variant.parse(t) for t in
                   ("hand()", "hand(rank_resets=published)", "hand(step7=off)", "hand(reshuffle=off)")]


def decks_up_to(cards):
    return [(s, c // s) for c in range(1, cards + 1) for s in range(1, c + 1) if c % s == 0]


@pytest.mark.parametrize("variant", ALL_VARIANTS, ids=str)
def test_modular_solver_equals_fractions_on_two_decks(variant):
    # the default path (verified lumping, modular solve, Dixon lifting) against Fraction elimination
    # of the unlumped classes, exactly
    for shape in ((2, 3), (3, 2)):
        fast = analyse_deck(Deck(*shape), variant)
        slow = analyse_deck(Deck(*shape), variant, method="fractions")
        assert (fast.p_win, fast.p_trapped, fast.expected_iterations_given_win) == (
            slow.p_win, slow.p_trapped, slow.expected_iterations_given_win)
        assert fast.poison_sets == slow.poison_sets and fast.unwinnable_orders == slow.unwinnable_orders


@pytest.mark.slow
@pytest.mark.parametrize("variant", SURVEY_VARIANTS, ids=str)
@pytest.mark.parametrize("shape", decks_up_to(10), ids=lambda s: f"{s[0]}x{s[1]}")
def test_modular_solver_equals_fractions_up_to_10_cards(shape, variant):
    fast = analyse_deck(Deck(*shape), variant).to_dict()
    slow = analyse_deck(Deck(*shape), variant, method="fractions").to_dict()
    for key in ("seconds",):
        fast.pop(key), slow.pop(key)
    assert fast == slow


def test_prove_mode_and_method_check():
    r = analyse_deck(Deck(2, 3), prove=True)
    assert r.p_win == Fraction(118, 377)
    assert r.solver["lumped_unknowns"] <= r.solver["unknowns"]
    with pytest.raises(UsageError, match="method must be one of"):
        analyse_deck(Deck(2, 3), method="floats")


def test_progress_names_each_phase_and_the_limit_can_be_raised():
    phases = []
    r = analyse_deck(Deck(2, 3), progress=lambda details: phases.append(details["phase"]))
    assert phases[:4] == ["explored", "lumped", "sparse part eliminated", "factored"] and "lifting" in phases
    assert r.p_win == Fraction(118, 377)
    # the size limit, for experiments beyond it (benchmarks/bench_hand_graph.py --beyond)
    big = Deck(1, MAX_GRAPH_CARDS + 1)
    assert analyse_deck(big, max_cards=MAX_GRAPH_CARDS + 1).p_win == 0  # one suit: never won
    with pytest.raises(UsageError, match="max_cards"):
        analyse_deck(Deck(2, 3), max_cards=0)
