"""Budgets of the Prisoner's Patience best-play solver."""
from __future__ import annotations

#: Prisoner's Patience best play (:mod:`exact.prisoners.solver`): nodes (rows expanded) before a
#: search gives up as "undecided": about a quarter of a CPU-second per 52-card deck at most with the
#: numba engine (the Python reference expands ~25-30 thousand nodes per second). Deciding 95% of the
#: published 52-card decks takes 15,000,000 (about 0.8-0.9 CPU s a deck, see benchmarks/README.md).
DEFAULT_NODE_BUDGET = 500_000

#: Largest deck (cards) and rank count the numba search kernel (:mod:`exact.prisoners.solver_kernel`)
#: handles: one int64 bit per pile and per rank. Larger decks are searched by the Python reference.
MAX_KERNEL_CARDS = 62
MAX_KERNEL_RANKS = 62

#: Search strategies of the numba engine (:mod:`exact.prisoners.solver`): beams then restarts, restarts
#: in random move orders, or one depth-first run; ``"nrpa"``: the restarts with a share of the budget,
#: then NRPA searches for a win with the rest (:data:`exact.prisoners.solver.NRPA_PLAN`).
STRATEGIES = ("beam", "restarts", "dfs", "nrpa")
