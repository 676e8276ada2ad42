"""Best play: the solver against a plain brute force over every sequence of deals and moves."""
import functools
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact.prisoners.solver import (LOST, UNDECIDED, WON, best_play_distribution, estimate_best_play,
                                    make_searcher, random_orders, rank_sequences, replay, solve)
from exact.prisoners.solver_kernel import ORDERINGS
from sim import Deck, UsageError, Variant
from sim.kernels.prisoners import play_orders
from sim.rules.prisoners import apply_move, legal_moves

from .strategies import deck_orders

VARIANTS = [Variant.make("prisoners", moves=m, wrap=w) for m in ("physical", "published") for w in ("on", "off")]


def brute_force_fewest_piles(order, deck, variant):
    """Fewest piles reachable when, before each deal and after the last, the player may make any
    legal moves (the game as played, deals interleaved; full piles of cards; memo on the full state)."""
    wrap, reverse = variant.rules.wrap, variant.rules.reverse_piles
    n = len(order)

    @functools.lru_cache(maxsize=None)
    def best(piles, dealt):
        rows = [list(p) for p in piles]
        options = [] if dealt == n else [best(piles + ((order[dealt],),), dealt + 1)]
        if dealt == n:
            options.append(len(piles))
        for source, target in legal_moves(rows, deck, wrap):
            options.append(best(tuple(map(tuple, apply_move(rows, source, target, reverse))), dealt))
        return min(options)

    return best((), 0)


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(1, 4), (2, 2), (1, 6), (2, 3), (3, 2)])
def test_solver_equals_brute_force_on_every_order(shape, variant):
    deck = Deck(*shape)
    for order in itertools.permutations(deck.cards()):
        won = brute_force_fewest_piles(order, deck, variant) == 1
        result = solve(order, deck, variant)
        assert result.status == (WON if won else LOST), order
        if won:
            assert len(replay(order, deck, variant, result.line)) == 1


@settings(max_examples=40)
@given(data=st.data(), shape=st.sampled_from([(1, 7), (2, 4), (4, 2), (1, 8), (3, 3), (2, 5)]),
       variant=st.sampled_from(VARIANTS))
def test_solver_equals_brute_force_on_random_orders(data, shape, variant):
    deck = Deck(*shape)
    order = data.draw(deck_orders(deck))
    won = brute_force_fewest_piles(tuple(order), deck, variant) == 1
    result = solve(order, deck, variant)
    assert result.status == (WON if won else LOST)
    if won:
        assert len(replay(order, deck, variant, result.line)) == 1


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_best_play_distribution_equals_brute_force(variant):
    deck = Deck(2, 3)
    counts = [0] * (deck.size + 1)
    for order in itertools.permutations(deck.cards()):
        counts[brute_force_fewest_piles(order, deck, variant)] += 1
    result = best_play_distribution(deck, variant)
    assert list(result.score_counts) == counts and result.wins == counts[1]
    assert result.method == "best-play" and sum(counts) == math.factorial(6)


def test_rank_sequences_are_the_distinct_ones():
    seqs = list(rank_sequences(2, 3))
    assert len(seqs) == len(set(seqs)) == math.factorial(6) // 2**3
    assert set(seqs) == set(itertools.permutations([0, 0, 1, 1, 2, 2]))


@pytest.mark.parametrize("moves", ["published", "physical"])
def test_policy_wins_are_best_play_wins(moves):
    # The published policy is one way of playing: every deck it wins, best play wins too.
    deck = Deck(4, 13)
    variant = Variant.make("prisoners", moves=moves)
    orders = random_orders(deck, 60_000, seed=4)
    scores = play_orders(orders, deck, variant)
    policy_won = orders[scores == 1]
    if moves == "published":
        assert len(policy_won) >= 1
    for order in policy_won:
        result = solve(order.tolist(), deck, variant, node_budget=2_000_000)
        assert result.status == WON
        assert len(replay(order.tolist(), deck, variant, result.line)) == 1


def test_budget_gives_undecided_and_estimate_brackets():
    deck = Deck(4, 13)
    order = random_orders(deck, 1, seed=1)[0].tolist()
    result = solve(order, deck, "prisoners(moves=physical)", node_budget=5)
    assert result.status == UNDECIDED and result.line is None and result.nodes == 5
    est = estimate_best_play(Deck(2, 5), "prisoners(moves=physical)", decks=300, seed=2, node_budget=50)
    assert est.won + est.lost + est.undecided == 300
    low, high = est.ci95
    assert low <= est.won / 300 <= (est.won + est.undecided) / 300 <= high


def test_replay_rejects_illegal_moves_and_bad_input():
    deck = Deck(1, 13)
    with pytest.raises(ValueError):
        replay([0, 5, 1], deck, None, [(2, 1)])
    with pytest.raises(UsageError):
        solve([0, 0, 1], Deck(1, 3))
    with pytest.raises(UsageError):
        solve([0, 1, 2], Deck(1, 3), node_budget=0)


def test_cli_solve(cli_run):
    import json

    code, out, _ = cli_run("solve", "--suits", "1", "--ranks", "3", "--order", "0,2,1", "--variant", "wrap=off",
                           "--json")
    obj = json.loads(out)
    assert code == 0 and obj["status"] == "won" and obj["variant"] == "prisoners(moves=physical,wrap=off)"
    assert len(replay(obj["order"], Deck(1, 3), obj["variant"], obj["line"])) == 1
    code, out, _ = cli_run("solve", "--suits", "2", "--ranks", "3", "--all", "--json")
    assert code == 0 and json.loads(out)["orders"] == 720
    code, out, _ = cli_run("solve", "--suits", "2", "--ranks", "5", "--decks", "40", "--seed", "1",
                           "--node-budget", "100", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["won"] + obj["lost"] + obj["undecided"] == 40
    code, out, err = cli_run("solve", "--order", "1,2", "--json")
    assert code == 2 and out == "" and err.startswith("solitaire: error:")


# --- the numba engine ------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(data=st.data(), shape=st.sampled_from([(1, 5), (2, 4), (3, 3), (4, 3), (2, 7), (4, 5), (4, 13), (3, 20)]),
       variant=st.sampled_from(VARIANTS), node_budget=st.sampled_from([1, 7, 300, 4000]))
def test_kernel_with_reference_ordering_equals_python_search(data, shape, variant, node_budget):
    # Same move order, same table semantics: same verdict, same node count, same winning line.
    deck = Deck(*shape)
    ranks = [deck.rank(c) for c in data.draw(deck_orders(deck))]
    python = make_searcher(deck, variant, engine="python").solve_ranks(ranks, node_budget)
    assert make_searcher(deck, variant, engine="numba").solve_ranks(ranks, node_budget) == python


@pytest.mark.parametrize("ordering", ORDERINGS)
@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(1, 5), (2, 3), (3, 2), (2, 4)])
def test_kernel_equals_brute_force_on_spread_orders(shape, variant, ordering):
    deck = Deck(*shape)
    orders = list(itertools.permutations(deck.cards()))
    for order in orders[:: max(1, len(orders) // 60)]:
        won = brute_force_fewest_piles(order, deck, variant) == 1
        result = solve(order, deck, variant, engine="numba", ordering=ordering)
        assert result.status == (WON if won else LOST), order
        if won:
            assert len(replay(order, deck, variant, result.line)) == 1


@pytest.mark.parametrize("ordering", ORDERINGS)
@pytest.mark.parametrize("moves", ["published", "physical"])
def test_kernel_lines_replay_on_full_decks(moves, ordering):
    deck = Deck(4, 13)
    variant = Variant.make("prisoners", moves=moves)
    statuses = set()
    for order in random_orders(deck, 12, seed=11):
        result = solve(order.tolist(), deck, variant, node_budget=20_000, ordering=ordering)
        statuses.add(result.status)
        if result.won:
            assert len(result.line) == 51
            assert len(replay(order.tolist(), deck, variant, result.line)) == 1
    if moves == "published":
        assert WON in statuses


def test_kernel_table_survives_being_emptied():
    # A tiny table is emptied many times during one search; the verdicts must not change.
    import exact.prisoners.solver_kernel as kernel

    deck = Deck(3, 4)
    variant = Variant.make("prisoners", moves="published")
    searcher = make_searcher(deck, variant, engine="numba")
    reference = make_searcher(deck, variant, engine="python")
    for order in random_orders(deck, 40, seed=3):
        ranks = [int(c) % deck.ranks for c in order]
        tops = np.array(ranks, dtype=np.int64)
        hashes = np.zeros(8, dtype=np.uint64)
        keys = np.zeros((8, deck.size), dtype=np.uint8)
        line = np.zeros((deck.size - 1, 2), dtype=np.int64)
        verdict, _, length = kernel.search_row(tops, tops.copy(), searcher.neighbours, deck.ranks, True,
                                               10**6, 0, hashes, keys, line)
        reference.lost.clear()
        assert {0: LOST, 1: WON}[verdict] == reference.solve_ranks(ranks, 10**6)[0]
        assert tops.tolist() == ranks  # the row is restored


def test_engine_errors():
    with pytest.raises(UsageError):
        solve([0, 1, 2], Deck(1, 3), engine="gpu")
    with pytest.raises(UsageError):
        solve([0, 1, 2], Deck(1, 3), engine="python", ordering=1)
    with pytest.raises(UsageError):
        solve(list(range(64)), Deck(1, 64), engine="numba")
    with pytest.raises(UsageError):
        solve([0, 1, 2], Deck(1, 3), ordering=9)


def test_cli_solve_zero_decks_says_decks(cli_run):
    code, out, err = cli_run("solve", "--decks", "0", "--json")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "decks must be at least 1" in err and "games" not in err


def test_cli_solve_help_shows_the_default_budget(cli_run):
    from exact.prisoners.limits import DEFAULT_NODE_BUDGET

    code, out, _ = cli_run("solve", "--help")
    assert code == 0 and f"{DEFAULT_NODE_BUDGET:,}" in " ".join(out.split())


def test_cli_solve_out_saves_the_estimate(cli_run, tmp_path):
    import json

    from sim.store import ResultsStore

    path = tmp_path / "store.h5"
    code, out, err = cli_run("solve", "--suits", "2", "--ranks", "4", "--decks", "12", "--seed", "3",
                             "--out", str(path), "--json")
    assert code == 0, err
    obj = json.loads(out)
    (name,) = ResultsStore(path).names(kind="best_play")
    record = ResultsStore(path).load(name)
    assert (record["won"], record["lost"], record["undecided"]) == (obj["won"], obj["lost"], obj["undecided"])
    assert record["seed"] == 3 and record["decks"] == 12 and "finished" in record["provenance"]
    code, out, err = cli_run("solve", "--suits", "2", "--ranks", "3", "--all", "--out", str(path))
    assert code == 0 and "stored as" in out
    assert len(ResultsStore(path).names(kind="exact")) == 1
