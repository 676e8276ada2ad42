"""The layered search of ``benchmarks/prisoners_layers.py`` against the reference search: the same
verdict on random deals of small decks, both ways of moving a pile, with and without wrap."""
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from exact.prisoners.solver import LOST, WON, Searcher

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from prisoners_layers import layered_verdict  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([(2, 4), (2, 5), (3, 4), (2, 6), (3, 5), (4, 4), (3, 6)]), st.booleans(), st.booleans(),
       st.randoms(use_true_random=False))
def test_layered_search_agrees_with_the_reference(shape, wrap, reverse, rng):
    suits, ranks = shape
    dealt = [r for r in range(ranks) for _ in range(suits)]
    rng.shuffle(dealt)
    reference = Searcher(ranks, wrap=wrap, reverse=reverse).solve_ranks(dealt, 10**7)
    assert reference.status in (WON, LOST)
    assert layered_verdict(dealt, ranks, wrap, reverse)["status"] == str(reference.status)


def test_layered_search_stops_at_its_budget():
    dealt = np.arange(52, dtype=np.int64) % 13  # numpy ranks, as a deck's order gives them
    verdict = layered_verdict(dealt, 13, True, False, row_budget=100)
    assert verdict["status"] == "open" and verdict["rows"] > 100
