"""Budgets of the Prisoner's Patience best-play solver."""
from __future__ import annotations

#: Prisoner's Patience best play (:mod:`exact.prisoners.solver`): nodes (rows expanded) before a
#: search gives up as "undecided": about a quarter of a CPU-second per 52-card deck at most with the
#: numba engine (the Python reference expands ~25-30 thousand nodes per second). Deciding 95% of the
#: published 52-card decks takes 15,000,000 (about 0.8-0.9 CPU s a deck, see benchmarks/README.md).
DEFAULT_NODE_BUDGET = 500_000
