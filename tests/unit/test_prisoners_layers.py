"""The layered search of ``benchmarks/prisoners_layers.py`` against the reference search: the same
verdict on random deals of small decks, both ways of moving a pile, with and without wrap."""
import sys
from pathlib import Path

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from exact.prisoners.solver import LOST, UNDECIDED, WON, Searcher

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from prisoners_layers import layered_verdict  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([(2, 4), (2, 5), (3, 4), (2, 6), (3, 5), (4, 4), (3, 6)]), st.booleans(), st.booleans(),
       st.booleans(), st.randoms(use_true_random=False))
def test_layered_search_agrees_with_the_reference(shape, wrap, reverse, commute, rng):
    suits, ranks = shape
    dealt = [r for r in range(ranks) for _ in range(suits)]
    rng.shuffle(dealt)
    reference = Searcher(ranks, wrap=wrap, reverse=reverse).solve_ranks(dealt, 10**7)
    assert reference.status in (WON, LOST)
    assert layered_verdict(dealt, ranks, wrap, reverse, commute=commute)["status"] == str(reference.status)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([(2, 6), (3, 5), (4, 4), (3, 6), (4, 5), (2, 10)]), st.booleans(), st.booleans(),
       st.randoms(use_true_random=False))
def test_commuting_moves_keep_every_row(shape, wrap, reverse, rng):
    """Every row reachable has a line in the reduced order (the proof in :mod:`exact.prisoners.solver`
    rearranges any line, not only winning ones), so with the reduction each layer holds the same rows:
    a bound kept too high would drop some."""
    suits, ranks = shape
    dealt = [r for r in range(ranks) for _ in range(suits)]
    rng.shuffle(dealt)
    reduced = layered_verdict(dealt, ranks, wrap, reverse, commute=True)
    plain = layered_verdict(dealt, ranks, wrap, reverse, commute=False)
    assert reduced["widths"] == plain["widths"] and reduced["status"] == plain["status"]


def test_layered_search_stops_at_its_budget():
    dealt = np.arange(52, dtype=np.int64) % 13  # numpy ranks, as a deck's order gives them
    verdict = layered_verdict(dealt, 13, True, False, row_budget=100)
    assert verdict["status"] == "open" and verdict["rows"] == 100  # never more rows than the budget


def test_report_reads_the_hybrid_from_the_records(tmp_path, capsys):
    import json

    from prisoners_layers import _report

    records = [  # deck 0: layers fast; 1: layers too slow, dfs decides; 2: neither; 3: only layers, late
        {"method": "layers", "deck": 0, "status": "lost", "seconds": 0.4},
        {"method": "dfs", "deck": 0, "status": "lost", "seconds": 3.0},
        {"method": "layers", "deck": 1, "status": "open", "seconds": 12.0},
        {"method": "dfs", "deck": 1, "status": "won", "seconds": 7.0},
        {"method": "layers", "deck": 2, "status": "open", "seconds": 12.0},
        {"method": "dfs", "deck": 2, "status": "open", "seconds": 28.0},
        {"method": "layers", "deck": 3, "status": "lost", "seconds": 4.0},
        {"method": "dfs", "deck": 3, "status": "open", "seconds": 28.0},
    ]
    path = tmp_path / "j.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    _report(path, first_phase=2.0)
    rows = {line.split(" | ")[0].strip("| "): line.strip("| \n").split(" | ")[1:]
            for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "---" not in line}
    # dfs, layers, hybrid (deck 0 at 0.4 s, deck 1 at 2 + 7 = 9 s; deck 3's layers come after the phase)
    assert rows["0.5"] == ["0", "1", "1"] and rows["5"] == ["1", "2", "1"]
    assert rows["10"] == ["2", "2", "2"] and rows["30"] == ["2", "2", "2"]


def test_a_layer_past_the_memory_cap_leaves_the_deck_open():
    """The arrays are counted before they are made: a cap below the second layer's stops there."""
    from exact.prisoners.layers import first_room, layer_bytes, layered_search
    from exact.prisoners.solver_kernel import neighbour_masks

    dealt = [r % 13 for r in range(52)]  # every pile next to a neighbour: a wide first layer
    full = layered_search(dealt, neighbour_masks(13, True), False, 10**6)
    width = full[3][1]
    cap = layer_bytes(width, 51, first_room(width, 1, 51), 1) - 1  # the second layer's build does not fit
    assert cap >= layer_bytes(1, 52, first_room(1, 1, 52), 0)  # the first one's does
    status, line, rows, widths, stop = layered_search(dealt, neighbour_masks(13, True), False, 10**6, max_bytes=cap)
    assert status == "open" and line is None and len(widths) == 2 and stop == "layer_memory"


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([(3, 6), (4, 5), (2, 10), (4, 6)]), st.booleans(), st.booleans(),
       st.randoms(use_true_random=False))
def test_arrays_that_grow_mid_layer_give_the_same_layers(shape, wrap, reverse, rng):
    """A layer whose arrays are first made too small grows them (and rebuilds its hash set) mid-way:
    the same rows, verdict and line as with room enough from the start."""
    from unittest import mock

    from exact.prisoners import layers
    from exact.prisoners.solver_kernel import neighbour_masks

    suits, ranks = shape
    dealt = [r for r in range(ranks) for _ in range(suits)]
    rng.shuffle(dealt)
    roomy = layers.layered_search(dealt, neighbour_masks(ranks, wrap), reverse, 10**7)
    with mock.patch.object(layers, "first_room", lambda width, before, piles: 2 * piles):
        tight = layers.layered_search(dealt, neighbour_masks(ranks, wrap), reverse, 10**7)
    assume(max(roomy[3]) > 2)  # a layer of two rows or more: its arrays grew
    assert tight == roomy


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(3, 5), (4, 4), (2, 8), (3, 6)]), st.booleans(), st.booleans(),
       st.randoms(use_true_random=False))
def test_a_layer_past_the_width_cap_leaves_the_deck_open(shape, wrap, reverse, rng):
    """A cap at the widest layer changes nothing (same layers, verdict and line); one row under it
    leaves the deck open, having built no layer as wide, with fewer rows expanded."""
    from exact.prisoners import layers
    from exact.prisoners.solver_kernel import neighbour_masks

    suits, ranks = shape
    dealt = [r for r in range(ranks) for _ in range(suits)]
    rng.shuffle(dealt)
    masks = neighbour_masks(ranks, wrap)
    free = layers.layered_search(dealt, masks, reverse, 10**6)
    assume(free[0] != "open")  # settled: every layer built
    widest = max(free[3])
    assert layers.layered_search(dealt, masks, reverse, 10**6, max_width=widest) == free
    assume(widest > 1)
    assert free[4] is None  # settled: no stop
    status, line, rows, widths, stop = layers.layered_search(dealt, masks, reverse, 10**6, max_width=widest - 1)
    assert status == "open" and line is None and rows < free[2] and stop == "layer_width"
    assert max(widths) < widest and widths == free[3][:len(widths)]


def test_the_solver_caps_a_layer_at_a_share_of_its_budget():
    """``strategy="layers"`` under a budget ``B`` leaves open a deck whose widest layer holds more than
    ``B // LAYER_WIDTH_SHARE`` rows, though ``B`` covers every row; with the cap above it, settled."""
    from exact.prisoners import layers
    from exact.prisoners.limits import LAYER_WIDTH_SHARE
    from exact.prisoners.solver_kernel import neighbour_masks

    dealt = [r for r in range(10) for _ in range(2)]
    rng = np.random.default_rng(7)
    for _ in range(200):  # a 2x10 deal whose widest layer is over a tenth of its rows
        order = [int(r) for r in rng.permutation(dealt)]
        status, _, rows, widths, _ = layers.layered_search(order, neighbour_masks(10, True), False, 10**7)
        if status == "lost" and max(widths) * LAYER_WIDTH_SHARE > rows + 1:
            break
    else:
        raise AssertionError("no such deal found")
    from exact.prisoners.solver import KernelSearcher

    searcher = KernelSearcher(20, 10, wrap=True, reverse=False, strategy="layers")
    capped = searcher.solve_ranks(order, rows + 1)  # the budget covers every row, not the cap
    assert capped.status == UNDECIDED and capped.stop == "layer_width"
    enough = max(widths) * LAYER_WIDTH_SHARE
    assert searcher.solve_ranks(order, max(enough, rows + 1)).status == LOST


def test_the_layer_profile_and_what_a_cap_would_have_done():
    """``--methods profile`` records the layers the search builds (rows, bytes, rows expanded so far,
    seconds); ``capped`` reads from it whether a budget and a width cap would have settled the deck."""
    from prisoners_layers import capped, layer_profile

    from exact.prisoners import layers
    from exact.prisoners.solver_kernel import neighbour_masks

    rng = np.random.default_rng(3)
    dealt = [r for r in range(8) for _ in range(2)]  # 2x8: about a fifth of the deals are lost
    for _ in range(100):
        order = [int(r) for r in rng.permutation(dealt)]
        status, _, rows, widths, _ = layers.layered_search(order, neighbour_masks(8, True), False, 10**7)
        if status == "lost" and max(widths) > 1:
            break
    else:
        raise AssertionError("no lost deal found")
    profile = layer_profile(order, 8, True, False, seconds=60)
    built = profile["layers"]
    assert profile["status"] == "lost" and [w for w, _, _, _ in built] == widths[1:] + [0]
    assert [r for _, _, r, _ in built] == [sum(widths[:k + 1]) for k in range(len(widths))]
    assert all(b > 0 for _, b, _, _ in built) and built[-1][2] == rows
    widest = max(widths)
    assert capped(built, "lost", float("inf"), widest)[0]
    assert not capped(built, "lost", float("inf"), widest - 1)[0]
    assert capped(built, "lost", rows, float("inf"))[0] and not capped(built, "lost", rows - 1, float("inf"))[0]
    assert capped(built, "open", float("inf"), float("inf")) == (False, None)
