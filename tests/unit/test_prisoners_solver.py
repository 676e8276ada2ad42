"""Best play: the solver against a plain brute force over every sequence of deals and moves."""
import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exact.prisoners.solver_kernel as kernel
from exact.prisoners import lost_rows, proofs, proofs_kernel
from exact.prisoners.best_play import (
    best_play_distribution,
    estimate_best_play,
    random_orders,
    rank_sequences,
)
from exact.prisoners.solver import (
    LOST,
    UNDECIDED,
    WON,
    Searcher,
    make_searcher,
    replay,
    solve,
)
from exact.prisoners.solver_kernel import ORDERINGS
from sim import Deck, UsageError, Variant
from sim.kernels.prisoners import play_orders

from ..naive import brute_force_fewest_piles, fewest_piles_of_every_row
from ..strategies import deck_orders

VARIANTS = [Variant.make("prisoners", moves=m, wrap=w) for m in ("physical", "published") for w in ("on", "off")]


@pytest.mark.parametrize("engine, strategy", [("numba", None), ("python", None), ("numba", "layers")])
@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(1, 4), (2, 2), (1, 6), (2, 3), (3, 2)])
def test_solver_equals_brute_force_on_every_order(shape, variant, engine, strategy):
    # Every order, through its rank sequence (orders with equal rank sequences have equal futures:
    # suit symmetry, checked by brute force on every order for two shapes below).
    deck = Deck(*shape)
    searcher = make_searcher(deck, variant, engine=engine, strategy=strategy)
    for seq in rank_sequences(deck.suits, deck.ranks):
        order = _order_of(seq, deck)
        won = brute_force_fewest_piles(order, deck, variant) == 1
        verdict = searcher.solve_ranks(seq, 10**6)
        assert verdict.status == (WON if won else LOST), order
        if won:
            assert len(replay(order, deck, variant, verdict.line)) == 1 and verdict.proof is None
        else:  # the evidence of a loss: a static condition or the exhausted search
            assert verdict.proof in (*proofs.CONDITIONS, proofs.EXHAUSTION)
            assert (verdict.proof == proofs.EXHAUSTION) == (verdict.nodes > 0)


def _order_of(seq, deck):
    """A card order with rank sequence ``seq`` (suits taken in turn)."""
    used = [0] * deck.ranks
    order = []
    for r in seq:
        order.append(used[r] * deck.ranks + r)
        used[r] += 1
    assert [deck.rank(c) for c in order] == list(seq)
    return tuple(order)


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(2, 2), (1, 5)])
def test_solve_equals_brute_force_on_every_card_order(shape, variant):
    deck = Deck(*shape)
    for order in itertools.permutations(deck.cards()):
        won = brute_force_fewest_piles(order, deck, variant) == 1
        assert solve(order, deck, variant).status == (WON if won else LOST), order


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
    assert sum(result.provenance["lost_by"].values()) == result.orders - result.wins


def test_rank_sequences_are_the_distinct_ones():
    seqs = list(rank_sequences(2, 3))
    assert len(seqs) == len(set(seqs)) == math.factorial(6) // 2**3
    assert set(seqs) == set(itertools.permutations([0, 0, 1, 1, 2, 2]))


@pytest.mark.parametrize("moves, shape, games", [("published", (4, 13), 60_000), ("physical", (4, 7), 600)])
def test_policy_wins_are_best_play_wins(moves, shape, games):
    # The published policy is one way of playing: every deck it wins, best play wins too. The
    # physical policy never wins a 52-card deck in practice (0 in 10^8), so its check uses 4x7,
    # where it wins about 1.6% of orders.
    deck = Deck(*shape)
    variant = Variant.make("prisoners", moves=moves)
    orders = random_orders(deck, games, seed=4)
    scores = play_orders(orders, deck, variant)
    policy_won = orders[scores == 1]
    assert len(policy_won) >= (1 if moves == "published" else 3)  # the check below is not empty
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
    assert sum(dict(est.lost_by).values()) == est.lost and est.undecided > 0
    assert dict(est.open_by) == {"node_budget": est.undecided}  # the depth-first search stops at its budget


def test_an_estimate_counts_why_its_open_decks_stopped_and_a_run_begun_before_that_leaves_it_unknown():
    # the hybrid on 4x13 physical decks at a small budget: open at the layers' width cap or the budget
    kwargs = dict(decks=6, seed=2026, node_budget=2_000_000)
    whole = estimate_best_play(Deck(4, 13), "prisoners(moves=physical)", **kwargs)
    open_by = dict(whole.open_by)
    assert sum(open_by.values()) == whole.undecided > 0 and set(open_by) <= {"node_budget", "layer_width"}
    assert whole.to_dict()["open_by"] == open_by
    tallies = []
    estimate_best_play(Deck(4, 13), "prisoners(moves=physical)", **kwargs, on_deck=tallies.append)
    resumed = estimate_best_play(Deck(4, 13), "prisoners(moves=physical)", **kwargs, resume_from=tallies[2])
    same = lambda e: (e.won, e.lost, e.undecided, e.nodes, e.lost_by, e.open_by)  # noqa: E731
    assert same(resumed) == same(whole)
    older = {k: v for k, v in tallies[2].items() if k != "open_by"}  # a checkpoint of an older search
    unknown = estimate_best_play(Deck(4, 13), "prisoners(moves=physical)", **kwargs, resume_from=older)
    assert unknown.open_by is None and unknown.to_dict()["open_by"] is None
    assert (unknown.won, unknown.lost, unknown.undecided) == (whole.won, whole.lost, whole.undecided)


@pytest.mark.parametrize("engine", ["numba", "python"])
def test_time_budget_gives_undecided_before_the_node_budget(engine):
    deck = Deck(4, 13)
    order = random_orders(deck, 1, seed=1)[0].tolist()
    result = solve(order, deck, "prisoners(moves=physical)", node_budget=10**9, time_budget=0.05, engine=engine)
    assert result.status == UNDECIDED and result.nodes < 10**9 and result.seconds >= 0.05
    assert result.time_budget == 0.05 and result.to_dict()["seconds"] == result.seconds


def test_estimate_tallies_the_proofs_of_its_lost_decks():
    # 2x13 physical: most decks are lost (exhaustion), a few by a static condition at the root.
    est = estimate_best_play(Deck(2, 13), "prisoners(moves=physical)", decks=40, seed=11, node_budget=20_000)
    lost_by = dict(est.lost_by)
    assert est.lost >= 30 and sum(lost_by.values()) == est.lost
    assert set(lost_by) <= {*proofs.CONDITIONS, proofs.EXHAUSTION}
    record = est.to_dict()
    assert record["lost_by"] == lost_by


@pytest.mark.parametrize("moves", ["physical", "published"])
def test_verdicts_are_the_same_whatever_the_number_of_workers(moves):
    # Each deck's verdict and nodes depend on that deck alone: the decks solved in one process, in
    # another order, or split between two worker processes, give the records of estimate_best_play.
    from concurrent.futures import ProcessPoolExecutor

    from exact.prisoners.best_play import solve_decks

    deck, variant, decks = Deck(4, 13), f"prisoners(moves={moves})", 12
    args = dict(decks=decks, seed=5, node_budget=20_000)
    one = solve_decks(deck, variant, indices=range(decks), **args)
    backwards = solve_decks(deck, variant, indices=range(decks - 1, -1, -1), **args)[::-1]
    with ProcessPoolExecutor(2) as pool:
        parts = list(pool.map(_solve_part, [(deck, variant, args, range(k, decks, 2)) for k in range(2)]))
    two = sorted(parts[0] + parts[1], key=lambda r: r["deck"])
    key = lambda records: [(r["deck"], r["status"], r["proof"], r["nodes"]) for r in records]  # noqa: E731
    assert key(one) == key(backwards) == key(two)
    est = estimate_best_play(deck, variant, **args)
    statuses = [r["status"] for r in one]
    assert (est.won, est.lost, est.undecided) == tuple(statuses.count(s) for s in ("won", "lost", "undecided"))
    assert est.nodes == sum(r["nodes"] for r in one) and len(set(statuses)) >= 2  # not all alike


def _solve_part(job):
    from exact.prisoners.best_play import solve_decks

    deck, variant, args, indices = job
    return solve_decks(deck, variant, indices=indices, **args)


def test_replay_rejects_illegal_moves_and_bad_input():
    deck = Deck(1, 13)
    with pytest.raises(ValueError):
        replay([0, 5, 1], deck, None, [(2, 1)])
    with pytest.raises(UsageError):
        solve([0, 0, 1], Deck(1, 3))
    with pytest.raises(UsageError):
        solve([0, 1, 2], Deck(1, 3), node_budget=0)
    for bad in (0, -1.0, "1", True):
        with pytest.raises(UsageError, match="time budget"):
            solve([0, 1, 2], Deck(1, 3), time_budget=bad)


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

@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=st.sampled_from([(1, 5), (2, 4), (3, 3), (4, 3), (2, 7), (4, 5), (4, 13), (3, 20)]),
       variant=st.sampled_from(VARIANTS), node_budget=st.sampled_from([1, 7, 300, 4000]))
def test_kernel_with_reference_ordering_equals_python_search(data, shape, variant, node_budget):
    # Same move order, same cuts, same table semantics: same verdict, nodes, cut counts and line.
    deck = Deck(*shape)
    ranks = [deck.rank(c) for c in data.draw(deck_orders(deck))]
    python = make_searcher(deck, variant, engine="python").solve_ranks(ranks, node_budget)
    numba = make_searcher(deck, variant, engine="numba", strategy="dfs").solve_ranks(ranks, node_budget)
    assert numba == python


@settings(max_examples=60, deadline=None)
@given(data=st.data(), shape=st.sampled_from([(1, 5), (2, 4), (3, 3), (4, 5), (4, 13)]),
       variant=st.sampled_from(VARIANTS))
def test_kernel_proofs_equal_the_reference_proofs(data, shape, variant):
    # The kernel's bit-mask and rank-count versions of the conditions against proofs.py, on rows
    # reached by random legal moves from a random deal.
    deck = Deck(*shape)
    searcher = make_searcher(deck, variant, engine="python")
    row = searcher.start_row([deck.rank(c) for c in data.draw(deck_orders(deck))])
    holders = np.zeros(3 * deck.ranks + deck.size, dtype=np.int64)
    masks = kernel.neighbour_masks(deck.ranks, variant.rules.wrap)
    for _ in range(data.draw(st.integers(0, deck.size - 1))):
        children = list(searcher.children(row))
        if not children:
            break
        row = data.draw(st.sampled_from(children))[1]
    tops = np.array([p[1] if searcher.reverse else p for p in row], dtype=np.int64)
    bottoms = np.array([p[0] if searcher.reverse else p for p in row], dtype=np.int64)
    m = len(row)
    linked = proofs_kernel.linked(tops, bottoms, m, masks, deck.ranks, searcher.reverse, holders)
    assert linked == (not proofs.disconnected(row, searcher.neighbours, searcher.reverse))
    if not searcher.reverse:
        found = proofs_kernel.uncoverable_cards(tops, m, masks, deck.ranks, holders[:deck.ranks],
                                          holders[deck.ranks:2 * deck.ranks])
        assert (found >= 2) == proofs.uncoverable_cards(row, searcher.neighbours, False)
    else:
        frozen = proofs_kernel.frozen_piles(tops, bottoms, m, masks, deck.ranks, holders[:deck.ranks])
        assert frozen == proofs.frozen_piles(row, searcher.neighbours, True)
        unpaired = proofs_kernel.unpaired_tops(tops, bottoms, m, deck.ranks, proofs_kernel.is_cycle(masks), holders[:deck.ranks])
        assert unpaired == proofs.unpaired_tops(row, searcher.neighbours, True)
        immovable = proofs_kernel.immovable_piles(tops, bottoms, m, masks, deck.ranks, holders[:deck.size])
        assert immovable == proofs.immovable_piles(row, searcher.neighbours, True)
    if proofs.isolated_pile(row, searcher.neighbours, searcher.reverse):
        assert proofs.disconnected(row, searcher.neighbours, searcher.reverse)  # a special case


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(2, 4), (1, 7), (3, 3), (4, 2)])
def test_static_proofs_never_fire_on_a_winnable_row(shape, variant):
    # Soundness against exhaustive search: every row reachable from every order of the deck, won or
    # not, and every condition. On the physical game they do close rows (the check is not empty);
    # on these decks the published game's lost rows are all connected.
    searcher, fewest = fewest_piles_of_every_row(Deck(*shape), variant)
    fired = winnable = 0
    for row, piles in fewest.items():
        winnable += piles == 1
        for name in proofs.CONDITIONS:
            if proofs._CHECKS[name](row, searcher.neighbours, searcher.reverse):
                assert piles > 1, (name, row)
                fired += 1
    # (3x3 with moves=published, wrap=off has no winnable row at all: nothing there to refute)
    assert winnable >= 50 or (shape, str(variant)) == ((3, 3), "prisoners(moves=published,wrap=off)")
    assert fired > 0 or variant.rules.reverse_piles


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(2, 5), (1, 9), (3, 4)])
def test_static_proofs_never_fire_on_a_winnable_row_larger_decks(shape, variant):
    searcher, fewest = fewest_piles_of_every_row(Deck(*shape), variant)
    for row, piles in fewest.items():
        if piles == 1:
            assert proofs.proof_of_loss(row, searcher.neighbours, searcher.reverse) is None, row


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_uncoverable_cards_proves_rows_connectivity_cannot(variant):
    # The new condition is not contained in the old one: rows it closes that are connected.
    if variant.rules.reverse_piles:
        assert not proofs.uncoverable_cards((0, 1, 2), None, True)
        return
    searcher, fewest = fewest_piles_of_every_row(Deck(2, 4), variant)
    extra = [row for row in fewest
             if proofs.uncoverable_cards(row, searcher.neighbours, False)
             and not proofs.disconnected(row, searcher.neighbours, False)]
    assert extra and all(fewest[row] > 1 for row in extra)


@pytest.mark.parametrize("wrap", ["on", "off"])
def test_uncoverable_cards_position_clause_closes_more_rows(wrap):
    # The clause "a card in one of the first three piles cannot move over a partner" closes lost rows
    # that the partner count alone does not (and, like every condition, never a winnable one: the
    # soundness tests above run it on every reachable row).
    variant = Variant.make("prisoners", moves="physical", wrap=wrap)
    searcher, fewest = fewest_piles_of_every_row(Deck(2, 5), variant)
    neighbours = searcher.neighbours

    def by_count_alone(row) -> bool:
        found = 0
        for p, r in enumerate(row):
            right = sum(1 for s in row[p + 1:] if s in neighbours[r])
            anywhere = sum(1 for q, s in enumerate(row) if q != p and s in neighbours[r])
            found += right == 0 and anywhere <= 1
        return found >= 2

    fired = [row for row in fewest if proofs.uncoverable_cards(row, neighbours, False)]
    assert all(fewest[row] > 1 for row in fired)
    extra = [row for row in fired if not by_count_alone(row)]
    assert extra and all(min(p for p, r in enumerate(row) if not any(s in neighbours[r] for s in row[p + 1:])) <= 2
                         for row in extra)


@settings(max_examples=25, deadline=None)
@given(data=st.data(), shape=st.sampled_from([(2, 4), (3, 4), (4, 5), (4, 13)]), variant=st.sampled_from(VARIANTS),
       pieces=st.integers(1, 50), ordering=st.sampled_from(ORDERINGS))
def test_paused_and_resumed_search_equals_one_run(data, shape, variant, pieces, ordering):
    # The search stops every ``pieces`` nodes and goes on from its saved state: nothing changes.
    deck = Deck(*shape)
    reverse = variant.rules.reverse_piles
    ranks = [deck.rank(c) for c in data.draw(deck_orders(deck))]
    masks = kernel.neighbour_masks(deck.ranks, variant.rules.wrap)
    budget = 3000
    results = []
    for step in (budget, pieces):
        tops = np.array(ranks, dtype=np.int64)
        bottoms = tops.copy()
        hashes, keys = lost_rows.new_table(deck.size, deck.ranks, budget)
        line = np.zeros((deck.size - 1, 2), dtype=np.int64)
        state = kernel.new_state(deck.size, deck.ranks)
        kernel.start(state, deck.size, seed=5)
        stop = 0
        while True:
            stop = min(budget, stop + step)
            verdict = kernel._search(tops, bottoms, masks, deck.ranks, reverse, ordering, hashes, keys, line,
                                     state, stop, kernel.ALL_PROOFS)
            if verdict != kernel.PAUSED_CODE or stop == budget:
                break
        if verdict == kernel.PAUSED_CODE:
            kernel.abandon(tops, bottoms, state)
        assert tops.tolist() == ranks  # the start row is restored
        results.append((verdict, state[0].tolist(), line.tolist() if verdict == kernel.WON_CODE else None))
    assert results[0] == results[1]


def test_restarts_are_reproducible_and_find_wins_dfs_finds():
    deck = Deck(4, 13)
    variant = Variant.make("prisoners", moves="published")
    dfs_won = restart_won = 0
    for order in random_orders(deck, 10, seed=11):
        first = solve(order.tolist(), deck, variant, node_budget=50_000)
        again = solve(order.tolist(), deck, variant, node_budget=50_000)
        assert (first.status, first.line, first.nodes) == (again.status, again.line, again.nodes)
        dfs = solve(order.tolist(), deck, variant, node_budget=50_000, strategy="dfs")
        if first.status != UNDECIDED and dfs.status != UNDECIDED:
            assert first.status == dfs.status  # two decided verdicts never disagree
        dfs_won += dfs.won
        restart_won += first.won
    assert restart_won >= 1 and dfs_won >= 1


@pytest.mark.parametrize("strategy, ordering", [("restarts", 0), ("beam", 0), ("layers", 0)]
                         + [("dfs", o) for o in ORDERINGS])
@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("shape", [(1, 5), (2, 3), (3, 2), (2, 4)])
def test_kernel_equals_brute_force_on_spread_orders(shape, variant, strategy, ordering):
    deck = Deck(*shape)
    orders = list(itertools.permutations(deck.cards()))
    searcher = make_searcher(deck, variant, engine="numba", ordering=ordering, strategy=strategy)
    for order in orders[:: max(1, len(orders) // 60)]:
        won = brute_force_fewest_piles(order, deck, variant) == 1
        result = searcher.solve_ranks([deck.rank(c) for c in order], 10**6)
        assert result.status == (WON if won else LOST), order
        if won:
            assert len(replay(order, deck, variant, result.line)) == 1


@pytest.mark.parametrize("strategy, ordering", [("restarts", 0), ("beam", 0)] + [("dfs", o) for o in ORDERINGS])
@pytest.mark.parametrize("moves, shape", [("published", (4, 13)), ("physical", (4, 7)), ("physical", (4, 8))])
def test_kernel_lines_replay_on_full_decks(moves, shape, strategy, ordering):
    # Decks where wins exist (the physical game is not won on random 52-card decks within such
    # budgets, so its lines are checked on 28- and 32-card decks).
    deck = Deck(*shape)
    variant = Variant.make("prisoners", moves=moves)
    searcher = make_searcher(deck, variant, ordering=ordering, strategy=strategy)
    assert _replayed_wins(searcher, deck, variant, 20_000) >= 2


def _replayed_wins(searcher, deck, variant, node_budget, decided_like=None) -> int:
    """The wins ``searcher`` finds on 12 random decks (seed 11), each line replayed; with
    ``decided_like``, every deck decided by both searchers, the same way."""
    won = 0
    for order in random_orders(deck, 12, seed=11):
        ranks = [deck.rank(c) for c in order]
        result = searcher.solve_ranks(ranks, node_budget)
        if decided_like is not None:
            assert result.status in (WON, LOST) and result.status == decided_like.solve_ranks(ranks, node_budget).status
        if result.status == WON:
            won += 1
            assert len(result.line) == deck.size - 1
            assert len(replay(order.tolist(), deck, variant, result.line)) == 1
    return won


def test_kernel_table_survives_being_emptied():
    # A tiny table is emptied many times during one search; the verdicts must not change.
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
        verdict, _, _ = kernel.search_row(tops, tops.copy(), searcher.neighbours, deck.ranks, True,
                                               10**6, 0, hashes, keys, line)
        reference.lost.clear()
        assert {0: LOST, 1: WON}[verdict] == reference.solve_row(reference.start_row(ranks), 10**6).status
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
    with pytest.raises(UsageError):
        solve([0, 1, 2], Deck(1, 3), strategy="bfs")
    with pytest.raises(UsageError):
        solve([0, 1, 2], Deck(1, 3), engine="python", strategy="restarts")


def test_cli_solve_says_what_was_proved_in_card_notation(cli_run):
    # a player's own deal: proved won with the line, proved lost with the proof's name, or open with the budget
    args = ("solve", "--suits", "1", "--ranks", "3", "--variant", "wrap=off", "--order")
    code, out, _ = cli_run(*args, "AS 3S 2S")
    assert code == 0 and "order AS 3S 2S" in out and "proved won: this line of 2 moves" in out
    assert "3S" in out.split("proved won")[1]  # the moves name their cards
    code, out, _ = cli_run(*args, "2S AS 3S")
    assert code == 0 and "proved lost (proof: uncoverable_cards)" in out
    code, out, _ = cli_run("solve", "--order", " ".join(f"{r}{s}" for s in "SHDC" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()),
                           "--node-budget", "50")
    assert code == 0 and "open: no proof either way after 50 nodes" in out and "its node budget of 50 was spent" in out
    code, out, _ = cli_run("solve", "--seed", "2026", "--strategy", "layers", "--node-budget", "1000000")
    assert code == 0 and "(strategy layers): a layer of the layered search would have held more than its cap of " \
        "100,000 rows (1/10 of the node budget 1,000,000)" in " ".join(out.split())
    code, out, _ = cli_run("solve", "--seed", "2026", "--strategy", "layers", "--node-budget", "1000000", "--json")
    assert code == 0 and json.loads(out)["stop"] == "layer_width"
    code, out, _ = cli_run("solve", "--seed", "2026", "--strategy", "restarts", "--time-budget", "0.05")
    assert code == 0 and "(strategy restarts): its time budget of 0.05 CPU s was spent" in " ".join(out.split())
    code, out, _ = cli_run("solve", "--suits", "2", "--ranks", "5", "--decks", "20", "--seed", "1", "--node-budget", "100")
    counts = out.splitlines()[1]
    assert code == 0 and counts.startswith("decks 20  proved won ") and " proved lost " in counts and " open " in counts
    code, out, _ = cli_run("solve", "--decks", "3", "--seed", "1", "--node-budget", "100")
    assert code == 0 and "open, stopped by: node budget 3" in out  # the hybrid's probe spends all 100 nodes
    assert "decided" not in out.replace("undecided", "")


def test_cli_solve_zero_decks_says_decks(cli_run):
    code, out, err = cli_run("solve", "--decks", "0", "--json")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "decks must be at least 1" in err and "games" not in err


def test_cli_solve_help_shows_the_default_budget(cli_run):
    from exact.prisoners.limits import DEFAULT_NODE_BUDGETS, LAYERS_NODE_BUDGETS

    code, out, _ = cli_run("solve", "--help")
    text = " ".join(out.split())
    assert code == 0 and f"{DEFAULT_NODE_BUDGETS['published']:,} with moves=published" in text
    assert f"{LAYERS_NODE_BUDGETS['physical']:,} with moves=physical" in text
    assert f"{DEFAULT_NODE_BUDGETS['physical']:,} with the other strategies" in text
    assert "default: hybrid with moves=physical" in text


def test_the_default_strategy_and_node_budget_are_the_rules():
    """moves=physical: the hybrid (the layers' budget); moves=published, or too many ranks for the
    layers: the restarts (the depth-first budget); a strategy given takes its own budget."""
    from exact.prisoners.limits import DEFAULT_NODE_BUDGETS, LAYERS_NODE_BUDGETS

    for rule, strategy, budget in (("published", "restarts", DEFAULT_NODE_BUDGETS["published"]),
                                   ("physical", "hybrid", LAYERS_NODE_BUDGETS["physical"])):
        variant = f"prisoners(moves={rule},wrap=off)"
        result = solve([0, 2, 1], Deck(1, 3), variant)
        assert (result.strategy, result.node_budget) == (strategy, budget)
        estimate = estimate_best_play(Deck(1, 3), variant, decks=2, seed=1)
        assert (estimate.strategy, estimate.node_budget) == (strategy, budget)
    physical = "prisoners(moves=physical,wrap=off)"
    assert solve([0, 2, 1], Deck(1, 3), physical, strategy="restarts").node_budget == DEFAULT_NODE_BUDGETS["physical"]
    wide = solve(list(range(17)), Deck(1, 17), physical)  # 17 ranks: past the layers' four bits
    assert (wide.strategy, wide.node_budget) == ("restarts", DEFAULT_NODE_BUDGETS["physical"])


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


# --- the beam search (wins found fast) and the search profile ---------------------------------------

@settings(max_examples=25, deadline=None)
@given(data=st.data(), shape=st.sampled_from([(1, 5), (2, 4), (3, 3), (4, 2), (2, 5), (1, 8)]),
       variant=st.sampled_from(VARIANTS), width=st.sampled_from([1, 3, 50, 2000]))
def test_beam_wins_only_winnable_orders_with_lines_that_replay(data, shape, variant, width):
    # The beam only ever claims a win, with its line; a wide beam on a small deck keeps every row,
    # so it then finds a win exactly when one exists.
    import exact.prisoners.beam_kernel as beam
    deck = Deck(*shape)
    order = data.draw(deck_orders(deck))
    tops = np.array([deck.rank(c) for c in order], dtype=np.int64)
    line = np.zeros((deck.size - 1, 2), dtype=np.int64)
    masks = kernel.neighbour_masks(deck.ranks, variant.rules.wrap)
    code, nodes = beam._beam(tops, masks, deck.ranks, variant.rules.reverse_piles, width, beam.seed_mix(3), line,
                             10**9, not variant.rules.reverse_piles)
    won = brute_force_fewest_piles(tuple(order), deck, variant) == 1
    if code == beam.BEAM_WON:
        assert won and len(replay(order, deck, variant, [tuple(m) for m in line.tolist()])) == 1
    elif width == 2000:
        assert not won  # at most 2,000 distinct rows per depth on these decks: nothing was dropped
    assert nodes >= 1 and tops.tolist() == [deck.rank(c) for c in order]


def test_beam_respects_its_node_stop_and_finds_wins_on_mid_size_decks():
    import exact.prisoners.beam_kernel as beam
    deck = Deck(4, 8)
    masks = kernel.neighbour_masks(deck.ranks, True)
    line = np.zeros((deck.size - 1, 2), dtype=np.int64)
    won = 0
    for order in random_orders(deck, 10, seed=5):
        tops = np.array([deck.rank(c) for c in order], dtype=np.int64)
        code, nodes = beam._beam(tops, masks, deck.ranks, False, 200, beam.seed_mix(0), line, 10**9, True)
        if code == beam.BEAM_WON:
            won += 1
            assert len(replay(order.tolist(), deck, "prisoners(moves=physical)", line.tolist())) == 1
        code, nodes = beam._beam(tops, masks, deck.ranks, False, 200, beam.seed_mix(0), line, 77, True)
        assert code == beam.BEAM_FAILED and nodes == 77
    assert won >= 5  # 4x8 physical decks are nearly all winnable, and a 200-wide beam finds most


@pytest.mark.parametrize("strategy", ["restarts", "dfs"])
def test_profile_counts_the_expanded_rows_per_depth(strategy):
    deck = Deck(4, 13)
    searcher = make_searcher(deck, Variant.make("prisoners", moves="physical"), strategy=strategy)
    order = random_orders(deck, 1, seed=2)[0]
    verdict = searcher.solve_ranks([deck.rank(c) for c in order], 30_000)
    expanded, hits, moves = searcher.profile()
    assert expanded.sum() == verdict.nodes and expanded[0] >= 1 and hits.sum() > 0
    assert (moves >= 0).all() and moves[0] > 0 and verdict.status == UNDECIDED


@pytest.mark.parametrize("shape", [(2, 4), (3, 3)])
@pytest.mark.parametrize("wrap", ["on", "off"])
def test_frozen_piles_proves_published_rows_connectivity_cannot(shape, wrap):
    # Rows closed by frozen_piles whose piles are linked, all lost by exhaustive search; never on
    # a physical row.
    variant = Variant.make("prisoners", moves="published", wrap=wrap)
    searcher, fewest = fewest_piles_of_every_row(Deck(*shape), variant)
    extra = [row for row in fewest
             if proofs.frozen_piles(row, searcher.neighbours, True)
             and not proofs.disconnected(row, searcher.neighbours, True)]
    assert extra and all(fewest[row] > 1 for row in extra)
    assert not proofs.frozen_piles((0, 2, 4), [[1], [0, 2], [1, 3], [2, 4], [3]], False)


# --- unpaired_tops (the published rule's tops to come must pair up into moves) ---------------------

@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(0, 6), min_size=1, max_size=9), cycle=st.booleans())
def test_kernel_pairable_equals_the_plain_search(counts, cycle):
    # The closed form (odd and even cycles, paths) against trying every number of pairs across the
    # closing edge; and both against a brute force that pairs items one by one.
    cycle = cycle and len(counts) >= 3
    fast = proofs_kernel.pairable(np.array(counts, dtype=np.int64), len(counts), cycle)
    assert fast == proofs.pairable(counts, cycle) == _pairs_up(tuple(counts), cycle)


def _pairs_up(counts, cycle):
    """Brute force: take one item of the lowest rank left, pair it with a neighbour, recurse."""
    if not any(counts):
        return True
    r = next(r for r, c in enumerate(counts) if c)
    n = len(counts)
    partners = {s for s in (r - 1, r + 1) if 0 <= s < n} | ({(r - 1) % n, (r + 1) % n} if cycle else set())
    for s in partners - {r}:
        if counts[s] - (s == r) > 0:
            left = list(counts)
            left[r] -= 1
            left[s] -= 1
            if _pairs_up(tuple(left), cycle):
                return True
    return False


@pytest.mark.parametrize("shape, wrap", [((3, 3), "on"), ((3, 3), "off"), ((2, 4), "off")])
def test_unpaired_tops_proves_published_rows_the_other_proofs_cannot(shape, wrap):
    # Rows it closes that neither connectivity nor frozen piles close, all lost by exhaustive search
    # (the soundness test above covers every row); never on a physical row.
    variant = Variant.make("prisoners", moves="published", wrap=wrap)
    searcher, fewest = fewest_piles_of_every_row(Deck(*shape), variant)
    extra = [row for row in fewest
             if proofs.unpaired_tops(row, searcher.neighbours, True)
             and not proofs.disconnected(row, searcher.neighbours, True)
             and not proofs.frozen_piles(row, searcher.neighbours, True)]
    assert extra and all(fewest[row] > 1 for row in extra)
    assert not proofs.unpaired_tops((0, 2, 4), [[1], [0, 2], [1, 3], [2, 4], [3]], False)


@pytest.mark.parametrize("moves", ["published", "physical"])
def test_restarts_carry_the_fill_of_the_lost_row_table(moves):
    # The restarts keep the lost-row table; its fill must be carried from run to run, or a table
    # that holds rows from earlier runs fills up completely (and probing a full table never ends:
    # 52-card searches of a few million nodes hung). A small table makes it happen fast.
    deck = Deck(4, 13)
    searcher = make_searcher(deck, Variant.make("prisoners", moves=moves))
    budget = 60_000
    searcher._table = (lost_rows.new_table(deck.size, deck.ranks, budget, max_slots=1 << 12), budget, 1 << 12)
    for order in random_orders(deck, 3, seed=2):
        verdict = searcher.solve_ranks([deck.rank(c) for c in order], budget)
        hashes = searcher._table[0][0]
        live = np.count_nonzero((hashes & np.uint64(0xFF)) == searcher._generation)  # this search's rows
        assert searcher._state[0][kernel._FILLED] == live <= 3 * len(hashes) // 4
        assert verdict.status in (WON, LOST, UNDECIDED) and verdict.nodes <= budget


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from([(4, 13), (2, 5), (3, 4)]), st.booleans(), st.sampled_from([2, 8, 64]))
def test_grown_lost_row_table_holds_the_same_rows(data, shape, reverse, factor):
    # Rows of the current generation are all found after growing; rows of an earlier deck are gone.
    cards, ranks = shape[0] * shape[1], shape[1]
    hashes, keys = lost_rows.new_table(cards, ranks, 10**6, max_slots=1024)
    rows = data.draw(st.lists(st.lists(st.integers(0, ranks - 1), min_size=1, max_size=cards), min_size=1,
                              max_size=300, unique_by=tuple))
    old = data.draw(st.integers(0, len(rows)))
    filled, arrays = 0, []
    for k, row in enumerate(rows):
        tops = np.array(row, dtype=np.int64)
        bottoms = tops[::-1].copy() if reverse else tops.copy()
        h = np.uint64(lost_rows.slot_tag(np.uint64(lost_rows.row_hash(tops, bottoms, len(row), ranks, reverse)),
                                         np.uint64(1 if k < old else 2)))
        filled = lost_rows.insert_row(hashes, keys, h, tops, bottoms, len(row), ranks, reverse, filled)
        arrays.append((tops, bottoms, h, k >= old))
    grown, grown_keys, moved = lost_rows.grow_table(hashes, keys, 2, 1024 * factor)
    assert moved == len(rows) - old == np.count_nonzero(grown) and len(grown) == 1024 * factor
    for tops, bottoms, h, live in arrays:
        assert lost_rows.lookup_row(grown, grown_keys, h, tops, bottoms, len(tops), ranks, reverse) == live
    with pytest.raises(ValueError):
        lost_rows.grow_table(hashes, keys, 2, 1000)


@pytest.mark.parametrize("moves", ["published", "physical"])
def test_growing_lost_row_table_changes_no_search(moves):
    # A table that starts at 1,024 slots and grows as the search fills it gives the same verdicts,
    # nodes, cuts and lines as the whole table from the start, deck after deck in one searcher.
    deck = Deck(4, 13)
    variant = Variant.make("prisoners", moves=moves)
    budget = 150_000
    small, whole = make_searcher(deck, variant), make_searcher(deck, variant)
    small.start_slots = 1024
    whole.start_slots = lost_rows.table_slots(deck.size, deck.ranks, budget)
    grew = 0
    for order in random_orders(deck, 12, seed=4):
        ranks = [deck.rank(c) for c in order]
        a, b = small.solve_ranks(ranks, budget), whole.solve_ranks(ranks, budget)
        assert (a.status, a.nodes, a.proof, a.cuts, a.line) == (b.status, b.nodes, b.proof, b.cuts, b.line)
        grew = max(grew, len(small._table[0][0]))
    assert grew > 1024 and len(whole._table[0][0]) == lost_rows.table_slots(deck.size, deck.ranks, budget)


@settings(max_examples=200)
@given(st.integers(1, 10**9), st.integers(2, 62), st.integers(1, 62), st.integers(2**16, 2**34))
def test_lost_row_table_holds_the_budget_within_its_memory(budget, cards, ranks, max_bytes):
    # Twice the budget in slots (a search stores at most one lost row a node, so the table is never
    # three-quarters full and never emptied, which made long searches forget what they had proved),
    # unless that passes the memory limit: then the most slots that fit.
    slots = lost_rows.table_slots(cards, ranks, budget, max_bytes)
    per_slot = 8 * -(-(8 + cards * (1 if ranks * ranks + cards <= 255 else 2)) // 8)  # whole 64-bit words
    assert slots >= 1 << 10 and slots & (slots - 1) == 0
    assert slots >= 2 * budget or (slots == 1 << 10 or 2 * slots * per_slot > max_bytes)
    assert slots == 1 << 10 or slots * per_slot <= max_bytes
    assert slots == 1 << 10 or slots < 4 * budget  # no larger than the budget needs


def test_lost_row_table_default_is_sized_for_long_searches():
    # 52 cards: budgets of up to 33,554,432 nodes fit the default 4 GiB without emptying
    assert lost_rows.table_slots(52, 13, 33_554_432) >= 2 * 33_554_432
    assert lost_rows.table_slots(52, 13, 10**9) * 64 <= lost_rows.MAX_TABLE_BYTES
    hashes, keys = lost_rows.new_table(52, 13, 3_000)
    assert len(hashes) == len(keys) == 8192 and keys.dtype == np.uint8 and keys.shape[1] == 52
    # one 64-byte record a slot: the hash, then the row, in the same cache line
    assert hashes.base is not None and hashes.strides == (64,) and keys.strides == (64, 1)
    hashes[5] = 7
    keys[5, :] = 9
    assert hashes[5] == 7 and (keys[5] == 9).all() and hashes[4] == hashes[6] == 0


# --- immovable_piles (the published rule's least fixpoint of the piles that may ever move) ----------

@pytest.mark.parametrize("shape, wrap", [((2, 4), "on"), ((3, 3), "on"), ((2, 4), "off")])
def test_immovable_piles_proves_published_rows_the_other_proofs_cannot(shape, wrap):
    # Rows it closes that no other condition closes, all lost by exhaustive search (the soundness
    # tests above run it on every reachable row); never on a physical row.
    variant = Variant.make("prisoners", moves="published", wrap=wrap)
    searcher, fewest = fewest_piles_of_every_row(Deck(*shape), variant)
    others = [name for name in proofs.CONDITIONS if name != "immovable_piles"]
    extra = [row for row in fewest
             if proofs.immovable_piles(row, searcher.neighbours, True)
             and proofs.proof_of_loss(row, searcher.neighbours, True, others) is None]
    assert extra and all(fewest[row] > 1 for row in extra)
    assert not proofs.immovable_piles((0, 2, 4), [[1], [0, 2], [1, 3], [2, 4], [3]], False)



def search_with_proof_equals_exhaustive_search(shape, moves, wrap, proof, counter):
    """Search every dealt row of ``shape`` with the kernel's ``proof`` bit on besides the default cuts:
    each gets the exhaustive verdict; returns the rows the proof cut (``counter``: its scalar)."""
    deck = Deck(*shape)
    variant = Variant.make("prisoners", moves=moves, wrap=wrap)
    reverse = moves == "published"
    searcher, fewest = fewest_piles_of_every_row(deck, variant)
    masks = kernel.neighbour_masks(deck.ranks, variant.rules.wrap)
    cut = 0
    for seq in rank_sequences(deck.suits, deck.ranks):
        tops = np.array(seq, dtype=np.int64)
        hashes, keys = lost_rows.new_table(deck.size, deck.ranks, 10**5)
        line = np.zeros((deck.size - 1, 2), dtype=np.int64)
        state = kernel.new_state(deck.size, deck.ranks)
        kernel.start(state, deck.size)
        verdict = kernel._search(tops, tops.copy(), masks, deck.ranks, reverse, 0, hashes, keys, line, state,
                                 10**6, kernel.ALL_PROOFS | proof)
        won = fewest[searcher.start_row(seq)] == 1
        assert verdict == (kernel.WON_CODE if won else kernel.LOST_CODE), seq
        cut += int(state[0][counter])
    return cut


@pytest.mark.parametrize("shape, wrap", [((2, 5), "on"), ((3, 3), "on"), ((2, 4), "off")])
def test_search_with_immovable_piles_equals_exhaustive_search(shape, wrap):
    # Not a default cut (see solver_kernel.ALL_PROOFS), but the kernel's search may apply it: with it
    # on, every dealt row of the deck gets the exhaustive verdict, and it does cut rows (2x5 with wrap,
    # not 2x4: there unpaired_tops, checked first, closes every row it used to cut since its final top
    # must be a bottom).
    assert search_with_proof_equals_exhaustive_search(shape, "published", wrap, kernel.IMMOVABLE_PROOF,
                                                      kernel._IMMOVABLE) > 0


# --- stranded_cards (the physical rule's matching of stranded cards to partners to land on) ----------

@settings(max_examples=80, deadline=None)
@given(data=st.data(), shape=st.sampled_from([(1, 5), (2, 4), (3, 4), (4, 5), (4, 13)]),
       wrap=st.sampled_from(["on", "off"]))
def test_kernel_stranded_cards_equals_the_reference(data, shape, wrap):
    # The kernel's bit-mask matching against the plain one, on rows reached by random legal moves
    # from a random deal (at 52 cards, rows of every length).
    deck = Deck(*shape)
    variant = Variant.make("prisoners", moves="physical", wrap=wrap)
    searcher = make_searcher(deck, variant, engine="python")
    row = searcher.start_row([deck.rank(c) for c in data.draw(deck_orders(deck))])
    for _ in range(data.draw(st.integers(0, deck.size - 1))):
        children = list(searcher.children(row))
        if not children:
            break
        row = data.draw(st.sampled_from(children))[1]
    masks = kernel.neighbour_masks(deck.ranks, variant.rules.wrap)
    work = np.full(deck.ranks + 6 * deck.size, -7, dtype=np.int64)
    tops = np.array(row, dtype=np.int64)
    found = proofs_kernel.stranded_cards(tops, len(row), masks, deck.ranks, work)
    assert found == proofs.stranded_cards(row, searcher.neighbours, False)
    work[:] = -2  # stale values must not matter
    found = proofs_kernel.used_partners(tops, len(row), masks, deck.ranks, work)
    assert found == proofs.used_partners(row, searcher.neighbours, False)


def test_used_partners_by_hand():
    neighbours = [[1], [0, 2], [1, 3], [2, 4], [3]]  # five ranks, no wrap
    assert not proofs.used_partners((0, 1, 2), neighbours, True)  # never on a published row
    # The 0 (position 2) has no landing partner, so it is the final card; the two 2s must both jump,
    # and their landing partners are the same two cards, the 1 and the 3: a matching exists (which
    # stranded_cards sees), but the 2 that jumps second needs, besides the partner it lands on, one
    # the first did not land on, to cover it later: none is left. The search agrees: lost.
    row = (1, 3, 0, 2, 2)
    assert proofs.used_partners(row, neighbours, False) and not proofs.stranded_cards(row, neighbours, False)
    assert proofs.proof_of_loss(row, neighbours, False, [c for c in proofs.CONDITIONS if c != "used_partners"]) is None
    searcher = Searcher(5, wrap=False, reverse=False)
    assert searcher.solve_row(row, 10**6).status == LOST
    # A third partner (the 3 at the end of the left part) gives the second jumper its cover.
    assert not proofs.used_partners((1, 3, 3, 0, 2, 2), neighbours, False)
    # It contains stranded_cards (Hall's condition is weaker than surplus).
    assert proofs.used_partners((1, 3, 0, 2, 2, 2), neighbours, False)


@pytest.mark.parametrize("shape, wrap", [((2, 4), "on"), ((2, 5), "off")])
def test_used_partners_proves_physical_rows_the_other_proofs_cannot(shape, wrap):
    # Rows it closes that no other condition closes, all lost by exhaustive search (the soundness
    # tests above check it on every reachable row of other decks as well, it being in CONDITIONS).
    variant = Variant.make("prisoners", moves="physical", wrap=wrap)
    searcher, fewest = fewest_piles_of_every_row(Deck(*shape), variant)
    others = [name for name in proofs.CONDITIONS if name != "used_partners"]
    fired = [row for row in fewest if proofs.used_partners(row, searcher.neighbours, False)]
    assert all(fewest[row] > 1 for row in fired)
    assert all(proofs.used_partners(row, searcher.neighbours, False) for row in fewest
               if proofs.stranded_cards(row, searcher.neighbours, False))  # it contains stranded_cards
    extra = [row for row in fired if proofs.proof_of_loss(row, searcher.neighbours, False, others) is None]
    assert len(extra) >= 100


@pytest.mark.parametrize("shape, wrap", [((2, 5), "on"), ((2, 4), "on"), ((2, 4), "off")])
def test_search_with_used_partners_equals_exhaustive_search(shape, wrap):
    # Not a default cut, but the kernel's search may apply it (kernel.USED_PROOF): with it on, every
    # dealt row of the deck gets the exhaustive verdict, and it does cut rows.
    assert search_with_proof_equals_exhaustive_search(shape, "physical", wrap, kernel.USED_PROOF, kernel._USED) > 0


def test_stranded_cards_by_hand():
    neighbours = [[1], [0, 2], [1, 3], [2, 4], [3]]  # five ranks, no wrap
    assert not proofs.stranded_cards((0, 1, 2), neighbours, True)  # never on a published row
    # Stranded (no partner to the right): the 2s at positions 3, 4, 5 and the 0 at position 2. The
    # 0 stands among the first three piles (no landing partner); the 2s share the landing partners
    # 1 and 3 (positions 0 and 1): two matched, two stranded cards left over, so the row is lost,
    # though only one card is uncoverable by itself.
    assert proofs.stranded_cards((1, 3, 0, 2, 2, 2), neighbours, False)
    assert not proofs.uncoverable_cards((1, 3, 0, 2, 2, 2), neighbours, False)
    # With two 2s both are matched and only the 0 is left over (it may be the final card).
    assert not proofs.stranded_cards((1, 3, 0, 2, 2), neighbours, False)
    # 3 (position 4) lands on 2 or 4; 1 (position 2) has no landing partner: one left over.
    assert not proofs.stranded_cards((2, 0, 1, 4, 3), neighbours, False)


@pytest.mark.parametrize("shape, wrap", [((3, 4), "on"), ((2, 5), "on"), ((2, 5), "off")])
def test_stranded_cards_proves_physical_rows_the_other_proofs_cannot(shape, wrap):
    # Rows it closes that no other condition closes, all lost by exhaustive search (the soundness
    # tests above run it on every reachable row of other decks as well).
    variant = Variant.make("prisoners", moves="physical", wrap=wrap)
    searcher, fewest = fewest_piles_of_every_row(Deck(*shape), variant)
    others = [name for name in proofs.CONDITIONS if name not in ("stranded_cards", "used_partners")]  # the latter contains it
    fired = [row for row in fewest if proofs.stranded_cards(row, searcher.neighbours, False)]
    assert all(fewest[row] > 1 for row in fired)
    extra = [row for row in fired if proofs.proof_of_loss(row, searcher.neighbours, False, others) is None]
    assert extra


@pytest.mark.parametrize("shape, wrap", [((2, 5), "on"), ((2, 4), "on"), ((2, 4), "off")])
def test_search_with_stranded_cards_equals_exhaustive_search(shape, wrap):
    # Not a default cut (see solver_kernel.ALL_PROOFS), but the kernel's search may apply it: with it
    # on, every dealt row of the deck gets the exhaustive verdict, and it does cut rows.
    assert search_with_proof_equals_exhaustive_search(shape, "physical", wrap, kernel.STRANDED_PROOF,
                                                      kernel._STRANDED) > 0


@settings(max_examples=40, deadline=None)
@given(data=st.data(), shape=st.sampled_from([(1, 5), (2, 4), (3, 3), (2, 7), (4, 5), (4, 13)]),
       variant=st.sampled_from(VARIANTS), piles=st.integers(1, 14), node_budget=st.sampled_from([7, 300, 4000]))
def test_kernel_with_proof_piles_equals_python_search_with_proof_piles(data, shape, variant, piles, node_budget):
    # The conditions checked on rows of at most `piles` piles only: the kernel (proofs >> PROOF_PILES_SHIFT)
    # and the reference (Searcher(proof_piles=...)) expand the same rows, cut the same and find the same line.
    from exact.prisoners.solver import Searcher

    deck = Deck(*shape)
    ranks = [deck.rank(c) for c in data.draw(deck_orders(deck))]
    python = Searcher(deck.ranks, wrap=variant.rules.wrap, reverse=variant.rules.reverse_piles, proof_piles=piles)
    numba = make_searcher(deck, variant, engine="numba", strategy="dfs")
    numba.proofs = kernel.ALL_PROOFS | (piles << kernel.PROOF_PILES_SHIFT)
    assert numba.solve_ranks(ranks, node_budget) == python.solve_ranks(ranks, node_budget)


@pytest.mark.parametrize("moves", ["published", "physical"])
@pytest.mark.parametrize("shape, wrap", [((2, 4), "on"), ((2, 4), "off"), ((3, 3), "on")])
def test_proof_piles_changes_cuts_never_verdicts(shape, wrap, moves):
    # The restarts check the conditions on short rows only (solver.PROOF_PILES), but for those of
    # EVERY_ROW_CONDITIONS: a search that ends has the exhaustive verdict whatever the limit, and a
    # limit of 1 pile cuts by those only (a row of one pile is won), where checking every row does cut.
    from exact.prisoners.solver import EVERY_ROW_CONDITIONS, PROOF_PILES

    deck = Deck(*shape)
    variant = Variant.make("prisoners", moves=moves, wrap=wrap)
    searcher = make_searcher(deck, variant, engine="numba")
    assert searcher.proofs >> kernel.PROOF_PILES_SHIFT == PROOF_PILES  # the default of the restarts
    assert make_searcher(deck, variant, engine="numba", strategy="dfs").proofs == kernel.ALL_PROOFS
    cut_everywhere = cut_limited = 0
    for seq in list(rank_sequences(deck.suits, deck.ranks))[::7]:
        won = brute_force_fewest_piles(_order_of(seq, deck), deck, variant) == 1
        for piles in (0, 1, 3):
            searcher.proofs = kernel.ALL_PROOFS | (piles << kernel.PROOF_PILES_SHIFT)
            verdict = searcher.solve_ranks(seq, 10**6)
            assert verdict.status == (WON if won else LOST), (seq, piles)
            if piles == 1:
                assert {name for name, _ in verdict.cuts} <= set(EVERY_ROW_CONDITIONS)
                cut_limited += 1
            elif piles == 0:
                cut_everywhere += sum(n for _, n in verdict.cuts)
    assert cut_limited and cut_everywhere > 0


# --- split_row (the published rule's parts explored one at a time, the moves across over-approximated) --

def _sample_rows(fewest, count, seed):
    """Up to ``count`` winnable and ``count`` lost rows of ``fewest``, drawn with a fixed seed."""
    import random

    rng = random.Random(seed)
    rows = sorted(fewest)
    won = [row for row in rows if fewest[row] == 1]
    lost = [row for row in rows if fewest[row] > 1]
    return rng.sample(won, min(count, len(won))) + rng.sample(lost, min(count, len(lost)))


@pytest.mark.parametrize("shape, wrap", [((2, 4), "on"), ((2, 4), "off"), ((3, 3), "on"), ((1, 7), "on"),
                                         ((1, 7), "off")])
def test_split_row_never_fires_on_a_winnable_row_and_closes_rows_the_others_cannot(shape, wrap):
    # Soundness against exhaustive search on a sample of the reachable rows (every row: the slow test
    # below), and rows it closes that no condition of CONDITIONS closes.
    variant = Variant.make("prisoners", moves="published", wrap=wrap)
    searcher, fewest = fewest_piles_of_every_row(Deck(*shape), variant)
    fired = extra = 0
    for row in _sample_rows(fewest, 600, seed=1):
        if proofs.split_row(row, searcher.neighbours, True):
            assert fewest[row] > 1, row
            fired += 1
            extra += proofs.proof_of_loss(row, searcher.neighbours, True) is None
    assert fired > 0 and extra > 0


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(2, 4), (3, 3), (1, 7)])
@pytest.mark.parametrize("wrap", ["on", "off"])
def test_split_row_never_fires_on_a_winnable_row_every_row(shape, wrap):
    variant = Variant.make("prisoners", moves="published", wrap=wrap)
    searcher, fewest = fewest_piles_of_every_row(Deck(*shape), variant)
    for row, piles in fewest.items():
        if piles == 1:
            assert not proofs.split_row(row, searcher.neighbours, True), row


@settings(max_examples=150, deadline=None)
@given(data=st.data(), wrap=st.sampled_from(["on", "off"]))
def test_split_cut_never_proves_a_winnable_row_whatever_the_cuts(data, wrap):
    # The argument holds for any cuts, not only the runs split_row tries: a winnable row of 2x4 or
    # 1x7, cut anywhere, is never proved lost.
    shape = data.draw(st.sampled_from([(2, 4), (1, 7)]))
    searcher, fewest = _every_row_cached(shape, wrap)
    won = sorted(row for row, piles in fewest.items() if piles == 1 and len(row) >= 2)
    row = data.draw(st.sampled_from(won))
    cuts = sorted(data.draw(st.sets(st.integers(1, len(row) - 1), min_size=1)))
    assert proofs.split_cut(row, searcher.neighbours, cuts, [10**6]) is False


_EVERY_ROW: dict = {}


def _every_row_cached(shape, wrap):
    if (shape, wrap) not in _EVERY_ROW:
        variant = Variant.make("prisoners", moves="published", wrap=wrap)
        _EVERY_ROW[shape, wrap] = fewest_piles_of_every_row(Deck(*shape), variant)
    return _EVERY_ROW[shape, wrap]


def test_split_row_by_hand():
    neighbours = [[1], [0, 2], [1, 3], [2, 4], [3, 5], [4, 6], [5]]  # seven ranks, no wrap
    assert not proofs.split_row((0, 1, 2), neighbours, False)  # never on a physical row
    assert not proofs.split_row(((1, 1),), neighbours, True)  # a single pile is won
    # (0,2) (3,3) (6,6) (5,4), cut before the last pile: the left part can only put 3 onto 2
    # (leaving (0,3) (6,6)), and never takes the last pile, whose top 4 meets the 3 at distance 2 only;
    # the last pile never leaves, so the row is lost, though every top has a partner shown and the
    # tops pair up (no condition of CONDITIONS closes it).
    row = ((0, 2), (3, 3), (6, 6), (5, 4))
    assert proofs.split_cut(row, neighbours, [3], [10**6]) is True
    assert proofs.split_cut(row, neighbours, [1], [10**6]) is False  # cut there, it sees nothing
    assert proofs.split_row(row, neighbours, True)
    assert proofs.proof_of_loss(row, neighbours, True) is None
    # A winnable row (1 0 1 2: the 2 onto the first 1 at distance 3, the other 1 onto the 0, then that
    # pile onto the first) is never closed, however it is cut.
    won = ((1, 1), (0, 0), (1, 1), (2, 2))
    for cuts in ([1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]):
        assert proofs.split_cut(won, neighbours, cuts, [10**6]) is False
    # Past the cap there is no proof.
    assert proofs.split_cut(row, neighbours, [3], [1]) is None
    assert not proofs.split_row(row, neighbours, True, cap=1)


# --- the lost-row table's hashes and lookups made from the parent row -------------------------------

@settings(max_examples=200)
@given(st.data(), st.integers(2, 62), st.integers(1, 20), st.booleans(), st.booleans())
def test_kernel_child_hashes_and_lookups_equal_those_of_the_moved_row(data, m, ranks, reverse, stored):
    # The search hashes each child from its parent's prefix sums and looks it up before making the
    # move (_child_hashes, _find_child): both must equal hashing and looking up the row after the move.
    n = data.draw(st.integers(m, 62))
    tops = np.array(data.draw(st.lists(st.integers(0, ranks - 1), min_size=n, max_size=n)), dtype=np.int64)
    bottoms = np.array(data.draw(st.lists(st.integers(0, ranks - 1), min_size=n, max_size=n)), dtype=np.int64)
    codes = np.array([4 * i + d for i in range(1, m) for d in (1, 3) if i - d >= 0], dtype=np.int64)
    out = np.zeros(4 * n, dtype=np.int64)
    out[:len(codes)] = codes
    hashes, keys = lost_rows.new_table(n, ranks, 64)
    generation = data.draw(st.integers(1, lost_rows.GENERATIONS))
    lost_rows.child_hashes(tops, bottoms, m, ranks, reverse, out, len(codes), np.empty(n + 1, np.uint64), hashes,
                         out, 2 * n, generation)
    for a, code in enumerate(codes):
        i, j = code // 4, code // 4 - code % 4
        child_t = np.concatenate([tops[:i], tops[i + 1:], [0]])
        child_b = np.concatenate([bottoms[:i], bottoms[i + 1:], [0]])
        child_t[j] = bottoms[i] if reverse else tops[i]
        h = np.uint64(lost_rows.slot_tag(np.uint64(lost_rows.row_hash(child_t, child_b, m - 1, ranks, reverse)), generation))
        assert np.uint64(out[2 * n + a]) == h
        if stored:
            lost_rows.insert_row(hashes, keys, h, child_t, child_b, m - 1, ranks, reverse, 0)
        elif ranks > 1:  # another row under the same hash (a collision) must not be taken for it
            other = child_t.copy()
            k = data.draw(st.integers(0, m - 2))
            other[k] = (other[k] + 1) % ranks
            lost_rows.insert_row(hashes, keys, h, other, child_b, m - 1, ranks, reverse, 0)
        new_top = bottoms[i] if reverse else tops[i]
        assert (lost_rows.find_child(hashes, keys, h, tops, bottoms, m, ranks, reverse, False, i, j, new_top) >= 0) \
            == stored == lost_rows.lookup_row(hashes, keys, h, child_t, child_b, m - 1, ranks, reverse)
        hashes[:] = 0


def test_kernel_table_generations_empty_the_table():
    # A new search moves the table to its next generation: the rows of the last one are gone, without
    # writing the slots; after GENERATIONS searches the slots are written to zero and it starts again.
    hashes, keys = lost_rows.new_table(6, 4, 100)
    tops = np.array([0, 1, 2, 3, 2, 1], dtype=np.int64)
    raw = np.uint64(lost_rows.row_hash(tops, tops, 6, 4, True))
    tag = [np.uint64(lost_rows.slot_tag(raw, g)) for g in range(lost_rows.GENERATIONS + 1)]
    assert lost_rows.insert_row(hashes, keys, tag[1], tops, tops, 6, 4, True, 0) == 1
    assert lost_rows.lookup_row(hashes, keys, tag[1], tops, tops, 6, 4, True)
    generation = lost_rows.next_generation(hashes, 1)
    assert generation == 2 and np.count_nonzero(hashes) == 1  # not written ...
    assert not lost_rows.lookup_row(hashes, keys, tag[2], tops, tops, 6, 4, True)  # ... yet empty
    lost_rows.insert_row(hashes, keys, tag[2], tops, tops, 6, 4, True, 0)  # reuses the slot of generation 1
    assert np.count_nonzero(hashes) == 1 and lost_rows.lookup_row(hashes, keys, tag[2], tops, tops, 6, 4, True)
    assert lost_rows.next_generation(hashes, lost_rows.GENERATIONS) == 1 and not hashes.any()
    assert not lost_rows.lookup_row(hashes, keys, tag[1], tops, tops, 6, 4, True)


@pytest.mark.parametrize("moves, shape", [("published", (3, 5)), ("physical", (4, 5)), ("physical", (3, 7))])
def test_layers_lines_replay_and_agree_with_the_restarts(moves, shape):
    deck = Deck(*shape)
    variant = Variant.make("prisoners", moves=moves)
    layered, restarts = make_searcher(deck, variant, strategy="layers"), make_searcher(deck, variant)
    assert _replayed_wins(layered, deck, variant, 10**7, decided_like=restarts) >= 2


def test_layers_budgets_and_refusals():
    deck = Deck(4, 13)
    variant = Variant.make("prisoners", moves="physical")
    searcher = make_searcher(deck, variant, strategy="layers")
    (order,) = random_orders(deck, 1, seed=2026)
    ranks = [deck.rank(c) for c in order]
    verdict = searcher.solve_ranks(ranks, 1_000)  # a layer past 100 rows, or the budget, stops it
    assert verdict.status == UNDECIDED and verdict.line is None and 0 < verdict.nodes <= 1_000  # never more
    timed = searcher.solve_ranks(ranks, 10**9, time_budget=0.05)
    assert timed.status == UNDECIDED and timed.nodes < 10**9
    hybrid = make_searcher(deck, variant)  # the physical rule's default
    from exact.prisoners.limits import HYBRID_PROBE_NODES

    assert hybrid.strategy == "hybrid" and hybrid.solve_ranks(ranks, 1_000).nodes == 1_000  # the probe alone
    both = hybrid.solve_ranks(ranks, HYBRID_PROBE_NODES + 50_000)  # the probe, then at most 50,000 rows of the layers
    assert both.status == UNDECIDED and HYBRID_PROBE_NODES < both.nodes <= HYBRID_PROBE_NODES + 50_000
    with pytest.raises(UsageError, match="at most 16 ranks"):
        make_searcher(Deck(2, 20), variant, strategy="layers")


def test_cli_solve_with_layers(cli_run):
    import json

    code, out, _ = cli_run("solve", "--suits", "4", "--ranks", "5", "--seed", "3", "--variant", "moves=physical",
                           "--strategy", "layers", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["status"] == "won" and obj["strategy"] == "layers"
    assert len(replay(obj["order"], Deck(4, 5), obj["variant"], obj["line"])) == 1
    code, out, err = cli_run("solve", "--suits", "2", "--ranks", "20", "--strategy", "layers")
    assert code == 2 and out == "" and "at most 16 ranks" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("engine,strategy", [("python", None), ("numba", "restarts"), ("numba", "dfs"),
                                             ("numba", "beam"), ("numba", "nrpa"), ("numba", "hybrid"),
                                             ("numba", "layers")])
def test_an_open_verdict_says_why_it_stopped(engine, strategy):
    """Every search names its stop on an open verdict (the node budget, the time budget, a layer's
    width cap) and none on a settled one; the stored record keeps it."""
    from exact.prisoners.solver import SolveResult

    deck = Deck(4, 13)
    order = [int(c) for c in random_orders(deck, 1, 2026)[0]]
    tiny = solve(order, deck, node_budget=50, engine=engine, strategy=strategy)
    assert tiny.status == UNDECIDED
    # the layers stop at their width cap (5 rows of 50) before the budget
    assert tiny.stop == ("layer_width" if strategy == "layers" else "node_budget")
    assert SolveResult.from_record(tiny.to_dict()).stop == tiny.stop
    if strategy != "beam":  # the beams look at the clock only between their runs (this deal is won by them)
        timed = solve(order, deck, node_budget=10**9, time_budget=0.02, engine=engine, strategy=strategy)
        assert timed.status == UNDECIDED and timed.stop == "time_budget"
    settled = solve([0, 2, 1], Deck(1, 3), "prisoners(moves=physical,wrap=off)", engine=engine, strategy=strategy)
    assert settled.status != UNDECIDED and settled.stop is None
