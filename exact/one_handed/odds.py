"""One-Handed Solitaire: the odds from here. Given the cards dealt so far, in order, the distribution
of the final score over every order of the cards still to come.

Exact: the position is the settled row and the set of undealt cards (all orders of the dealt cards
that reach it share its future, :mod:`exact.one_handed.dp`). From it, a memoised depth-first search
over the DP's reduced, relabelled hand states (:func:`exact.one_handed.dp.canonical_key`: dead
labels, frozen bottom cut off into a score offset, suits and ranks relabelled) deals each undealt
card in turn; a state with at most :data:`PLAY_OUT_CARDS` cards left is finished by playing every
order of them in numba (:func:`exact.one_handed.finish.play_out_distribution`). Counts are Python
ints and must add up to ``k!`` for ``k`` cards left (checked), and every score has the parity of
the deck (checked). At the empty prefix of a deck within :func:`exact.exact_distribution`'s reach,
``method="auto"`` uses it instead (the tests check that both agree).

Two exact engines, chosen by measurement (``benchmarks/bench_odds.py``, 52-card positions, one
core), each the other's witness (the tests compare them on random positions of random decks and
variants):

* ``search`` (:func:`position_counts`): the memoised search above. The reductions merge almost
  nothing from a 52-card position (two orders of the same cards rarely leave the same row: the row
  keeps the dealt cards in order until they are removed), so it costs about what the numba play-out
  of all ``k!`` orders costs: about 0.1 s with 10 cards left, 1 s with 11, and ``k`` times more per
  further card.
* ``phase`` (:mod:`exact.one_handed.odds_phase`): the phase recursion run from the current row
  instead of from three sentinels, over the *sets* of cards to come, each window's tables shared by
  the relabellings of the cards to come that map them onto themselves. Its cost grows about
  3.5-fold per card (``m^4 3^(m-4)`` for the windows of three cards to come, plus the row depths
  the play reaches, divided by what symmetry the position has), so it overtakes the search from
  :data:`PHASE_FROM_CARDS` cards left; its tables grow about 3-fold per card, which is its limit
  (:data:`MAX_PHASE_TABLE_BYTES`, checked before it starts: over 20 random 52-card positions,
  ``benchmarks/bench_odds.py --estimate 20 --seed 1``, the estimated peak is at most 0.95 GiB with
  15 cards left, and 0.62-1.89 GiB with 16, all within the limit; over 80, seeds 1-4, all 80 of
  them, 0.43-2.69 GiB).

``engine="auto"`` takes the phase engine from :data:`PHASE_FROM_CARDS` cards left and the search
below; exact odds are computed for at most :data:`MAX_EXACT_CARDS` cards left (auto:
:data:`AUTO_EXACT_CARDS`) and simulated beyond.

Variants: ``reverse=on`` and ``win=any`` exactly (a prefix that already emptied the row is won);
``first4=reversed`` holds the first four cards reversed, so with 1 to 3 cards dealt the row is not
yet a stack: the exact method then sums over the ordered choices of the cards that complete the
first four. ``final=once`` (a single check after the last card of the deck) is counted by the
search alone (its play-out checks the last card once; the phase tables do not say which check the
last card made), so exactly for at most :data:`MAX_SEARCH_CARDS` cards left (auto:
:data:`AUTO_SEARCH_CARDS`).

Simulated: the cards still to come are shuffled by numpy's PCG64 from ``seed`` in chunks of
:data:`CHUNK` games and played out in numba; the interval is Wilson's (Clopper-Pearson for fewer
than 10 wins or losses), :func:`sim.stats.binomial_interval`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import permutations

import numpy as np

from sim.fractions_text import fraction_text
from exact.checkpoint import in_folder
from exact.invariants import require
from sim._jit import jit
from sim.cards import format_cards, parse_cards
from sim.checks import check_games, check_seed, check_workers
from sim.deck import Deck
from sim.errors import UsageError
from sim.rules import one_handed as rules
from sim.stats import binomial_interval
from sim.variant import Variant
from sim.tables import TableMixin

from exact.one_handed import exact_distribution
from exact.one_handed.dp import _decode, _settle, canonical_key
from exact.one_handed.finish import play_out_distribution
from exact.one_handed.limits import choose_method
from exact.one_handed.odds_phase import phase_table_bytes, position_phase_counts
from exact.one_handed.parity import check_parity
from sim import compiling as work_clock  # clocks that leave out kernel compilation

#: cards left at most for the exact method (the phase engine: 16 fits below MAX_PHASE_TABLE_BYTES for 80
#: of 80 random 52-card positions, 0.43-2.69 GiB estimated, benchmarks/bench_odds.py --estimate; minutes
#: each, see benchmarks/README.md; a position whose tables would not fit is refused with one line)
MAX_EXACT_CARDS = 16
#: cards left at most for which ``method="auto"`` computes exactly (13: 5-10 CPU s, 0.24-0.39 GiB peak;
#: 14 takes 25-45 CPU s, benchmarks/bench_odds.py, 2026-11-26 at load about 3)
AUTO_EXACT_CARDS = 13
#: final=once (the search engine alone): cards left at most for method="auto" (11: about 1 CPU s) and for
#: method="exact" (13: minutes; the search grows about k-fold per card, benchmarks/bench_odds.py)
AUTO_SEARCH_CARDS = 11
MAX_SEARCH_CARDS = 13
#: from this many cards left the exact odds use the phase engine (benchmarks/bench_odds.py, same positions:
#: 12 cards left, phase 1.7-2.8 CPU s against the search's 11.6-12.1; 11 left, 0.7-1.5 against 1.1-1.3, the
#: phase engine ahead only where the cards to come have many relabellings)
PHASE_FROM_CARDS = 12
#: largest peak of the phase engine's tables (bytes, :func:`exact.one_handed.odds_phase.phase_table_bytes`),
#: checked before it starts (a process stays under 4 GB with the interpreter's 0.2 GiB; 20 random 52-card
#: positions, bench_odds.py --estimate 20 --seed 1, need 0.04-0.14 GiB with 13 left, 0.07-0.32 with 14,
#: 0.24-0.95 with 15 and 0.62-1.89 with 16, all within the limit; 80 of 80 with 16 over seeds 1-4)
MAX_PHASE_TABLE_BYTES = 3 * 2**30
ENGINES = ("auto", "search", "phase")
#: a state with this many cards left or fewer is finished by playing out every order of them
PLAY_OUT_CARDS = 8
#: games per chunk of the simulation
CHUNK = 1 << 16
DEFAULT_GAMES = 1_000_000


@dataclass(frozen=True, repr=False)
class OddsResult(TableMixin):
    """The odds from one position: the score distribution over the orders of the cards to come."""

    deck: Deck
    variant: Variant
    dealt: tuple[int, ...]  #: the cards dealt so far, in order
    method: str  #: "exact" or "simulated"
    score_counts: tuple[int, ...]  #: orders (exact) or games (simulated) per final score
    wins: int  #: orders or games won (score 0, or with win=any ever emptied)
    ci95: tuple[float, float] | None = None  #: simulated only
    seed: int | None = None  #: simulated only
    seconds: float = field(default=0.0, compare=False)
    #: exact only: "phase", "search" (the two position engines), "whole-deck" (exact_distribution at the
    #: empty prefix) or "outcome" (nothing left to deal)
    engine: str | None = field(default=None, compare=False)

    @property
    def remaining(self) -> int:
        return self.deck.size - len(self.dealt)

    @property
    def total(self) -> int:
        return sum(self.score_counts)

    @property
    def p_win(self) -> Fraction | float:
        """A Fraction when exact, a float when simulated."""
        return Fraction(self.wins, self.total) if self.method == "exact" else self.wins / self.total

    def to_dict(self) -> dict:
        """SPEC §6 ``odds`` keys (plus ``suits``, ``ranks``, ``variant``; ``games``/``seed`` when simulated,
        ``engine`` when exact)."""
        p = self.p_win
        out = {"dealt": format_cards(self.dealt, self.deck), "remaining": self.remaining,
               "p_win": fraction_text(p) if self.method == "exact" else p,
               "method": self.method, "score_counts": list(self.score_counts),
               "suits": self.deck.suits, "ranks": self.deck.ranks, "variant": str(self.variant)}
        if self.method == "simulated":
            out.update(ci95=list(self.ci95), games=self.total, seed=self.seed)
        else:
            out["engine"] = self.engine
        return out


def _labels(cards, deck: Deck) -> list[tuple[int, int]]:
    return [(deck.suit(c), deck.rank(c)) for c in cards]


def position_counts(row, undealt, deck: Deck, *, reverse: bool = False, track_empty: bool = False,
                    final_once: bool = False, stats: dict | None = None):
    """Exact final-score counts over every order of ``undealt`` dealt onto the settled ``row``.

    Parameters
    ----------
    row : cards of the settled row, first dealt first
    undealt : the cards still to deal (a set: their order does not matter)
    reverse : False for the plain game, True for ``reverse=on``
    track_empty : also count the orders in which a removal empties the row (``win=any``)
    final_once : the last card gets a single check (``final=once``; the reductions stay sound, as in
        the DP: a ``final=once`` game is the cascading game cut short at its last card)
    stats : if given, receives ``states`` (reduced states searched, those played out included) and
        ``prefixes`` (the dealt prefixes they stand for, down to the play-out: what plain
        enumeration would visit)

    Returns
    -------
    score_counts : list of Python ints, index = final score, summing to ``len(undealt)!``
    emptied : the orders in which a removal empties the row (0 unless ``track_empty``)
    """
    ranks = deck.ranks
    memo: dict = {}

    def counts(key):
        """(counts by final length of the reduced row, orders emptying it) for a canonical key."""
        hit = memo.get(key)
        if hit is not None:
            return hit
        r, u = _decode(key, ranks)
        k = len(u)
        if k <= PLAY_OUT_CARDS:
            hist, emptied = play_out_distribution(r, u, reverse=reverse, track_empty=track_empty,
                                                  final_once=final_once)
            result = (hist, emptied)
        else:
            hist: list[int] = []
            emptied = 0
            rest_orders = math.factorial(k - 1)
            for i, card in enumerate(u):
                new_row = r + [card]
                removed, removals = _settle(new_row, reverse)  # never the last card: k > PLAY_OUT_CARDS
                require(removed % 2 == 0, "each removal takes 2 or 4 cards")
                child_key, cut = canonical_key(new_row, u[:i] + u[i + 1:], ranks, reverse=reverse)
                child, child_emptied = counts(child_key)
                if len(hist) < cut + len(child):
                    hist.extend([0] * (cut + len(child) - len(hist)))
                for s, c in enumerate(child):
                    if c:
                        hist[s + cut] += c
                if removals and not new_row:
                    emptied += rest_orders  # emptied now: every order of the rest counts
                elif cut == 0:
                    emptied += child_emptied
            result = (hist, emptied)
        memo[key] = result
        return result

    key, cut = canonical_key(_labels(row, deck), _labels(undealt, deck), ranks, reverse=reverse)
    hist, emptied = counts(key)
    if stats is not None:
        k = len(undealt)
        stats["states"] = len(memo)
        stats["prefixes"] = sum(math.perm(k, t) for t in range(max(0, k - PLAY_OUT_CARDS) + 1))
    score_counts = [0] * (deck.size + 1)
    for s, c in enumerate(hist):
        if c:
            score_counts[s + cut] += c
    require(sum(score_counts) == math.factorial(len(undealt)), "odds counts must add up to k!")
    return score_counts, (emptied if cut == 0 else 0)


def choose_engine(left: int, engine: str = "auto", *, final_once: bool = False) -> str:
    """The exact engine for a position with ``left`` cards to come (see the module docstring);
    ``final=once`` is counted by the search only."""
    if engine not in ENGINES:
        raise UsageError(f"unknown odds engine {engine!r}: choose one of {', '.join(ENGINES)}")
    if final_once:
        if engine == "phase":
            raise UsageError("the phase engine does not count final=once (one check after the last card); "
                             "use --engine search or auto")
        return "search"
    if engine == "auto":
        return "phase" if left >= PHASE_FROM_CARDS else "search"
    return engine


def position_odds(row, undealt, deck: Deck, *, reverse: bool = False, track_empty: bool = False,
                  final_once: bool = False, engine: str = "auto", workers: int = 1,
                  progress: bool | None = None, checkpoint_dir=None,
                  checkpoint_seconds: float | None = None) -> tuple[list[int], int, str]:
    """:func:`position_counts` by the chosen engine: ``(score_counts, emptied, engine used)``.
    ``workers`` and ``progress``: the phase engine's threads and progress bar
    (:func:`exact.one_handed.odds_phase.position_phase_counts`). ``checkpoint_dir``: a folder where
    the phase engine keeps its counts after each row depth (a file per position,
    :mod:`exact.checkpoint`, written at most every ``checkpoint_seconds`` and when SIGINT or SIGTERM
    arrives in a deferred block), resumed when the same position is counted again and removed once
    it is counted; the search engine (seconds) keeps nothing.

    The phase engine refuses (one line) a position whose tables would exceed
    :data:`MAX_PHASE_TABLE_BYTES`."""
    engine = choose_engine(len(undealt), engine, final_once=final_once)
    if engine == "search":
        counts, emptied = position_counts(row, undealt, deck, reverse=reverse, track_empty=track_empty,
                                          final_once=final_once)
        return counts, emptied, engine
    row_labels, undealt_labels = _labels(row, deck), _labels(undealt, deck)
    need = phase_table_bytes(row_labels, undealt_labels, reverse=reverse)
    if need > MAX_PHASE_TABLE_BYTES:
        raise UsageError(f"{len(undealt)} cards still to come: the exact phase tables would take "
                         f"{need / 2**30:.1f} GiB (limit {MAX_PHASE_TABLE_BYTES / 2**30:.0f} GiB); "
                         f"use --method simulate (or deal more cards)")
    checkpoint = None
    if checkpoint_dir is not None:
        key = {"engine": "one-handed-odds-phase", "suits": deck.suits, "ranks": deck.ranks, "row": row_labels,
               "undealt": undealt_labels, "reverse": reverse}
        checkpoint = in_folder(checkpoint_dir, key, seconds=checkpoint_seconds, what="row depths")
    hist, emptied = position_phase_counts(row_labels, undealt_labels, reverse=reverse, workers=workers,
                                          progress=progress, checkpoint=checkpoint)
    if checkpoint is not None:
        checkpoint.discard()
    counts = [0] * (deck.size + 1)
    for s, c in enumerate(hist):
        if c:
            counts[s] += c
    require(sum(counts) == math.factorial(len(undealt)), "odds counts must add up to k!")
    return counts, (emptied if track_empty else 0), engine


def settled_position(dealt, deck: Deck, variant: Variant) -> tuple[list[int], bool]:
    """The settled row after ``dealt`` (at least 4 cards, or first4=kept), and whether it was
    emptied by a removal. With ``final=once`` the last card of the deck gets a single check."""
    row: list[int] = []
    emptied = False
    once_at = deck.size - 1 if variant.rules.final_once else -1
    for i, card in enumerate(rules.dealing_order(dealt, variant)):
        row.append(card)
        if rules.settle(row, deck, variant, max_removals=1 if i == once_at else None) and not row:
            emptied = True
    return row, emptied


def _exact(dealt, deck: Deck, variant: Variant, engine: str = "auto", workers: int = 1,
           progress: bool | None = None, checkpoint_dir=None,
           checkpoint_seconds: float | None = None) -> tuple[list[int], int, str]:
    n = deck.size
    reverse = variant.rules.reverse
    win_any = variant.rules.win_any
    undealt = [c for c in range(n) if c not in set(dealt)]
    if not dealt:
        variant = Variant.make("one-handed", **{**variant.as_dict(), "first4": "kept"})  # equal in distribution
    if variant.rules.first4_reversed and 0 < len(dealt) < 4 and len(undealt) > 0:
        # the first four are held reversed: complete them in every way, then go on from the stack
        need = min(4, n) - len(dealt)
        total = [0] * (n + 1)
        wins = 0
        used = engine
        for head in permutations(undealt, need):
            sub_counts, sub_wins, used = _exact(tuple(dealt) + head, deck, variant, engine, workers, progress,
                                                checkpoint_dir, checkpoint_seconds)
            total = [a + b for a, b in zip(total, sub_counts)]
            wins += sub_wins
        return total, wins, used
    row, emptied_before = settled_position(dealt, deck, variant)
    score_counts, emptied, used = position_odds(row, undealt, deck, reverse=reverse, track_empty=win_any,
                                                final_once=variant.rules.final_once, engine=engine, workers=workers,
                                                progress=progress, checkpoint_dir=checkpoint_dir,
                                                checkpoint_seconds=checkpoint_seconds)
    if not win_any:
        return score_counts, score_counts[0], used
    if emptied_before:
        return score_counts, math.factorial(len(undealt)), used
    return score_counts, (emptied if undealt else score_counts[0]), used


@jit
def _play_orders(row_s, row_r, length, orders_s, orders_r, reverse, final_once, hist):
    """Deal each row of ``orders_*`` onto a copy of the row; count final lengths in ``hist``;
    return the number of games in which a removal emptied the row. ``final_once``: the last card of
    each order gets a single check."""
    games, k = orders_s.shape
    rs = np.empty(length + k + 1, dtype=np.int64)
    rr = np.empty(length + k + 1, dtype=np.int64)
    emptied_games = 0
    for g in range(games):
        for j in range(length):
            rs[j] = row_s[j]
            rr[j] = row_r[j]
        n = length
        emptied = False
        for j in range(k):
            rs[n] = orders_s[g, j]
            rr[n] = orders_r[g, j]
            n += 1
            removals_left = 1 if final_once and j == k - 1 else n
            while n >= 4 and removals_left > 0:
                removals_left -= 1
                same_suit = rs[n - 1] == rs[n - 4]
                same_rank = rr[n - 1] == rr[n - 4]
                two = same_rank if reverse else same_suit
                four = same_suit if reverse else same_rank
                if two:
                    rs[n - 3] = rs[n - 1]
                    rr[n - 3] = rr[n - 1]
                    n -= 2
                elif four:
                    n -= 4
                else:
                    break
                if n == 0:
                    emptied = True
        hist[n] += 1
        if emptied:
            emptied_games += 1
    return emptied_games


def _simulate(dealt, deck: Deck, variant: Variant, games: int, seed: int) -> tuple[list[int], int]:
    n = deck.size
    reverse = variant.rules.reverse
    undealt = np.array([c for c in range(n) if c not in set(dealt)], dtype=np.int64)
    reversed_head = variant.rules.first4_reversed and len(dealt) < 4
    if reversed_head:  # deal everything from an empty row, the first four reversed
        row, emptied_before = [], False
    else:
        row, emptied_before = settled_position(dealt, deck, variant)
    row_s = np.array([deck.suit(c) for c in row] + [0], dtype=np.int64)
    row_r = np.array([deck.rank(c) for c in row] + [0], dtype=np.int64)
    hist = np.zeros(n + 1, dtype=np.int64)
    emptied = 0
    rng = np.random.Generator(np.random.PCG64(seed))
    done = 0
    while done < games:
        size = min(CHUNK, games - done)
        orders = rng.permuted(np.broadcast_to(undealt, (size, len(undealt))), axis=1)
        if reversed_head:
            orders = np.concatenate([np.broadcast_to(np.array(dealt, dtype=np.int64), (size, len(dealt))), orders],
                                    axis=1)
            orders[:, :4] = orders[:, 3::-1] if orders.shape[1] >= 4 else orders[:, ::-1]
        orders = np.ascontiguousarray(orders)
        emptied += _play_orders(row_s, row_r, len(row), orders // deck.ranks, orders % deck.ranks, reverse,
                                variant.rules.final_once, hist)
        done += size
    score_counts = hist.tolist()
    if not variant.rules.win_any:
        return score_counts, score_counts[0]
    return score_counts, games if emptied_before else (emptied if len(undealt) else score_counts[0])


METHODS = ("auto", "exact", "simulate")


def odds(dealt, deck: Deck | None = None, variant: Variant | str | None = None, *, method: str = "auto",
         games: int = DEFAULT_GAMES, seed: int | None = None, engine: str = "auto", workers: int = 1,
         progress: bool | None = None, checkpoint_dir=None, checkpoint_seconds: float | None = None) -> OddsResult:
    """The odds from here: final-score distribution and ``p_win`` over every order of the cards still
    to come, given the cards dealt so far (One-Handed Solitaire).

    Parameters
    ----------
    dealt : the cards dealt so far, in order (card numbers, or text in card notation, :mod:`sim.cards`)
    deck : default ``Deck(4, 13)``
    variant : One-Handed variant (default: the rules as written)
    method : ``"auto"`` (exact with at most :data:`AUTO_EXACT_CARDS` cards left, or at the empty prefix
        of a deck :func:`exact.exact_distribution` reaches; else simulated), ``"exact"`` (refused beyond
        :data:`MAX_EXACT_CARDS` cards left) or ``"simulate"``; ``final=once`` is counted by the search
        engine only: :data:`AUTO_SEARCH_CARDS` and :data:`MAX_SEARCH_CARDS` instead
    games, seed : the simulation's games and seed (default: a fresh seed, reported)
    engine : the exact engine from a position: ``"auto"`` (the phase engine from
        :data:`PHASE_FROM_CARDS` cards left, else the search), ``"phase"`` or ``"search"``; the one
        used is ``result.engine``
    workers : threads of the phase engine (``None``: every core; the same counts whatever the number)
    progress : the phase engine's progress bar on stderr, by row depth, once it has run a few seconds
        (``None`` or ``True``; ``False`` never)
    checkpoint_dir, checkpoint_seconds : a folder where the exact phase engine keeps what it has
        counted of the position under way (:func:`position_odds`); a run stopped by a signal within
        :func:`sim.interrupts.deferred` resumes there to the same counts

    Examples
    --------
    >>> r = odds("AS 2S", Deck(2, 3))
    >>> r.remaining, r.p_win, r.score_counts
    (4, Fraction(1, 6), (4, 0, 10, 0, 6, 0, 4))
    """
    deck = deck if deck is not None else Deck()
    variant = Variant.coerce(variant, "one-handed")
    if method not in METHODS:
        raise UsageError(f"unknown odds method {method!r}: choose one of {', '.join(METHODS)}")
    final_once = variant.rules.final_once
    choose_engine(0, engine, final_once=final_once)  # refuses an unknown (or, final=once, the phase) engine first
    workers = check_workers(workers)
    dealt = parse_cards(dealt, deck, complete=False, what="--dealt")
    k = deck.size - len(dealt)
    # final=once is counted by the search alone, whose cost grows k-fold per card
    auto_cards, max_cards = (AUTO_SEARCH_CARDS, MAX_SEARCH_CARDS) if final_once else (AUTO_EXACT_CARDS, MAX_EXACT_CARDS)
    t0 = work_clock.perf_counter()
    if method == "auto":
        method = "exact" if k <= auto_cards or (not dealt and _whole_deck_exact(deck, variant)) else "simulate"
    if method == "exact":
        if not dealt and _whole_deck_exact(deck, variant):
            whole = exact_distribution(deck, variant)
            score_counts, wins, used = list(whole.score_counts), whole.wins, "whole-deck"
        elif k > max_cards:
            reading = " under final=once" if final_once else ""
            raise UsageError(f"{k} cards still to come: exact odds{reading} are computed for at most {max_cards} "
                             f"cards left; use --method simulate (or deal more cards)")
        else:
            score_counts, wins, used = _exact(dealt, deck, variant, engine, workers, progress, checkpoint_dir,
                                              checkpoint_seconds)
            if k == 0:
                used = "outcome"
        require(check_parity(score_counts, deck.size), "a score with the wrong parity")
        return OddsResult(deck, variant, dealt, "exact", tuple(score_counts), wins,
                          seconds=work_clock.perf_counter() - t0, engine=used)
    games = check_games(games)
    seed = check_seed(seed)
    score_counts, wins = _simulate(dealt, deck, variant, games, seed)
    ci, _ = binomial_interval(wins, games)
    return OddsResult(deck, variant, dealt, "simulated", tuple(score_counts), wins, ci95=tuple(ci), seed=seed,
                      seconds=work_clock.perf_counter() - t0)


def _whole_deck_exact(deck: Deck, variant: Variant) -> bool:
    """Whether ``exact_distribution`` takes this deck with its automatic method (in seconds: up to 16
    cards; 4x5 takes minutes)."""
    if deck.size > 16:
        return False
    try:
        choose_method(deck, "auto", variant)
    except UsageError:
        return False
    return True


def odds_each(order, deck: Deck | None = None, variant: Variant | str | None = None, *, method: str = "auto",
              games: int = DEFAULT_GAMES, seed: int | None = None, engine: str = "auto", workers: int = 1,
              progress: bool | None = None) -> list[OddsResult]:
    """The odds after every card of one full deck order (0, 1, ..., all cards dealt): how the chance
    of winning rose and fell during one game. Simulated positions use seeds ``seed, seed + 1, ...``."""
    deck = deck if deck is not None else Deck()
    order = parse_cards(order, deck, complete=True, what="--each")
    seed = check_seed(seed)
    return [odds(order[:t], deck, variant, method=method, games=games, seed=seed + t, engine=engine, workers=workers,
                 progress=progress)
            for t in range(deck.size + 1)]
