"""``solitaire poison``'s random decks with a results store: checkpointed by chunk, resumed, stored once.

:func:`exact.hand.poison.classify_runs` plays its decks in chunks of
:data:`~exact.hand.poison.CHUNK_DECKS` runs, each from its own random stream, and sums their tallies.
Here the sum so far is saved in the store's journal by :func:`solitaire.stored.run_stored`, so a
classification that was stopped resumes from the next chunk when the same command is run again,
with the counts an uninterrupted one gives, and a finished one is served from the store, not played
and stored again.
"""
from __future__ import annotations


from sim import provenance
from sim.deck import Deck
from sim.errors import UsageError
from sim.variant import Variant

from .stored import DEFAULT_CHECKPOINT_SECONDS
from sim import compiling as work_clock  # clocks that leave out kernel compilation

#: Most random decks one classification may have: beyond it the chunk count and the time (days at
#: 10^4 runs a second) stop making sense; split the work by seed.
MAX_DECKS = 10**10
#: Classifications of at least this many decks are timed on a sample first.
ESTIMATE_FROM_DECKS = 10**7
#: Longest a classification may be estimated to take without ``--yes`` (hours).
DEFAULT_MAX_HOURS = 24.0


def poison_identity(deck: Deck, variant: Variant, *, seed: int | None, decks: int, cap: int, budget: int) -> dict:
    """What makes two classifications the same (resumed, or served from the store)."""
    from exact.hand.poison import CHUNK_DECKS
    from sim.games import get_game

    return {"kind": "poison", "game": variant.game, "variant": str(variant), "suits": deck.suits,
            "ranks": deck.ranks, "seed": seed, "decks": decks, "cap": cap, "budget": budget,
            "chunk_decks": CHUNK_DECKS, "package_version": provenance.package_version(),
            "engine_version": get_game(variant.game).engine_version}


def check_size(deck: Deck, variant: Variant, *, decks: int, cap: int, budget: int, max_hours: float | None,
               notify=None) -> None:
    """Refuse, before any work, a classification of more than :data:`MAX_DECKS` decks, or one
    estimated (from a timed sample of runs on a throwaway stream) to take more than ``max_hours``
    (None: no limit); say how long a long one will take."""
    from exact.hand.poison import classify_chunk
    from sim.montecarlo import duration_text

    if decks > MAX_DECKS:
        raise UsageError(f"decks: {decks:,} is more than one classification handles ({MAX_DECKS:,}): split it "
                         "into runs with different seeds")
    if decks < ESTIMATE_FROM_DECKS:
        return
    sample = 2048
    classify_chunk(deck, variant, seed=0, chunk=0, decks=16, cap=cap, budget=budget)  # compile first
    t0 = work_clock.perf_counter()
    classify_chunk(deck, variant, seed=0, chunk=1, decks=sample, cap=cap, budget=budget)
    seconds = (work_clock.perf_counter() - t0) / sample * decks
    text = duration_text(seconds)
    if max_hours is not None and seconds > max_hours * 3600:
        raise UsageError(f"{decks:,} decks would take about {text} on one core (timed on a sample), more than "
                         f"{max_hours:g} hours: confirm with --yes (with --out the classification checkpoints and "
                         "resumes), or classify fewer decks")
    if notify is not None and seconds >= 600:
        notify(f"{decks:,} decks: about {text} on one core (timed on a sample)")


def classify_runs_stored(store, deck: Deck, variant: Variant, *, decks: int, seed: int | None, cap: int,
                         budget: int, progress=None, resume: bool = True,
                         checkpoint_seconds: float = DEFAULT_CHECKPOINT_SECONDS, notify=None):
    """:func:`exact.hand.poison.classify_runs` with its progress saved in ``store`` (a
    :class:`sim.store.ResultsStore`) and its result stored there once (see the module docstring).

    ``seed`` None takes the seed of the latest unfinished classification with the same parameters
    (with ``resume``), else a fresh one. ``resume=False`` discards that classification's progress and
    plays it again (a stored one is still served from the store). Returns the
    :class:`~exact.hand.poison.PoisonResult`, whose provenance names its record (``stored_as``).
    """
    from exact.hand.poison import CHUNK_DECKS, PoisonResult, classify_runs
    from sim.checks import check_seed, non_negative_number
    from sim.store import new_name

    from .stored import run_stored

    checkpoint_seconds = non_negative_number("checkpoint_seconds", checkpoint_seconds)
    store.check_writable()
    identity = poison_identity(deck, variant, seed=None, decks=decks, cap=cap, budget=budget)
    if seed is None and resume:
        seed = store.latest_checkpoint_seed(identity)
    identity["seed"] = seed = check_seed(seed)

    def compute(resume_from, on_part):
        return classify_runs(deck, variant, decks=decks, seed=seed, cap=cap, budget=budget, progress=progress,
                             resume_from=resume_from, on_chunk=on_part)

    return run_stored(store, identity, what="classification", total=-(-decks // CHUNK_DECKS), unit="chunks",
                      done=lambda tally: tally["chunks"], compute=compute, from_record=PoisonResult.from_record,
                      name=new_name(PoisonResult.kind, variant.game, deck.suits, deck.ranks), resume=resume,
                      checkpoint_seconds=checkpoint_seconds, notify=notify)
