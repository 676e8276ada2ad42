"""``solitaire solve``'s results in a store: ``--decks`` checkpointed by deck and resumed, every
result stored once.

:func:`exact.prisoners.best_play.estimate_best_play` solves its decks one after another, each
verdict depending on that deck, the seed and the budgets alone; here the tally of the decks solved
so far is saved in the store's journal by :func:`solitaire.stored.run_stored`, so a stopped run
resumes from the next deck when the same command is run again, with the counts an uninterrupted run
gives (with ``time_budget`` the verdicts depend on the machine's speed, as they do without a store),
and a finished one is served from the store. A single deck's verdict and the exact best play of a
whole small deck (``--all``) are deterministic too: asked for again, they are served from the store.
"""
from __future__ import annotations

from sim import provenance
from sim.deck import Deck
from sim.variant import Variant

from .stored import DEFAULT_CHECKPOINT_SECONDS


def best_play_identity(deck: Deck, variant: Variant, *, seed: int | None, decks: int, node_budget: int,
                       time_budget: float | None, strategy: str) -> dict:
    """What makes two best-play runs over random decks the same (resumed, or served from the store)."""
    from exact.prisoners.solver import SOLVER_VERSION
    from sim.games import get_game

    return {"kind": "best_play", "game": variant.game, "variant": str(variant), "suits": deck.suits,
            "ranks": deck.ranks, "seed": seed, "decks": decks, "node_budget": node_budget,
            "time_budget": time_budget, "strategy": strategy, "package_version": provenance.package_version(),
            "engine_version": get_game(variant.game).engine_version, "solver_version": SOLVER_VERSION}


def estimate_best_play_stored(store, deck: Deck, variant: Variant, *, decks: int, seed: int | None,
                              node_budget: int, time_budget: float | None = None, strategy: str | None = None,
                              progress=None, resume: bool = True,
                              checkpoint_seconds: float = DEFAULT_CHECKPOINT_SECONDS, notify=None):
    """:func:`exact.prisoners.best_play.estimate_best_play` with its progress saved in ``store`` (a
    :class:`sim.store.ResultsStore`) and its result stored there once (see the module docstring).

    ``seed`` None takes the seed of the latest unfinished run with the same parameters (with
    ``resume``), else a fresh one. ``resume=False`` discards that run's progress and solves its decks
    again (a stored run is still served). ``strategy``: the search's (:data:`exact.prisoners.solver.STRATEGIES`,
    default the numba engine's "restarts"); another strategy is another run. ``progress(solved, counts)``
    is called after every deck.
    Returns the :class:`~exact.prisoners.best_play.BestPlayEstimate`, whose provenance names its record.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from sim.store import ResultsStore
    >>> store = ResultsStore(pathlib.Path(tempfile.mkdtemp()) / "s.h5")
    >>> first = estimate_best_play_stored(store, Deck(2, 4), Variant.make("prisoners"), decks=5, seed=1,
    ...                                   node_budget=1000)
    >>> again = estimate_best_play_stored(store, Deck(2, 4), Variant.make("prisoners"), decks=5, seed=1,
    ...                                   node_budget=1000)
    >>> (again.won, again.lost, again.undecided) == (first.won, first.lost, first.undecided), len(store.list())
    (True, 1)
    """
    from exact.prisoners.best_play import BestPlayEstimate, estimate_best_play
    from exact.prisoners.solver import (
        check_node_budget,
        check_time_budget,
        check_variant,
        make_searcher,
    )
    from sim.checks import check_decks, check_seed, non_negative_number
    from sim.store import new_name

    from .stored import run_stored

    variant = check_variant(variant)
    decks, node_budget = check_decks(decks), check_node_budget(node_budget)
    time_budget = check_time_budget(time_budget)
    checkpoint_seconds = non_negative_number("checkpoint_seconds", checkpoint_seconds)
    store.check_writable()
    strategy = make_searcher(deck, variant, strategy=strategy).strategy  # the one that runs
    identity = best_play_identity(deck, variant, seed=None, decks=decks, node_budget=node_budget,
                                  time_budget=time_budget, strategy=strategy)
    if seed is None and resume:
        seed = store.latest_checkpoint_seed(identity)
    identity["seed"] = seed = check_seed(seed)

    def compute(resume_from, on_part):
        return estimate_best_play(deck, variant, decks=decks, seed=seed, node_budget=node_budget,
                                  time_budget=time_budget, strategy=strategy, progress=progress,
                                  resume_from=resume_from, on_deck=on_part)

    return run_stored(store, identity, what="best-play run", total=decks, unit="decks",
                      done=lambda tally: tally["decks"], compute=compute, from_record=BestPlayEstimate.from_record,
                      name=new_name(BestPlayEstimate.kind, variant.game, deck.suits, deck.ranks), resume=resume,
                      checkpoint_seconds=checkpoint_seconds, notify=notify)


def stored_verdict(store, result_kind: str, deck: Deck, variant: Variant, defaults: dict | None = None,
                   **fields):
    """The newest stored record of kind ``result_kind`` for this deck and variant whose fields equal
    ``fields`` (plain values as stored: lists, not tuples; None included, so a verdict without a time
    budget is not one with), as ``(name, record)``, or None: a single deck's verdict, or a whole deck's
    exact best play, asked for again. ``defaults``: the value a field stands for in a record that lacks
    it or holds None (a verdict stored before verdicts named their strategy was the default strategy's)."""
    defaults = defaults or {}

    def value(record, k):
        v = record.get(k)
        return defaults[k] if v is None and k in defaults else v

    found = [(name, record) for name, record in store.find(kind=result_kind, suits=deck.suits, ranks=deck.ranks,
                                                            variant=str(variant))
             if all(value(record, k) == v for k, v in fields.items())]
    return found[-1] if found else None
