"""The four-lane Hand Solitaire engine: the Monte Carlo kernel, whole runs (iterations until a win or
a cap) of four runs interleaved, built like the One-Handed kernel (:mod:`sim.kernels.one_handed`;
``benchmarks/bench_hand.py`` measures it). Its rotation phase is the one of
:mod:`sim.kernels.hand.rotation`, which the plain engine (:mod:`sim.kernels.hand.plain`) plays too.

- Cards are coded ``suit << rank_bits | rank``: one XOR and two masks say "same suit" / "same rank".
  Six extra codes (suit and rank both outside the deck, all different) serve as the four pads under
  every stack and the two sentinels after every deck, so "fewer than four cards" and "deck used up"
  need no test in the deal phase.
- The deal phase (every card dealt, with its checks) is one branch-free step per event, the top card
  in a register, as in One-Handed. A rank match deals the next card in the same step (the card it
  would bring back on top was checked against the same three cards when it was last on top). The
  discard position and the deal position are packed in one word (32 bits each), changed by one add
  chosen by selects; the stack end is their sum, because each iteration places its row so (see
  :func:`_begin_iteration`). Every step writes the four cards a rank match would discard (or,
  selected, the two a suit match would) at the discard position, which moves only when something
  is discarded, so no branch decides what is recorded.
- The discards go straight into the *next* deck order, written downwards (the last card appended is
  dealt first), and the leftovers behind them; each lane has two deck buffers used in turn, so
  nothing is copied or reversed and nothing is allocated per iteration or per run.
- Four runs advance in the same loop (the CPU overlaps their dependency chains), a function of its
  own (:func:`_deal`) so that the register allocation of the loop does not depend on the service
  code. A run whose deal phase is over (it dealt a sentinel) is served on its own: rotation phase
  (short, plain code, the plain engine's too), leftovers shuffled into the next order in one pass
  (copy and Fisher-Yates together), or the run tallied and the next one started.

Random streams: lane ``l`` plays runs ``l, l + 4, l + 8, ...`` of a chunk and draws every shuffle
(the start decks and the leftovers) from its own xoshiro256** stream (:func:`lane_states`), so its
runs are exactly those of a sequential player on that stream: each run's start deck is the previous
run's final order shuffled again (Fisher-Yates with 16-bit draws, :func:`sim.rng.shuffle_short`), the
first one the sorted deck shuffled; the leftovers, listed bottom to top, are shuffled the same way (as
:func:`sim.rules.hand.next_order` does with that shuffle). The tests replay every lane with the
reference rules on the same streams.

Where the time goes (52 cards, ``rank_resets=published``, about 35 iterations a run; one core of a
2-core machine shared with other work, so roughly): the plain per-run kernel this engine replaced
spent about 1,180 ns an iteration, 1,090 of them in the deal phase (a mispredicted branch on about
a third of its ~70 checks, suit and rank looked up in tables). This engine spends about 170 ns: about
125 in the four-lane deal phase (measured alone by replaying orders; about 66 steps an iteration,
some 30 instructions each, as many as the CPU can issue, not a chain of latencies: interleaving
two lanes instead of four is slower, and cutting instructions from the step is what helped), the
rest in serving the lane that finished (rotation phase, the leftover shuffle, the lane table). Two
changes took it from 205 ns: the rank match that also deals (about 5% fewer steps, and no load of
the card under the four) and two packed positions instead of three (fewer instructions to unpack
them). Tried and no faster: fixed-width card codes (masks as constants), three steps per lane
between exit tests, carrying the 4th card in a register (shorter chain, more instructions),
choosing the discard slots by index instead of by value, unrolling the shuffle by output.

Without the reshuffle every run is deterministic, and the runs that never win (about half on 52
cards) would play all ``cap`` iterations: once an order repeats, whole cycles are skipped up to the
cap (:func:`_skip_cycles`), so such a run costs a few cycles' worth of iterations; every count, and
each run's final order, is the same as playing on.
"""
from __future__ import annotations

import numpy as np

from ..._jit import jit
from ...rng import bounded16, next64
from ..one_handed import _select
from .rotation import settle_and_rotate
from .tables import N_SPECIAL

#: Runs interleaved by the Monte Carlo kernel (each lane with its own random stream).
LANES = 4

_U = np.uint64
_LOW = np.uint64(0xFFFFFFFF)
_SHIFT_D = np.uint64(32)
#: Changes of ``packed = discard position | deal position << 32`` (uint64 wraps).
_DEAL = np.uint64(1 << 32)
_REMOVE_TWO = np.uint64(2**64 - 2)
_REMOVE_FOUR = np.uint64((1 << 32) - 4)
_MAX_BUFFER = 1 << 31


# One uint64 buffer holds everything the play touches, so that the hot path passes no other array
# (each array passed on costs reference-count calls):
#   [0, LANES * _L_COLUMNS): the lane table, lane l at l * _L_COLUMNS (columns _L_* below);
#   then the lanes' xoshiro256** states, 4 words each, and the six special codes;
#   then the deck buffers, two per lane: an order with nd discards and k leftovers lies at
#   [mid - nd, mid + k) of a deck buffer, sentinels 4, 5 after it; the discards of the iteration
#   being played are written from the other buffer's mid - 1 downwards;
#   then the rows, one region per lane: pads 0-2, then the stack (pad 3 at its bottom once a card is
#   dealt), with room for the rotations. A row does not stay in one place: each iteration puts it
#   where the discard position equals the stack end minus the deal position (see _begin_iteration),
#   so the step keeps two positions, not three;
#   then, per lane, the order saved by the cycle detection (reshuffle=off).

_L_RUN = 0  # index of the run being played (>= games: idle, replaying its last deck untallied)
_L_IT = 1  # iteration of that run (1 = its start deck)
_L_BUF = 2  # deck buffer (0/1) the lane deals from
_L_START = 3  # position of the first card of the order being played
_L_END = 4  # position just after its last card (the first sentinel)
_L_ROW = 5  # position of the row of the iteration being played (pads 0-2 at row .. row + 2)
_L_MID0 = 6  # mid of deck buffer 0
_L_MID1 = 7  # mid of deck buffer 1
_L_SAVED = 8  # position of the order saved by the cycle detection
_L_SAVED_IT = 9  # the iteration that played it
_L_WINDOW = 10  # iterations after it that the detection compares with it before saving a newer one
_L_COLUMNS = 11
_RNG = LANES * _L_COLUMNS  # the lanes' stream states
_SPECIAL = _RNG + 4 * LANES  # the N_SPECIAL special codes
_DEAL_STATE = _SPECIAL + N_SPECIAL  # tops, packed positions and end marks of the four lanes
_HEADER = _DEAL_STATE + 3 * LANES


@jit
def _layout(n):
    """``(m, y, z, size)`` of the buffer for ``n`` cards: lane ``l``'s deck buffers have their mids at
    ``m + l z`` and ``m + l z + y``, and the buffer has ``size`` words."""
    y = 2 * n + 8  # a deck buffer: [mid - n - 4, mid + n + 4)
    z = 2 * y
    # A row lies at (other mid - 1) + start - 3 with start in [mid - n, mid], so lane l's rows stay in
    # [2m + 2lz + y - n - 4, 2m + 2lz + y + 4n + 20): past every deck buffer when m >= 3z + 2n + 8, and
    # apart from the next lane's because 2z >= 5n + 24.
    m = max(3 * z + 2 * n + 8, _HEADER + n + 4)
    rows_end = 2 * m + 2 * (LANES - 1) * z + y + 4 * n + 24
    return m, y, z, rows_end + LANES * n


@jit(inline="always")
def _step(buf, top, packed, mask_two, mask_four):
    """One branch-free event of the deal phase of one lane; returns the new ``(top, packed)``.

    ``packed = q | d << 32``: the discard position ``q`` and the deal position ``d``; the stack end
    is ``q + d`` (the row is placed so: :func:`_begin_iteration`). Suit match: the two cards under
    the top are discarded; rank match: the top four, and the next card is dealt at once (the card
    that comes back on top was checked against the same three cards when it was last on top, so
    checking it again would find nothing); otherwise the next card is dealt (a sentinel after the
    last card: never a match).
    """
    q = packed & _LOW
    d = packed >> _SHIFT_D
    length = q + d
    b1 = buf[length - _U(1)]
    b2 = buf[length - _U(2)]
    b3 = buf[length - _U(3)]  # the 4th card from the top
    card = buf[d]  # the new top if a card is dealt (after a rank match too)
    x = top ^ b3
    two = (x & mask_two) == _U(0)
    four = (x & mask_four) == _U(0)
    buf[length] = top  # push; past the new end unless a card is dealt
    # what would be discarded, appended bottom to top, written downwards from q
    buf[q] = _select(four, b3, b2)
    buf[q - _U(1)] = _select(four, b2, b1)
    buf[q - _U(2)] = b1
    buf[q - _U(3)] = top
    top = _select(two, top, card)
    return top, packed + _select(two, _REMOVE_TWO, _select(four, _REMOVE_FOUR, _DEAL))


@jit(inline="always")
def _pack(q, d):
    return _U(q) | (_U(d) << _SHIFT_D)


@jit(inline="always")
def _end_mark(end):
    """``packed > mark`` exactly when the deal position has passed ``end`` (a sentinel was dealt)."""
    return (_U(end) << _SHIFT_D) | _LOW


@jit(inline="always")
def _get(buf, lane, column):
    return np.int64(buf[lane * _L_COLUMNS + column])


@jit(inline="always")
def _set(buf, lane, column, value):
    buf[lane * _L_COLUMNS + column] = _U(value)


@jit(inline="always")
def _draw_shuffle(buf, src, dst, k, s0, s1, s2, s3, into):
    """:func:`sim.rng.shuffle_short` on positions of ``buf`` (a slice would cost reference-count
    calls), the same draws and swaps; returns the new state.

    ``into=False``: shuffle ``buf[src:src + k]`` in place. ``into=True``: write into ``buf[dst:dst +
    k]`` what copying ``buf[src:src + k]`` there and shuffling it would give, in one pass (step ``i``
    of Fisher-Yates fixes position ``i``: it is written to ``dst + i`` and the card it displaces
    moves to the drawn position of the source, which step ``i`` no longer reads); the source is
    left scrambled.
    """
    x = _U(0)
    used = 4
    for i in range(k - 1, 0, -1):
        if used == 4:
            x, s0, s1, s2, s3 = next64(s0, s1, s2, s3)
            used = 0
        j, s0, s1, s2, s3 = bounded16((x >> _U(16 * used)) & _U(0xFFFF), _U(i + 1), s0, s1, s2, s3)
        t = buf[src + j]
        buf[src + j] = buf[src + i]
        if into:
            buf[dst + i] = t
        else:
            buf[src + i] = t
        used += 1
    if into and k > 0:
        buf[dst] = buf[src]
    return s0, s1, s2, s3


@jit(inline="always")
def _shuffle_lane_into(buf, lane, src, dst, k):
    """``buf[dst:dst + k]`` = ``buf[src:src + k]`` shuffled with the lane's stream (the source scrambled)."""
    at = _RNG + 4 * lane
    s0, s1, s2, s3 = _draw_shuffle(buf, src, dst, k, buf[at], buf[at + 1], buf[at + 2], buf[at + 3], True)
    buf[at], buf[at + 1], buf[at + 2], buf[at + 3] = s0, s1, s2, s3



@jit(inline="always")
def _decode(code, rank_bits, ranks):
    return np.int64(code >> _U(rank_bits)) * ranks + np.int64(code & ((_U(1) << _U(rank_bits)) - _U(1)))


@jit(inline="always")
def _begin_iteration(buf, lane, start, end):
    """Deal the order ``buf[start:end]`` (sentinels written after it) on an empty row, discards into
    the other deck buffer; returns the lane's ``(top, packed)``.

    The discard position starts at ``q = other mid - 1`` and the deal position at ``start``; the row
    is put at ``q + start - 3``, so that the stack end (pads 0-2 below it, pad 3 the top of the empty
    stack) is ``q + start``. From then on every step keeps stack end = discard position + deal
    position: a deal adds one to both stack end and deal position, a discard takes the same number
    of cards off the stack end and the discard position.
    """
    buf[end] = buf[_SPECIAL + 4]
    buf[end + 1] = buf[_SPECIAL + 5]
    other = _get(buf, lane, _L_MID1) if _get(buf, lane, _L_BUF) == 0 else _get(buf, lane, _L_MID0)
    q = other - 1
    row = q + start - 3
    _set(buf, lane, _L_START, start)
    _set(buf, lane, _L_END, end)
    _set(buf, lane, _L_ROW, row)
    buf[row] = buf[_SPECIAL]
    buf[row + 1] = buf[_SPECIAL + 1]
    buf[row + 2] = buf[_SPECIAL + 2]
    return buf[_SPECIAL + 3], _pack(q, start)


@jit(inline="always")
def _same_order(buf, a, b, n):
    for j in range(n):
        if buf[a + j] != buf[b + j]:
            return False
    return True


@jit(inline="always")
def _save_order(buf, lane, start, n, it):
    saved = _get(buf, lane, _L_SAVED)
    for j in range(n):
        buf[saved + j] = buf[start + j]
    _set(buf, lane, _L_SAVED_IT, it)


@jit(inline="always")
def _skip_cycles(buf, lane, start, n, it, cap):
    """Without the reshuffle a run is deterministic: once the order of iteration ``it`` repeats
    the order of an earlier iteration ``it - c``, iterations ``it + c, it + 2c, ...`` play it again.
    Returns the iteration to go on from: ``it`` advanced by whole cycles while it stays at most
    ``cap``, so that the run ends on the very order (and cards left) that playing on would give.

    Brent's cycle detection: the order saved at iteration ``s`` is compared with the orders of
    iterations ``s + 1 .. s + w``; then the current one is saved and ``w`` doubled, so a cycle of
    length ``c`` entered at iteration ``e`` is found by iteration ``2 max(e, c) + c`` or so.
    """
    saved_it = _get(buf, lane, _L_SAVED_IT)
    if _same_order(buf, start, _get(buf, lane, _L_SAVED), n):
        c = it - saved_it
        return it + c * ((cap - it) // c)
    if it - saved_it == _get(buf, lane, _L_WINDOW):
        _save_order(buf, lane, start, n, it)
        _set(buf, lane, _L_WINDOW, 2 * _get(buf, lane, _L_WINDOW))
    return it


@jit(inline="always")
def _end_iteration(buf, lane, packed, n, cap, rank_mask, suit_mask, rotations_to_stop, rank_resets, reshuffle):
    """The lane has dealt its whole order: play the rotation phase; unless the run is over, set up the
    next iteration (leftovers behind the discards). Returns ``(top, packed, cards_left, over)``."""
    end = _get(buf, lane, _L_END)
    q = np.int64(packed & _LOW)
    d = np.int64(packed >> _SHIFT_D)
    sentinels = d - end
    # the stack (pad 3 under it) is in memory: the dealt sentinels pushed the top card
    base = _get(buf, lane, _L_ROW) + 4
    top = q + d - sentinels + 1
    base, top, q = settle_and_rotate(buf, base, top, buf, q, -1, (suit_mask, rank_mask), rotations_to_stop,
                                     rank_resets)  # the checks find nothing: the deal phase made them
    k = top - base
    it = _get(buf, lane, _L_IT)
    if k == 0 or it == cap:
        return _U(0), packed, k, True
    b = 1 - _get(buf, lane, _L_BUF)
    mid = _get(buf, lane, _L_MID0 + b)
    if reshuffle:
        _shuffle_lane_into(buf, lane, base, mid, k)
    else:
        for j in range(k):
            buf[mid + j] = buf[top - 1 - j]
    _set(buf, lane, _L_BUF, b)
    it += 1
    if not reshuffle:
        it = _skip_cycles(buf, lane, q + 1, n, it, cap)
    _set(buf, lane, _L_IT, it)
    t, p = _begin_iteration(buf, lane, q + 1, mid + k)
    return t, p, k, False


@jit
def _next_run(buf, lane, k, games, n, given, codes, score_counts, iterations_to_win, record, starts, finals,
              iterations, cards_left, rank_bits, ranks):
    """Tally the lane's finished run (``k`` cards left; ``k < 0``: none, the lane's first run is next)
    and start its next one from the final order (``buf[start:start + n]``) shuffled, or from
    ``given[run]`` when ``given`` has rows; an idle lane replays its last order. Returns the lane's
    ``(top, packed)``. Called once per run, so it may take many arrays."""
    g = _get(buf, lane, _L_RUN)
    start = _get(buf, lane, _L_START)
    if k >= 0 and g < games:
        it = _get(buf, lane, _L_IT)
        score_counts[k] += 1
        if k == 0:
            iterations_to_win[it] += 1
        if record:
            iterations[g] = it
            cards_left[g] = k
            for j in range(n):
                finals[g, j] = _decode(buf[start + j], rank_bits, ranks)
        g += LANES
        _set(buf, lane, _L_RUN, g)
    if g >= games:
        return _begin_iteration(buf, lane, start, start + n)
    b = 1 - _get(buf, lane, _L_BUF)
    mid = _get(buf, lane, _L_MID0 + b)
    if given.shape[0] > 0:
        for j in range(n):
            buf[mid + j] = codes[given[g, j]]
    else:
        _shuffle_lane_into(buf, lane, start, mid, n)  # the final order, scrambled: it is played out
    if record:
        for j in range(n):
            starts[g, j] = _decode(buf[mid + j], rank_bits, ranks)
    _set(buf, lane, _L_BUF, b)
    _set(buf, lane, _L_IT, 1)
    _save_order(buf, lane, mid, n, 1)
    _set(buf, lane, _L_WINDOW, 1)
    return _begin_iteration(buf, lane, mid, mid + n)


@jit
def _lane_memory(n, special, codes, rng):
    """The buffer of all lanes (see above): each lane holds the sorted deck, as if it had just played
    it (its first run starts from that order shuffled), and its stream state."""
    m, y, z, size = _layout(n)
    buf = np.zeros(size, dtype=np.uint64)
    for k in range(N_SPECIAL):
        buf[_SPECIAL + k] = special[k]
    for lane in range(LANES):
        for i in range(4):
            buf[_RNG + 4 * lane + i] = rng[lane, i]
        mid0 = m + lane * z
        _set(buf, lane, _L_MID0, mid0)
        _set(buf, lane, _L_MID1, mid0 + y)
        _set(buf, lane, _L_SAVED, size - (lane + 1) * n)
        _set(buf, lane, _L_BUF, 1)
        mid = mid0 + y
        for j in range(n):
            buf[mid + j] = codes[j]
        _set(buf, lane, _L_START, mid)
        _set(buf, lane, _L_END, mid + n)
        _set(buf, lane, _L_RUN, lane)
    return buf


@jit(inline="always")
def _set_lane(buf, lane, top, packed):
    buf[_DEAL_STATE + lane] = top
    buf[_DEAL_STATE + 4 + lane] = packed
    buf[_DEAL_STATE + 8 + lane] = _end_mark(_get(buf, lane, _L_END))


@jit
def _deal(buf, mask_two, mask_four):
    """Deal on all four lanes until one of them has dealt its whole order; returns the set of the
    lanes that have (bit ``l`` for lane ``l``)."""
    t0, t1, t2, t3 = buf[_DEAL_STATE], buf[_DEAL_STATE + 1], buf[_DEAL_STATE + 2], buf[_DEAL_STATE + 3]
    p0, p1, p2, p3 = buf[_DEAL_STATE + 4], buf[_DEAL_STATE + 5], buf[_DEAL_STATE + 6], buf[_DEAL_STATE + 7]
    m0, m1, m2, m3 = buf[_DEAL_STATE + 8], buf[_DEAL_STATE + 9], buf[_DEAL_STATE + 10], buf[_DEAL_STATE + 11]
    while True:
        for _ in range(2):
            t0, p0 = _step(buf, t0, p0, mask_two, mask_four)
            t1, p1 = _step(buf, t1, p1, mask_two, mask_four)
            t2, p2 = _step(buf, t2, p2, mask_two, mask_four)
            t3, p3 = _step(buf, t3, p3, mask_two, mask_four)
        if (p0 > m0) | (p1 > m1) | (p2 > m2) | (p3 > m3):
            break
    buf[_DEAL_STATE], buf[_DEAL_STATE + 1], buf[_DEAL_STATE + 2], buf[_DEAL_STATE + 3] = t0, t1, t2, t3
    buf[_DEAL_STATE + 4], buf[_DEAL_STATE + 5], buf[_DEAL_STATE + 6], buf[_DEAL_STATE + 7] = p0, p1, p2, p3
    return np.int64(p0 > m0) | (np.int64(p1 > m1) << 1) | (np.int64(p2 > m2) << 2) | (np.int64(p3 > m3) << 3)


@jit
def _play_lanes(games, cap, rng, given, codes, special, rank_mask, suit_mask, rotations_to_stop, rank_resets,
                reshuffle, record, rank_bits, ranks):
    """Play ``games`` runs on four lanes (run ``g`` on lane ``g % 4``, from its stream ``rng[g % 4]``).

    Start decks: ``given[g]`` (card numbers) when ``given`` has rows, else shuffled (see the module
    docstring). Returns ``(score_counts, iterations_to_win, starts, finals, iterations, cards_left)``;
    the last four (per run: start and final orders as card numbers, iterations played, cards left at
    the end) are filled only when ``record`` is true.
    """
    n = codes.shape[0]
    buf = _lane_memory(n, special, codes, rng)
    score_counts = np.zeros(n + 1, dtype=np.int64)
    iterations_to_win = np.zeros(cap + 1, dtype=np.int64)
    rows = games if record else 0
    starts = np.empty((rows, n), dtype=np.int16)
    finals = np.empty((rows, n), dtype=np.int16)
    iterations = np.empty(rows, dtype=np.int64)
    cards_left = np.empty(rows, dtype=np.int64)
    for lane in range(LANES):
        t, p = _next_run(buf, lane, -1, games, n, given, codes, score_counts, iterations_to_win,
                         record, starts, finals, iterations, cards_left, rank_bits, ranks)
        _set_lane(buf, lane, t, p)
    busy = min(games, LANES)  # lanes not idle
    while busy > 0:
        finished = _deal(buf, suit_mask, rank_mask)
        while finished != 0:  # one lane, nearly always: served without a branch on which
            low = finished & -finished
            finished ^= low
            lane = (low >> 1) - (low >> 3)  # the index of the bit
            p = buf[_DEAL_STATE + 4 + lane]
            if _get(buf, lane, _L_RUN) >= games:  # idle: replay the same order, untallied
                start = _get(buf, lane, _L_START)
                t, p = _begin_iteration(buf, lane, start, start + n)
            else:
                t, p, k, over = _end_iteration(buf, lane, p, n, cap, rank_mask, suit_mask, rotations_to_stop,
                                               rank_resets, reshuffle)
                if over:
                    t, p = _next_run(buf, lane, k, games, n, given, codes, score_counts, iterations_to_win, record,
                                     starts, finals, iterations, cards_left, rank_bits, ranks)
                    busy -= _get(buf, lane, _L_RUN) >= games
            _set_lane(buf, lane, t, p)
    return score_counts, iterations_to_win, starts, finals, iterations, cards_left



def lane_states(state) -> np.ndarray:
    """The four lanes' xoshiro256** states (4 x 4 uint64) of a chunk whose state is ``state``.

    Derived with :class:`numpy.random.SeedSequence` from the chunk state's four words, so they depend
    on the chunk's seed and index only.
    """
    words = [int(w) for w in np.asarray(state, dtype=np.uint64)]
    states = np.random.SeedSequence(words).generate_state(4 * LANES, np.uint64).reshape(LANES, 4)
    for row in states:
        if not row.any():  # the all-zero state is the one fixed point of xoshiro
            row[0] = 1
    return states


@jit
def _shuffle_rows(state, rows, into):
    """Each row shuffled in turn as the kernel shuffles, in place (``into=False``) or written
    elsewhere in one pass (``into=True``, as the kernel builds the next order): for the tests' twin."""
    games, n = rows.shape
    size = games * n
    buf = np.zeros(2 * size, dtype=rows.dtype)  # the rows, then where they go when shuffled into
    buf[:size] = rows.reshape(size)
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for g in range(games):
        s0, s1, s2, s3 = _draw_shuffle(buf, g * n, size + g * n, n, s0, s1, s2, s3, into)
    out = buf[size:] if into else buf[:size]
    return out.copy().reshape(games, n)
