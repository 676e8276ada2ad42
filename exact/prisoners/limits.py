"""Budgets of the Prisoner's Patience best-play solver."""
from __future__ import annotations

#: Prisoner's Patience best play (:mod:`exact.prisoners.solver`): nodes (rows expanded) before a
#: search gives up as "open", by the rule (``moves``) when none is given: the budget that decides the
#: most 52-card decks within about 1 CPU-second a deck (published) and 10 (physical) with the numba
#: engine (the measured curves are in benchmarks/README.md; the Python reference expands ~25-30
#: thousand nodes per second). The lost-row table has twice the budget in slots, up to 4 GiB.
DEFAULT_NODE_BUDGETS = {"published": 15_000_000, "physical": 20_000_000}
#: The budget of a search whose rule is not known (the smaller of the two).
DEFAULT_NODE_BUDGET = min(DEFAULT_NODE_BUDGETS.values())


def default_node_budget(variant) -> int:
    """The default node budget of a prisoners ``variant`` (:data:`DEFAULT_NODE_BUDGETS` by its rule)."""
    return DEFAULT_NODE_BUDGETS["published" if variant.rules.reverse_piles else "physical"]

#: Largest deck (cards) and rank count the numba search kernel (:mod:`exact.prisoners.solver_kernel`)
#: handles: one int64 bit per pile and per rank. Larger decks are searched by the Python reference.
MAX_KERNEL_CARDS = 62
MAX_KERNEL_RANKS = 62

#: Search strategies of the numba engine (:mod:`exact.prisoners.solver`): beams then restarts, restarts
#: in random move orders, or one depth-first run; ``"nrpa"``: the restarts with a share of the budget,
#: then NRPA searches for a win with the rest (:data:`exact.prisoners.solver.NRPA_PLAN`); ``"layers"``:
#: the rows built layer by layer, by pile count, none forgotten (:mod:`exact.prisoners.layers`).
STRATEGIES = ("beam", "restarts", "dfs", "nrpa", "layers")
