"""Budgets of the Prisoner's Patience best-play solver."""
from __future__ import annotations

#: Prisoner's Patience best play (:mod:`exact.prisoners.solver`): nodes (rows expanded) before a
#: search gives up as "undecided": about half a CPU-second per 52-card deck with the numba engine
#: (the Python reference expands ~25-30 thousand nodes per second).
DEFAULT_NODE_BUDGET = 500_000
