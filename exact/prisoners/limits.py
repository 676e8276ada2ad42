"""Budgets of the Prisoner's Patience best-play solver."""
from __future__ import annotations

#: Prisoner's Patience best play (:mod:`exact.prisoners.solver`): nodes (rows expanded) before a
#: depth-first search (the strategies but ``"layers"``) gives up as "open", by the rule (``moves``)
#: when none is given: the budget that decides the most 52-card decks within about 1 CPU-second a
#: deck (published) and 10 (physical) with the numba engine (the measured curves are in
#: benchmarks/README.md; the Python reference expands ~25-30 thousand nodes per second). The
#: lost-row table has twice the budget in slots, up to 4 GiB.
DEFAULT_NODE_BUDGETS = {"published": 15_000_000, "physical": 20_000_000}
#: The same for the layered search (``"layers"`` and ``"hybrid"``, a row of a layer counting as a
#: node), which builds its rows several times faster than the depth-first search expands them. Its
#: layers are capped at a share of the budget (:data:`LAYER_WIDTH_SHARE`), and its memory at 4 GiB
#: (:data:`exact.prisoners.layers.MAX_LAYER_BYTES`). Physical 52-card decks: about 10 CPU-seconds a
#: deck on average or less, a few settled ones taking about three times that (benchmarks/README.md).
LAYERS_NODE_BUDGETS = {"published": 15_000_000, "physical": 120_000_000}
#: The layered search leaves a deck open as soon as one layer would hold more than
#: ``node budget // LAYER_WIDTH_SHARE`` rows: on physical 52-card decks the ones whose layers grow
#: that wide are nearly never settled within the budget, so the cap spends the budget on the decks
#: that can be (measured in benchmarks/README.md). Raising the budget raises the cap with it.
LAYER_WIDTH_SHARE = 10


def layer_width_cap(node_budget: int) -> int:
    """The most rows one layer of the layered search may hold under ``node_budget``:
    ``node_budget // LAYER_WIDTH_SHARE``, at least one."""
    return max(node_budget // LAYER_WIDTH_SHARE, 1)


#: Why a search left its verdict open (``Verdict.stop`` and ``SolveResult.stop``): its node budget
#: was spent, its time budget was spent, a layer of the layered search would have held more rows
#: than its width cap (:func:`layer_width_cap`), or more bytes than its memory cap
#: (:data:`exact.prisoners.layers.MAX_LAYER_BYTES`).
STOP_NODES, STOP_TIME, STOP_WIDTH, STOP_MEMORY = "node_budget", "time_budget", "layer_width", "layer_memory"
STOPS = (STOP_NODES, STOP_TIME, STOP_WIDTH, STOP_MEMORY)
#: How each stop reads in the command line's summaries.
STOP_SHOWN = {STOP_NODES: "node budget", STOP_TIME: "time budget", STOP_WIDTH: "layer width cap",
              STOP_MEMORY: "layer memory cap"}

#: The budget of a search whose rule is not known (the smaller of the two).
DEFAULT_NODE_BUDGET = min(DEFAULT_NODE_BUDGETS.values())


def default_node_budget(variant, strategy: str | None = None) -> int:
    """The default node budget of a prisoners ``variant`` searched by ``strategy`` (by its rule:
    :data:`LAYERS_NODE_BUDGETS` for ``"layers"`` and ``"hybrid"``, else :data:`DEFAULT_NODE_BUDGETS`)."""
    rule = "published" if variant.rules.reverse_piles else "physical"
    return (LAYERS_NODE_BUDGETS if strategy in ("layers", "hybrid") else DEFAULT_NODE_BUDGETS)[rule]


#: Largest deck (cards) and rank count the numba search kernel (:mod:`exact.prisoners.solver_kernel`)
#: handles: one int64 bit per pile and per rank. Larger decks are searched by the Python reference.
MAX_KERNEL_CARDS = 62
MAX_KERNEL_RANKS = 62

#: Search strategies of the numba engine (:mod:`exact.prisoners.solver`): beams then restarts, restarts
#: in random move orders, or one depth-first run; ``"nrpa"``: the restarts with a share of the budget,
#: then NRPA searches for a win with the rest (:data:`exact.prisoners.solver.NRPA_PLAN`); ``"layers"``:
#: the rows built layer by layer, by pile count, none forgotten (:mod:`exact.prisoners.layers`);
#: ``"hybrid"``: the restarts for a few hundred thousand nodes (for a win), then the layers.
STRATEGIES = ("beam", "restarts", "dfs", "nrpa", "layers", "hybrid")
#: Nodes of the restarts with which ``strategy="hybrid"`` looks for a win before the layered search
#: (which finds one only at its last layer): about 0.3 CPU-seconds on a 52-card deck.
HYBRID_PROBE_NODES = 200_000
#: Ranks a row of the layered search can hold (:mod:`exact.prisoners.layers`: four bits a rank in a pile's code).
MAX_LAYER_RANKS = 16


def default_strategy(cards: int, ranks: int, variant) -> str:
    """The strategy a search runs when none is given: ``"hybrid"`` for ``moves=physical`` where the
    layered search runs (the numba engine's decks, at most :data:`MAX_LAYER_RANKS` ranks): the layers
    settle more physical 52-card decks within 10 CPU-seconds than the restarts, nearly all of them
    losses, proved by exhaustion, and the restarts' short probe first finds the easy wins, which the
    layers would find only at their last layer. Else ``"restarts"`` (under ``moves=published`` the
    layers grow too wide, and most decided decks are wins, which the restarts find in far fewer rows)."""
    physical = not variant.rules.reverse_piles
    fits = cards <= MAX_KERNEL_CARDS and ranks <= min(MAX_KERNEL_RANKS, MAX_LAYER_RANKS)
    return "hybrid" if physical and fits else "restarts"
