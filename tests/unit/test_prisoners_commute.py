"""The commuting-move reduction of the best-play search (``exact/prisoners/solver.py``): after a move
onto pile ``j`` only moves from pile ``j`` or right of it; the lost-row table keeps the least bound
a row was proven lost from. Checked against exhaustive search on every reachable row."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exact.prisoners.solver_kernel as kernel
from exact.prisoners.best_play import random_orders, rank_sequences
from exact.prisoners import lost_rows, proofs
from exact.prisoners.solver import LOST, UNDECIDED, WON, Searcher, make_searcher, replay
from sim import Deck, Variant

from ..naive import fewest_piles_of_every_row
from ..strategies import deck_orders


def _every_row_verdict(shape, moves, wrap, commute):
    deck = Deck(*shape)
    variant = Variant.make("prisoners", moves=moves, wrap=wrap)
    reference, fewest = fewest_piles_of_every_row(deck, variant)
    searcher = Searcher(deck.ranks, wrap=variant.rules.wrap, reverse=variant.rules.reverse_piles, commute=commute)
    won = 0
    for row, piles in fewest.items():  # one table for all rows: its entries are facts about rows
        verdict = searcher.solve_row(row, 10**7)
        assert verdict.status == (WON if piles == 1 else LOST), row
        won += piles == 1
    return won, len(fewest)


@pytest.mark.parametrize("moves", ["published", "physical"])
@pytest.mark.parametrize("wrap", ["on", "off"])
@pytest.mark.parametrize("shape", [(2, 4), (3, 3), (1, 7), (4, 2)])
def test_reduced_search_decides_every_reachable_row(shape, wrap, moves):
    # Every row reachable from every order, searched from bound 0 with the reduction on: the exact
    # verdict (the proof in solver.py holds for both rules; the solver applies it to published only).
    won, rows = _every_row_verdict(shape, moves, wrap, commute=True)
    assert rows > 100 and (won > 0 or (shape, moves, wrap) == ((3, 3), "published", "off"))


@pytest.mark.slow
@pytest.mark.parametrize("moves", ["published", "physical"])
@pytest.mark.parametrize("shape", [(2, 5), (3, 4)])
def test_reduced_search_decides_every_reachable_row_larger_decks(shape, moves):
    won, _ = _every_row_verdict(shape, moves, "on", commute=True)
    assert won > 0


def test_reduced_search_enters_fewer_rows():
    # What the reduction saves: rows entered (each a lost-row table lookup) and here rows expanded, as
    # the moves it skips lead to rows also reached in the canonical order (on 3x6 without wrap, 20
    # decks: 51,963 -> 43,655 rows expanded, 38,769 -> 13,073 table hits). Same verdicts; lines replay.
    deck = Deck(3, 6)
    variant = Variant.make("prisoners", moves="published", wrap="off")
    plain = make_searcher(deck, variant, engine="numba", strategy="dfs")
    reduced = make_searcher(deck, variant, engine="numba", strategy="dfs")
    reduced.proofs |= kernel.COMMUTE
    entered = {False: 0, True: 0}
    for order in random_orders(deck, 20, seed=4):
        ranks = [deck.rank(c) for c in order]
        verdicts = []
        for commute, searcher in ((False, plain), (True, reduced)):
            verdicts.append(searcher.solve_ranks(ranks, 10**6))
            expanded, hits, _ = searcher.profile()
            entered[commute] += int(expanded.sum() + hits.sum())
        assert verdicts[0].status == verdicts[1].status != UNDECIDED
        if verdicts[1].status == WON:
            assert len(replay(order.tolist(), deck, variant, verdicts[1].line)) == 1
    assert 0 < entered[True] < entered[False]


def test_kernel_bounded_table_keeps_the_least_bound():
    # A row stored lost from bound 3 is known lost from 3 and above, not from 2; storing it again from
    # 1 lowers its bound; the dealt row (as long as the deck) is stored from 0.
    cards, ranks = 8, 4
    hashes, keys = lost_rows.new_table(cards, ranks, 100)

    def tagged(tops, bottoms, m):  # the row's hash in the table's generation 1, as a uint64
        return np.uint64(lost_rows.slot_tag(np.uint64(lost_rows.row_hash(tops, bottoms, m, ranks, True)), 1))

    tops = np.array([0, 1, 2, 3, 0, 1, 0, 0], dtype=np.int64)
    bottoms = np.array([1, 1, 3, 3, 2, 1, 0, 0], dtype=np.int64)
    m = 6
    h = tagged(tops, bottoms, m)
    assert not lost_rows.lookup_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, True, 5)
    filled = lost_rows.insert_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, True, 3, 0)
    assert filled == 1
    assert [lost_rows.lookup_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, True, b) for b in range(6)] == [
        False, False, False, True, True, True]
    assert lost_rows.insert_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, True, 1, filled) == 1  # updated in place
    assert lost_rows.lookup_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, True, 1)
    assert lost_rows.insert_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, True, 4, filled) == 1  # keeps 1
    assert lost_rows.lookup_row_bounded(hashes, keys, h, tops, bottoms, m, ranks, True, 1)
    # a shorter row with the same first piles is another row
    h5 = tagged(tops, bottoms, 5)
    assert not lost_rows.lookup_row_bounded(hashes, keys, h5, tops, bottoms, 5, ranks, True, 5)
    dealt = np.array([0, 1, 2, 3, 0, 1, 2, 3], dtype=np.int64)
    hd = tagged(dealt, dealt, cards)
    lost_rows.insert_row_bounded(hashes, keys, hd, dealt, dealt, cards, ranks, True, 0, filled)
    assert lost_rows.lookup_row_bounded(hashes, keys, hd, dealt, dealt, cards, ranks, True, 0)


@pytest.mark.parametrize("moves", ["published", "physical"])
@pytest.mark.parametrize("wrap", ["on", "off"])
@pytest.mark.parametrize("shape", [(2, 4), (3, 3)])
def test_kernel_reduced_search_equals_exhaustive_search_in_every_order(shape, wrap, moves):
    # The kernel with the reduction (the COMMUTE bit) from every dealt row, in the reference's and in
    # random move orders, with a table kept across rows and orders.
    deck = Deck(*shape)
    variant = Variant.make("prisoners", moves=moves, wrap=wrap)
    reverse = variant.rules.reverse_piles
    reference, fewest = fewest_piles_of_every_row(deck, variant)
    masks = kernel.neighbour_masks(deck.ranks, variant.rules.wrap)
    hashes, keys = lost_rows.new_table(deck.size, deck.ranks, 10**5)
    line = np.zeros((deck.size - 1, 2), dtype=np.int64)
    for seq in rank_sequences(deck.suits, deck.ranks):
        won = fewest[reference.start_row(seq)] == 1
        for ordering, seed in ((0, 0), (2, 1), (2, 2), (4, 0)):
            tops = np.array(seq, dtype=np.int64)
            verdict, _, _ = kernel.search_row(tops, tops.copy(), masks, deck.ranks, reverse, 10**6, ordering,
                                              hashes, keys, line, seed, kernel.ALL_PROOFS | kernel.COMMUTE)
            assert verdict == (kernel.WON_CODE if won else kernel.LOST_CODE), (seq, ordering)


def test_the_restarts_turn_the_reduction_on_after_commute_after():
    from exact.prisoners.solver import COMMUTE_AFTER

    deck = Deck(4, 5)
    published = Variant.make("prisoners", moves="published")
    assert not make_searcher(deck, published, engine="python").commute
    searcher = make_searcher(deck, published, engine="numba")
    assert searcher.commute_after == COMMUTE_AFTER["published"] > 0
    assert searcher.proofs & kernel.ALL_PROOFS == kernel.ALL_PROOFS  # (above them: solver.PROOF_PILES)
    assert not searcher.proofs & kernel.COMMUTE  # the restarts add it run by run
    assert make_searcher(deck, published, engine="numba", strategy="dfs").commute_after is None
    physical = Variant.make("prisoners", moves="physical")
    assert make_searcher(deck, physical, engine="numba", strategy="restarts").commute_after == 0
    assert make_searcher(deck, physical, engine="numba").commute_after is None  # the hybrid's probe looks for a win


@pytest.mark.parametrize("moves", ["published", "physical"])
@pytest.mark.parametrize("shape, wrap", [((2, 4), "on"), ((3, 3), "on"), ((2, 4), "off"), ((1, 7), "on")])
def test_restarts_that_turn_the_reduction_on_midway_are_exact(shape, wrap, moves, monkeypatch):
    # The rows proven lost before the switch are read after it as lost from every bound: every dealt
    # row's verdict must still be exact, whenever the switch comes (never, at once, after a few nodes).
    # Runs of a few nodes each, so that small decks switch midway.
    from exact.prisoners import solver

    monkeypatch.setattr(solver, "RESTART_SCHEDULE", {"published": (2, 1.3), "physical": (2, 1.3)})
    deck = Deck(*shape)
    variant = Variant.make("prisoners", moves=moves, wrap=wrap)
    reference, fewest = fewest_piles_of_every_row(deck, variant)
    switched = {}
    searchers = {after: make_searcher(deck, variant, engine="numba") for after in (None, 0, 3, 40)}
    for after, searcher in searchers.items():
        searcher.commute_after = after
        plain_run = searcher._run

        def run(*args, searcher=searcher, plain_run=plain_run):
            modes = switched.setdefault(id(searcher), [])
            modes.append(bool(args[-1] & kernel.COMMUTE))
            return plain_run(*args)

        searcher._run = run
    midway = 0
    for seq in list(rank_sequences(deck.suits, deck.ranks))[:300]:
        truth = WON if fewest[reference.start_row(seq)] == 1 else LOST
        for after, searcher in searchers.items():
            switched.clear()
            verdict = searcher.solve_ranks(seq, 10**6)
            assert verdict.status == truth, (seq, after)
            modes = switched.get(id(searcher), [])
            assert all(modes) if after == 0 else not any(modes) if after is None else modes == sorted(modes)
            midway += False in modes and True in modes
    assert midway > 20  # many searches did switch midway


@settings(max_examples=40, deadline=None)
@given(data=st.data(), shape=st.sampled_from([(2, 4), (3, 3), (4, 3), (2, 7), (4, 5), (4, 13)]),
       wrap=st.sampled_from(["on", "off"]), node_budget=st.sampled_from([1, 7, 300, 4000]), reverse=st.booleans())
def test_kernel_reduction_equals_the_reference_reduction(data, shape, wrap, node_budget, reverse):
    # Same move order (the reference's), same cuts, same bounded table: same verdict, nodes and line.
    deck = Deck(*shape)
    ranks = [deck.rank(c) for c in data.draw(deck_orders(deck))]
    reference = Searcher(deck.ranks, wrap=wrap == "on", reverse=reverse, commute=True)
    python = reference.solve_ranks(ranks, node_budget)
    if python.proof in proofs.CONDITIONS:
        return  # closed on the dealt row, before any search
    masks = kernel.neighbour_masks(deck.ranks, wrap == "on")
    hashes, keys = lost_rows.new_table(deck.size, deck.ranks, node_budget)
    line = np.zeros((deck.size - 1, 2), dtype=np.int64)
    tops = np.array(ranks, dtype=np.int64)
    verdict, nodes, _ = kernel.search_row(tops, tops.copy(), masks, deck.ranks, reverse, node_budget, 0, hashes,
                                          keys, line, 0, kernel.ALL_PROOFS | kernel.COMMUTE)
    assert {kernel.WON_CODE: WON, kernel.LOST_CODE: LOST, kernel.UNDECIDED_CODE: UNDECIDED}[verdict] == python.status
    assert nodes == python.nodes
    if verdict == kernel.WON_CODE:
        assert tuple(map(tuple, line.tolist())) == python.line


# --- unpaired_tops: the leftover top is the bottom of a pile other than the first ---------------------

@pytest.mark.parametrize("shape, wrap", [((2, 4), "on"), ((3, 3), "on"), ((2, 4), "off"), ((1, 7), "on")])
def test_unpaired_tops_final_top_is_a_bottom_closes_more_rows(shape, wrap):
    # The refinement (the final top must be the bottom rank of a pile other than the first) closes
    # rows that any final rank leaves open, all of them lost by exhaustive search (the soundness
    # tests of test_prisoners_solver.py run it on every reachable row).
    variant = Variant.make("prisoners", moves="published", wrap=wrap)
    searcher, fewest = fewest_piles_of_every_row(Deck(*shape), variant)
    cycle = wrap == "on" and len(searcher.neighbours) >= 3

    def any_final_rank(row) -> bool:  # the condition before the refinement
        counts = [0] * len(searcher.neighbours)
        for p, (bottom, top) in enumerate(row):
            counts[top] += 1
            if p > 0:
                counts[bottom] += 1
        for final in range(len(counts)):
            if counts[final]:
                counts[final] -= 1
                ok = proofs.pairable(counts, cycle)
                counts[final] += 1
                if ok:
                    return False
        return True

    fired = [row for row in fewest if proofs.unpaired_tops(row, searcher.neighbours, True)]
    assert all(fewest[row] > 1 for row in fired)
    assert all(proofs.unpaired_tops(row, searcher.neighbours, True) for row in fewest if any_final_rank(row))
    assert any(not any_final_rank(row) for row in fired)
