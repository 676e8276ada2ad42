"""One-Handed Solitaire, exactly: four methods, the tests make them agree (``phase`` and ``zeta`` compute
the same recursion two ways; the other two are independent of it).

* ``enumerate`` (:mod:`exact.one_handed.enumerate`): every deck order, depth-first in numba, a prefix played
  once; up to :data:`exact.one_handed.limits.MAX_ENUMERATE_CARDS` cards.
* ``dp`` (:mod:`exact.one_handed.dp`): dynamic programming over reduced, relabelled hand states; up to
  :data:`exact.one_handed.limits.MAX_DP_CARDS` cards.
* ``phase`` (:mod:`exact.one_handed.phase`): the row is a stack; the play above its top three cards depends only
  on those three and on the *set* of cards dealt meanwhile, so it is counted once per (window, set)
  in dense subset tables; up to :data:`exact.one_handed.limits.MAX_PHASE_CARDS` cards.
* ``word`` (:mod:`exact.one_handed.word`): the same recursion at single alphabets (words over a set of
  cards, inclusion-exclusion over the set), one independent job per orbit of alphabets, resumable and
  shardable; up to 62 cards as time allows.
* ``zeta`` (:mod:`exact.one_handed.zeta`): the same recursion in the ranked zeta domain (subset
  convolutions become products), tables indexed by symmetry orbits, one pass per 31-bit prime joined by
  the Chinese remainder theorem; as far as memory allows (:func:`exact.one_handed.limits.zeta_estimate`).

``final=once`` (a single check after the last card) is counted by ``enumerate`` and ``dp`` (both
play the last card with one check; the DP's reductions stay sound, see :mod:`exact.one_handed.dp`),
and refused by ``phase`` and ``zeta`` with a one-line error: its tables count how the phase of the top three
cards ends over a *set* of cards and keep neither the row the last card meets nor where a cascade
started, so they cannot stop the last card's cascade after one removal. ``auto`` picks ``dp`` for it,
so wide decks of 19 and 20 cards (4x5, 5x4) are not exact under ``final=once``.

Modules, by method family (each method's plan, kernel and entry apart; the entry is the front module):

* shared: ``limits`` (size limits, the method choice), ``parity`` (the parity theorem), ``settle`` (the
  rule compiled once), ``primitives`` (card-set masks, windows and their canonical forms, shared by
  every phase-family engine), ``split_sum`` (the split sum of the two dense phase engines);
* ``enumerate``; ``dp`` (reference and entry), ``dp_kernel``, ``dp_codec``, ``finish`` (play-out);
* ``phase`` (derivation, reference and entry), ``phase_plan``, ``phase_kernel``;
* ``zeta`` (derivation, reference and entry), ``zeta_plan`` (plan and memory estimate), ``orbits``,
  ``zeta_kernel`` (one pass), ``zeta_passes`` (the passes, checkpoints), ``crt`` (primes, joining);
* odds from a position: ``odds`` (entry, the memoised search), ``odds_phase`` (the phase engine),
  ``odds_phase_groups``, ``odds_phase_kernel``.
"""
from __future__ import annotations

import math

from sim import provenance
from sim.deck import Deck
from sim.variant import Variant

from exact.invariants import require
from exact.one_handed.dp import DPStats, dp_distribution
from exact.one_handed.enumerate import enumerate_distribution
from exact.one_handed.limits import MAX_DP_CARDS, MAX_ENUMERATE_CARDS, choose_method
from exact.one_handed.parity import check_parity
from exact.one_handed.phase import phase_distribution
from exact.one_handed.word import word_distribution
from exact.one_handed.zeta import zeta_distribution
from exact.result import ExactResult
from sim import compiling as work_clock  # clocks that leave out kernel compilation

__all__ = ["exact_distribution", "ExactResult", "MAX_DP_CARDS", "MAX_ENUMERATE_CARDS"]


def exact_distribution(deck: Deck | None = None, variant: Variant | str | None = None, *,
                       method: str = "auto", progress=None, workers: int = 1, backend: str = "local",
                       scheduler=None, checkpoint_dir=None, merge_only: bool = False,
                       checkpoint_seconds: float | None = None) -> ExactResult:
    """Count the deck orders of each final score, exactly.

    Parameters
    ----------
    deck : Deck, default ``Deck(4, 13)`` (which is refused: too large for an exact method)
    variant : Variant or canonical string, default One-Handed as written; only One-Handed is exact here
    method : ``"auto"`` (on decks with at least 3 suits and 3 ranks: phase below 18 cards, zeta from
        18 where its tables fit; dp for narrower decks and ``final=once``; zeta beyond the DP), ``"enumerate"``, ``"dp"``, ``"phase"`` or ``"zeta"``
    progress : optional callable ``progress(done, total, work)`` called after each dealt card (dp: states
        in the layer) or each set size (phase: subset pairs visited so far); for zeta
        ``progress(message)`` with a line per pass
    workers, backend, scheduler : zeta only: its passes (one per prime) run on ``workers`` local
        threads, or as tasks on a Dask cluster (``backend="dask"``, ``scheduler`` an address or None
        for a local cluster of ``workers`` processes)
    merge_only : word only: run no job, join the journals of ``checkpoint_dir`` (every job must be there)
    checkpoint_dir : a folder where the computation keeps what it has done, and a run given it again
        resumes there: dp its layer of states after each card, phase its tables after each set size
        (a file per computation, :mod:`exact.checkpoint`, written at most every ``checkpoint_seconds``,
        default 10), zeta its finished passes (a JSON file per deck shape: the variants of a deck
        share them), word its finished jobs (a journal per deck shape); enumerate (at most 13 cards)
        keeps nothing

    Returns
    -------
    ExactResult
        counts summing to ``(S*R)!`` (checked), ``p_win`` and ``mean_score`` as fractions.

    Raises
    ------
    UsageError
        unknown method, a variant of another game, or a deck beyond the method's size limit.

    Examples
    --------
    >>> r = exact_distribution(Deck(2, 4))
    >>> r.orders, r.p_win
    (40320, Fraction(59, 420))
    """
    deck = deck if deck is not None else Deck()
    variant = Variant.coerce(variant, "one-handed")
    method = choose_method(deck, method, variant)
    started = provenance.now()
    t0 = work_clock.perf_counter()
    extra: dict = {}
    checkpoint = None
    if checkpoint_dir is not None and method in ("phase", "dp"):
        from exact.checkpoint import in_folder

        reverse = variant.rules.reverse
        built = (deck.ranks, deck.suits) if reverse and method == "phase" else (deck.suits, deck.ranks)
        # what the kernel computes: phase the plain game of the deck as built; dp every rule but first4
        key = {"engine": f"one-handed-{method}", "suits": built[0], "ranks": built[1]}
        if method == "dp":
            key.update(reverse=reverse, win_any=variant.rules.win_any, final_once=variant.rules.final_once)
        checkpoint = in_folder(checkpoint_dir, key, seconds=checkpoint_seconds,
                               what="cards" if method == "dp" else "set sizes")
    if method == "enumerate":
        score_counts, wins = enumerate_distribution(deck, variant)
    elif method == "phase":
        stats_phase: dict = {}
        score_counts, wins = phase_distribution(deck, variant, progress=progress, stats=stats_phase,
                                                checkpoint=checkpoint)
        extra = dict(stats_phase)
    elif method == "zeta":
        stats_zeta: dict = {}
        score_counts, wins = zeta_distribution(deck, variant, workers=workers, backend=backend, scheduler=scheduler,
                                               checkpoint_dir=checkpoint_dir, progress=progress, stats=stats_zeta,
                                               checkpoint_seconds=checkpoint_seconds)
        extra = dict(stats_zeta)
    elif method == "word":
        stats_word: dict = {}
        score_counts, wins = word_distribution(deck, variant, workers=workers, backend=backend, scheduler=scheduler,
                                               checkpoint_dir=checkpoint_dir, merge_only=merge_only, progress=progress,
                                               stats=stats_word)
        extra = dict(stats_word)
    else:
        stats = DPStats()
        score_counts, wins = dp_distribution(deck, variant, progress=progress, stats=stats, checkpoint=checkpoint)
        extra = {"states": stats.states, "transitions": stats.transitions,
                 "max_layer_states": stats.max_layer_states}
    seconds = work_clock.perf_counter() - t0
    if checkpoint is not None:
        if checkpoint.resumed_at:
            extra["resumed_at_step"] = checkpoint.resumed_at  # ``seconds`` is this run's part
        checkpoint.discard()
    orders = math.factorial(deck.size)
    require(sum(score_counts) == orders, "exact counts must add up to (S*R)!")
    require(check_parity(score_counts, deck.size), "a score with the wrong parity: the parity theorem fails")
    prov = provenance.collect(started=started, finished=provenance.now(), seconds=seconds, method=method,
                              **extra)
    return ExactResult(game=variant.game, deck=deck, variant=variant, method=method, orders=orders,
                       score_counts=tuple(score_counts), wins=wins, provenance=prov)
