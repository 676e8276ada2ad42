"""The pieces every phase-family engine shares: card-set masks, windows and their canonical forms.

The phase recursion (:mod:`exact.one_handed.phase`) is computed by several engines: the whole-deck
phase kernel (:mod:`exact.one_handed.phase_kernel`), the zeta-domain kernel
(:mod:`exact.one_handed.zeta_kernel`) and the position-odds engine
(:mod:`exact.one_handed.odds_phase`). They all hold *sets of cards* as bit masks and *windows* (the
top three cards of a row) up to a relabelling of suits and ranks; this module is where those
conventions live, so that a new engine uses the same ones.

Conventions
-----------
* A card is ``suit * ranks + rank``; ``-1`` stands for a *sentinel*, a card below the bottom of the
  row that matches nothing.
* A window is a tuple ``(w1, w2, w3)`` of cards or sentinels, ``w3`` on top of the row.
* A set of cards is an ``int64`` bit mask. Which card a bit stands for depends on the engine: the
  whole deck (bit ``c`` is card ``c``; zeta) or a window's *universe*, the cards it does not hold in
  increasing order (bit ``b`` is the ``b``-th of them; phase, position odds).
* A relabelling is a permutation of suits and one of ranks; it maps games onto games, so a window's
  counts over a set are its image's over the image set, read back. It is written as a list
  ``sigma`` over the cards, ``sigma[c]`` the image of card ``c``.

Jitted (numba, callable from kernels and from Python):

* :func:`popcount` -- the number of cards in a set;
* :func:`next_same_size` -- the next larger set of the same size (Gosper's hack), to walk the sets
  of one size in increasing order;
* :func:`drop` -- a set with one bit position taken out (the bits above it move down one): the
  index of a set that never holds a given card, in the tables kept per card;
* :func:`map_mask` -- a set carried through a bit map built by :func:`chunk_table` (a relabelling,
  a change of universe, or both), eight bits at a time.

Plain Python (plans are built once per deck or position):

* :func:`chunk_table` -- the lookup table :func:`map_mask` reads;
* :func:`canonical_window` -- a window's representative under relabelling, and the relabelling;
* :func:`window_graph` -- every representative window reachable from the top (three sentinels),
  with the child of each dealt card.
"""
from __future__ import annotations

import numpy as np

from sim._jit import jit

#: :func:`map_mask` reads a set this many bits at a time (one table row per chunk)
CHUNK = 8

#: the window of three sentinels: the top of every game (nothing below the first card dealt)
TOP_WINDOW = (-1, -1, -1)


@jit
def popcount(x):
    """The number of set bits of ``x`` (cards in a set).

    >>> popcount(0b101101)
    4
    """
    k = 0
    while x:
        x &= x - 1
        k += 1
    return k


@jit
def next_same_size(m):
    """The next larger mask with as many bits as ``m`` (Gosper's hack): starting from
    ``(1 << k) - 1``, the sets of ``k`` cards in increasing order (``m`` must be nonzero).

    >>> [bin(m) for m in (next_same_size(0b011), next_same_size(0b101))]
    ['0b101', '0b110']
    """
    c = m & -m
    r = m + c
    return (((r ^ m) >> 2) // c) | r


@jit
def drop(mask, pos):
    """``mask`` (bit ``pos`` clear) with bit position ``pos`` taken out: the bits above ``pos`` move
    down one. A table kept for a card ``a`` is over the sets without ``a``; this is such a set's row.

    >>> bin(drop(0b10110, 0))
    '0b1011'
    >>> bin(drop(0b10101, 1))
    '0b1011'
    """
    low = (np.int64(1) << pos) - 1
    return (mask & low) | ((mask >> 1) & ~low)


@jit
def map_mask(chunks, p, mask):
    """``mask`` carried through map ``p`` of ``chunks`` (an array ``(maps, chunks, 256)`` whose
    ``[p, ch, byte]`` is the image of the bits ``byte`` of chunk ``ch``, as :func:`chunk_table` builds
    them): the OR of its chunks' images. Bits a map drops have no image.

    >>> table = chunk_table([0, 1, 2], lambda c: 2 - c)  # bit b stands for card b, sent to bit 2 - b
    >>> bin(map_mask(table[None], 0, 0b011))
    '0b110'
    """
    out = 0
    ch = 0
    while mask:
        out |= chunks[p, ch, mask & 0xFF]
        mask >>= 8
        ch += 1
    return out


def chunk_table(cards, bit_of):
    """The lookup table of one map for :func:`map_mask`, an ``int64`` array ``(chunks, 256)``: bit
    ``b`` of a mask stands for ``cards[b]``, which becomes bit ``bit_of(card)`` of the image (``None``:
    dropped). Engines stack one table per map into ``(maps, chunks, 256)``."""
    nchunks = (len(cards) + CHUNK - 1) // CHUNK
    table = np.zeros((max(nchunks, 1), 1 << CHUNK), dtype=np.int64)
    for b, card in enumerate(cards):
        target = bit_of(card)
        if target is not None:
            ch, bit = divmod(b, CHUNK)
            hit = (np.arange(1 << CHUNK) >> bit) & 1 == 1
            table[ch, hit] |= np.int64(1) << target
    return table


def canonical_window(window, suits: int, ranks: int):
    """``(representative, sigma)``: the window with its suits and ranks renamed in order of first
    appearance (``w1``'s first; the unused ones after, in order), and that relabelling as a card
    permutation list (``sigma[c]`` the image of card ``c``; sentinels stay ``-1``). Two windows
    related by a relabelling have the same representative.

    >>> canonical_window((-1, 5, 2), 2, 4)   # cards (suit 1, rank 1) and (suit 0, rank 2)
    ((-1, 0, 5), [6, 4, 5, 7, 2, 0, 1, 3])
    """
    smap: dict = {}
    rmap: dict = {}
    for w in window:
        if w >= 0:
            s, r = divmod(w, ranks)
            smap.setdefault(s, len(smap))
            rmap.setdefault(r, len(rmap))
    for s in range(suits):
        smap.setdefault(s, len(smap))
    for r in range(ranks):
        rmap.setdefault(r, len(rmap))
    perm = [smap[c // ranks] * ranks + rmap[c % ranks] for c in range(suits * ranks)]
    rep = tuple(perm[w] if w >= 0 else -1 for w in window)
    return rep, perm


def window_graph(suits: int, ranks: int):
    """Every representative window reachable from the top window (three sentinels), with each dealt
    card's child: ``(reps, edges)``, ``reps[0]`` the top, and ``edges`` a list of ``(i, a, j, sigma)``:
    card ``a`` dealt on window ``reps[i]`` (and staying) makes the window ``(w2, w3, a)``, which is
    ``reps[j]`` after the relabelling ``sigma`` (``j >= 1``: a child holds a real card). Shared by the
    phase and zeta methods and the zeta memory estimate.

    >>> reps, edges = window_graph(2, 2)
    >>> reps[0], len(reps), len(edges)
    ((-1, -1, -1), 11, 19)
    """
    reps = [TOP_WINDOW]
    index = {TOP_WINDOW: 0}
    edges = []
    queue = [TOP_WINDOW]
    while queue:
        w = queue.pop()
        i = index[w]
        for a in range(suits * ranks):
            if a in w:
                continue
            child, sigma = canonical_window((w[1], w[2], a), suits, ranks)
            if child not in index:
                index[child] = len(reps)
                reps.append(child)
                queue.append(child)
            edges.append((i, a, index[child], sigma))
    return reps, edges
