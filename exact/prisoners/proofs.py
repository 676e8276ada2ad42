"""Prisoner's Patience best play: static proofs of loss (necessary conditions for a win).

Each function takes an abstract row, as the solver sees it (:mod:`exact.prisoners.solver`): a tuple
of piles, a pile being its top rank (``moves=physical``) or its ``(bottom, top)`` ranks
(``moves=published``), and says whether its condition proves the row lost. Every condition is
*sound*: it never fires on a row that some sequence of legal moves reduces to a single pile. The
solver applies them to the dealt row (a lost verdict then names the condition) and to every row it
expands (a row that fails one is cut, its subtree never searched). ``tests/test_prisoners_solver.py``
checks each against exhaustive search on every row reachable from every order of small decks.

Words used in the proofs. Moving pile ``i`` onto pile ``j`` (``j = i - 1`` or ``i - 3``, top ranks
adjacent) *covers* the top card of ``j``; with ``moves=physical`` the moved pile keeps its order, so
the new top of ``j`` is the old top of ``i`` (the same card, now at ``j``'s position); with
``moves=published`` it is reversed, so the new top of ``j`` is the old *bottom* of ``i``. A card's
*partners* are the cards whose ranks are adjacent to its rank (under the deck's wrap rule); the
ranks a pile *shows* are its top (physical), or its top and bottom (published: the bottom surfaces
as a top when the pile is moved).

``isolated_pile``
    Some pile shows no rank adjacent to a rank shown by another pile (the row has two piles or more).
    *Proof*: a move needs the top ranks of its two piles adjacent, and every top that pile or any
    other pile can ever have is a rank shown now (physical: a new top is the moved pile's top;
    published: the moved pile's bottom; bottoms never change). So that pile can never take part in a
    move, and never joins another pile. (A special case of ``disconnected``, named because it is
    the common one and cheap to state.)

``disconnected``
    Link two piles when a rank shown by one is adjacent to a rank shown by the other; the link graph
    is disconnected. *Proof*: when ``i`` goes onto ``j`` their tops are adjacent, so they are linked;
    the merged pile shows only ranks the two showed (its top and its bottom come from them), so its
    links are a subset of theirs. A merge therefore only joins piles of one component, the
    components of the row never join, and a row of two components or more never becomes one pile.

``uncoverable_cards`` (``moves=physical`` only)
    Two (or more) top cards each have no partner to their right in the row, and either at most one
    partner anywhere or a position below 3 (one of the first three piles). *Proof*: with
    ``moves=physical`` every top card stays a top card, moving with its pile, until it is covered,
    and it is covered only by a partner moved onto it, i.e. a partner to its right at that time.
    Cards only ever move left (a move takes a pile to a smaller position), and the order of two
    cards changes only when one of them is *moved over* the other: a distance-3 move takes pile ``i``
    over piles ``i - 1`` and ``i - 2``. So a card ``c`` with no partner to its right gets one only by
    moving over a partner itself, with a distance-3 move onto another partner (two distinct
    partners: the one it covers and the one it passes). With at most one partner in the row (and
    partners never appear: cards are only covered) that never happens. Nor does it from position 0,
    1 or 2: a distance-3 move needs position 3 or more, and a card's position never grows (a move
    onto a pile left of ``c`` deletes that pile and puts the mover there, so the count of piles left
    of ``c`` never grows, whether the mover came from the left or the right of ``c``). Either way
    ``c`` is never covered and stays a top until the end. A single pile has a single top, so two
    such cards make a win impossible.

``frozen_piles`` (``moves=published`` only)
    Some pile's top rank has no partner among the ranks the *other* piles show, or two piles other
    than the first each have a bottom rank with no partner among the ranks the other piles show; the
    first pile (position 0) counts as showing its top only. *Proof*: with ``moves=published`` every
    top a pile can ever have is the bottom of a pile moved onto it, so the ranks shown now contain
    every top to come, and the first pile never moves, so its bottom never becomes a top. A pile
    whose top has no partner among the other piles' shown ranks can neither move (its top must be
    adjacent to the target's) nor receive a pile (the mover's top must be adjacent to its top), now
    or later, so it never joins another pile. A pile ``k`` other than the first must move once (only
    the first pile is never moved, and it is the last one left); its bottom then becomes the top of
    the target, and if that bottom has no partner among the ranks of the piles other than ``k``, the
    target is frozen as above, which is fatal unless no other pile is left. Two such piles: when the
    first of them moves, the other is still there (or is the target, and must still move), so the
    row is lost. (``isolated_pile`` does not see a pile whose bottom has partners but whose top has
    none; ``disconnected`` links piles through the first pile's bottom, which can never be a top.)

``unpaired_tops`` (``moves=published`` only)
    Count the *top appearances* still to come: the top of every pile, and the bottom of every pile
    other than the first. These cannot be split, all but one of them, into pairs of adjacent ranks.
    *Proof*: in a win every pile other than the first moves exactly once (a pile leaves the row only
    by moving, and the first pile never moves), so ``m - 1`` moves remain. A move ``i -> j`` buries
    the two tops ``t_i`` and ``t_j``, which are adjacent, and makes ``b_i``, the bottom of ``i``,
    the new top of ``j``. So every top that will ever be shown is either a top now or the bottom of a
    pile that has yet to move: exactly the ``2m - 1`` appearances counted above (the first pile's
    bottom never shows). Each of the ``m - 1`` moves buries two of them, a pair of adjacent ranks,
    and no appearance is buried twice; the one left over is the final pile's top, which is the
    bottom of the last pile moved (onto the first pile), so it is the bottom rank of a pile other
    than the first. Such a pairing
    exists only if the rank counts allow it: with ranks on a path (``wrap=off``) or a cycle
    (``wrap=on``), ``x_r`` pairs between ranks ``r`` and ``r + 1`` must satisfy
    ``x_{r-1} + x_r = a_r`` (``a_r``: the appearances of rank ``r``, one less for the final top's
    rank) with every ``x_r >= 0``; the condition fires when no choice of the final top's rank (among
    the bottoms of the piles other than the first) admits a solution. It sees rank counts, not positions, so it catches rows whose ranks cannot pair up
    though every pile has partners (``frozen_piles`` looks at one pile at a time).

``immovable_piles`` (``moves=published`` only)
    Some pile other than the first can never move, by this least fixpoint, which over-approximates
    everything a play from the row can do: ``T(k)``, the ranks pile ``k`` may ever show as its top,
    starts as its top now; ``M``, the piles that may ever move, starts empty. Rule: for two piles
    ``k < i`` such that (a) the piles strictly between them not in ``M`` are none, or are at most
    two while at least two piles lie between them, and (b) a rank of ``T(i)`` is adjacent to a rank
    of ``T(k)``, add ``i`` to ``M`` and the bottom rank of ``i`` to ``T(k)``; apply it until nothing
    changes. *Proof*: piles keep their left-to-right order (a move deletes the mover; the target keeps
    its place and its bottom), and a pile leaves the row only by moving. In any play from the row,
    at every moment every pile's top rank is in its ``T`` and every pile that has moved is in ``M``:
    true at the start, and kept by a move ``i -> k``, because the piles between them still in the
    row are 0 (distance 1) or 2 (distance 3), the others have moved (so are in ``M``), so the piles
    between not in ``M`` are among those still there, which is (a); the two tops are adjacent and,
    by the invariant, in ``T(i)`` and ``T(k)``, which is (b); so the rule has put ``i`` in ``M``
    and the new top of ``k`` (the bottom of ``i``, reversed onto it) in ``T(k)``, and the other
    piles' tops do not change. In a win every pile other than the first moves, so all of them are
    in ``M``. (Positions matter here: a pile whose partners are all kept out of reach by piles that
    can never move is found though every rank it shows has partners; ``frozen_piles`` only looks at
    ranks.) The same fixpoint with the physical move (the new top of ``k`` is the mover's top, a
    card tracked by identity, and a win also needs all cards but one covered) closed no lost row of
    2x4 or 2x5 decks that the conditions above leave open, so it is not applied to
    ``moves=physical``. It is applied to the dealt row only: inside the search on 52-card decks it
    cuts many rows (21.7% of those expanded) but the nodes barely drop, so the rows it
    cuts are ones the search closes within a few nodes anyway (40 decks, seed 1, 1,500,000 nodes:
    on the 39 decks with the same verdict 1.6% fewer nodes, 3.0% on the 10 lost ones, at 3.1 times
    the CPU seconds; one win no longer found within the budget).

``stranded_cards`` (``moves=physical`` only)
    Call a card *stranded* when no partner of it lies to its right in the row. Give each stranded
    card its *landing partners*: its partners (all to its left), but none at all when it has fewer
    than two partners or stands in one of the first three piles. The condition fires when no
    matching gives all the stranded cards but one distinct landing partners. *Proof*: take a win and
    a stranded card ``c`` that is not the final card; some partner ``p`` covers it, so ``p`` is then to
    the right of ``c``. Now ``p`` is to its left (``c`` is stranded, and partners never appear: cards
    are only covered). Two cards change their order only when one of them is moved over the other
    (a move takes pile ``i`` to ``j``, and only the cards between them, two for distance 3, none for
    distance 1, change sides), and the card moved over ends up on the right; so at the last change of
    order between ``c`` and ``p``, ``c`` was moved over ``p``, by a distance-3 move onto a partner
    ``q(c)`` of ``c`` (the target of a move is a partner), ``q(c) != p`` (``p`` is still there
    afterwards). So ``c`` has two partners, and it stood at position 3 or more at that move, hence
    stands there now (a card's position never grows, see ``uncoverable_cards``). ``q(c)`` is a partner
    of ``c`` that exists now, so it is one of its landing partners; and ``c`` covers ``q(c)``, while
    every card is covered at most once, so distinct stranded cards have distinct ``q``. A win thus
    matches every stranded card but the final one (at most one) to a distinct landing partner. (The
    rightmost card is always stranded. ``uncoverable_cards`` is the case of two stranded cards with
    no landing partner at all; the matching also sees stranded cards competing for the same few
    partners.) A maximum matching (augmenting paths) decides whether such a matching exists.
    Applied to the dealt row only: on every order of 3x4 (wrap on) it closes 3,712 of the 11,824
    lost rows the other conditions leave open, on 2x5 30 of 16,940, on 20,000 random 2x6 orders
    1.8% of them and on 2x8 and 2x10 0.3% and 0.04%. It closes no dealt 52-card row of 400, and
    in the search (every expanded row; 200 random decks, 500,000 nodes) it left every verdict as it
    was, with 0.5% fewer nodes on the lost decks at 1.11 times the CPU seconds: of the lost rows
    52-card searches store it closes 11% to 78% of those with 15 to 24 piles, but those the
    search's other cuts leave open are mostly under 1.2%, rows the search closes within a few nodes
    anyway (see benchmarks/README.md).

``used_partners`` (``moves=physical`` only)
    The stranded cards and their landing partners as in ``stranded_cards``. The condition fires when
    for every choice of a *final* card among the stranded cards (one with no landing partner, if
    there is one), the other stranded cards, the *jumpers*, fail the *surplus* condition: some
    nonempty set ``T`` of jumpers has at most ``|T|`` landing partners in all. *Proof*: take a win.
    Every stranded card but the final card (at most one of them; a stranded card with no landing
    partner can only be the final one) is, by the proof of ``stranded_cards``, at some moment
    ``jump(c)`` moved by a distance-3 move over the partner ``p(c)`` that later covers it, onto
    another partner ``q(c)``, which ``c`` covers then; ``q(c)`` and ``p(c)`` are landing partners of
    ``c`` (both partners of ``c``, cards in the row now, since cards never appear, and ``c`` has two
    partners and stands at position 3 or more). A card is covered once, so the ``q(c)`` are distinct,
    and ``q(c)`` is covered at ``jump(c)``. A partner used up as a landing cannot cover later:
    ``p(c)`` covers ``c`` after ``jump(c)``, so it is not yet covered at ``jump(c)``, so ``p(c)`` is
    not ``q(d)`` for any jumper ``d`` with ``jump(d) <= jump(c)``. Now take any set ``T`` of jumpers
    and its member ``t`` that jumps last: ``q(d)`` for every ``d`` in ``T`` and ``p(t)`` are
    ``|T| + 1`` distinct landing partners of members of ``T``. So a win gives a final card and
    jumpers such that every nonempty ``T`` has more than ``|T|`` landing partners. (``stranded_cards``
    is the weaker requirement of ``|T|`` partners, Hall's condition for the matching; this one sees
    that the partner a card jumps over must still be there, two cards of one rank with the same two
    partners, for instance.) The surplus condition holds exactly when, for every jumper ``c``, the
    matching with ``c`` counted twice matches every jumper and the second copy of ``c`` (for a set
    ``T`` containing ``c``, Hall's condition for that graph is ``|N(T)| >= |T| + 1``);
    :func:`used_partners` checks that by augmenting paths.
    Applied to the dealt row and, in the search, to every expanded row of ``moves=physical`` (of any
    size, where the others run on rows of at most 24 piles in the restarts): on 52-card searches it
    cuts rows of 25 to 40 piles that the others leave open. On small decks it closes many lost rows
    the conditions above leave open and never a winnable one (tested against exhaustive search); the
    figures are in benchmarks/README.md.

``split_row`` (``moves=published`` only; not among :data:`CONDITIONS`: see below)
    Cut the row into *parts*, runs of consecutive piles (the first pile in the first part), and
    explore each part as a game of its own, with the moves across parts that the other parts may
    allow: a Cartesian over-approximation, each part's rows kept apart, not the tuples of them. A
    part's game has its own moves, *departures* (its ``k``-th pile, ``k`` = 0, 1, 2 counted from its
    left, leaves when its top is adjacent to a rank in ``shown[k]``) and *drops* (its ``e``-th pile
    from its end, ``e`` = 1, 2, 3, takes a pile of top ``t`` and bottom ``b`` from ``drops[e]`` when
    ``t`` is adjacent to its top, which becomes ``b``). ``shown[k]``: every rank that, for some choice
    of an explored row of each part to the left, stands on top of the ``e``-th pile from the end of
    their concatenation, ``k + e`` in {1, 3}. ``drops[e]`` of a part ``P``: every ``(t, b)`` of the
    ``k``-th pile of an explored row of a part to the right, ``k + g + e`` in {1, 3}, where ``g`` is
    the length of some choice of explored rows of the parts between (so ``g`` <= 2). Start with no
    drops; explore the parts from left to right (each with the ``shown`` of the rows just explored to
    its left); collect the drops the explored rows offer; repeat until they no longer change. The
    condition fires when no explored row of the first part is a single pile, or no explored row of
    another part is empty. *Proof*: moves go left, so a pile only ever moves onto a pile of its own
    part or of a part to its left, and the first pile never moves. In the joint row (the parts in
    order) the ``k``-th pile of a part and the ``e``-th pile from the end of the parts left of it, with
    ``g`` piles of the parts strictly between, are ``k + g + e`` apart, so a move across parts is a
    departure at ``k`` of the mover's part and a drop at ``e`` on the target's part, ``k + g + e`` = 1
    or 3, the tops adjacent, the target's new top the mover's bottom. Take a play from the row: at
    every moment each part's row is one of its explored rows. True at the start; kept by a move inside
    a part (a move of its game), and by a move across, which is a departure the mover's part allows
    (the rows left of the mover at that moment are explored, so the target's top is in ``shown[k]``)
    and a drop the target's part allows (the mover's row and those between are explored, so the
    mover's ``(top, bottom)`` is in ``drops[e]``). The last drops are those the last exploration used,
    and each part was explored with the ``shown`` of the last rows to its left, so the explored sets
    are closed under every move across. In a win every pile but the first moves, so every part but
    the first ends empty and the first a single pile. :func:`split_row` tries the row cut into runs
    of 4, 6, 8 and 10 piles (:data:`SPLIT_ROW_SIZES`) within :data:`SPLIT_ROW_CAP` rows explored in
    all; past that, no proof. On small decks it closes many lost rows the conditions above leave open
    (in samples of 1,500 lost rows of each deck, of the rows the others leave open: 2x4 1,066 of
    1,066 with wrap, 499 of 748 without; 3x3 with wrap 204 of 258; 1x7 752 of 834 and 287 of 291; 2x5
    with wrap 634 of 938; never a winnable row; tested), but on
    52-card rows the Cartesian product forgets what matters: emptying a part means moving its piles
    onto the part to its left, which covers the tops that part shows, and the abstraction lets the
    part show them while the part to its right is empty. It closed none of the 59 dealt rows of seeds
    1 and 2 the search leaves undecided (8 to 9 CPU s each, at the cap), and on rows of the search it fires
    only where the search closes them within a few dozen nodes; see benchmarks/README.md. So it is
    applied nowhere by default (``proof_of_loss(row, ..., ("split_row",))`` runs it).

The solver's cut during the search, in the numba engine (:mod:`exact.prisoners.solver_kernel`, the jitted
twins of these functions in :mod:`exact.prisoners.proofs_kernel`), is
the same conditions ``disconnected`` (which contains ``isolated_pile``), ``uncoverable_cards``,
``frozen_piles``, ``unpaired_tops`` and ``used_partners``, on bit masks and rank counts (the kernel also has
``immovable_piles`` and ``stranded_cards``, off by default); the Python reference
(:class:`exact.prisoners.solver.Searcher`) calls the functions below, and the tests check that both
cut the same rows.
"""
from __future__ import annotations

#: The static conditions, in the order they are tried on a dealt row.
CONDITIONS = ("isolated_pile", "disconnected", "uncoverable_cards", "frozen_piles", "unpaired_tops",
              "immovable_piles", "stranded_cards", "used_partners")
#: Name of the evidence of a loss found by searching every row (after the cuts above).
EXHAUSTION = "exhaustion"


def _shown(pile, reverse: bool):
    return (pile[0], pile[1]) if reverse else (pile,)


def isolated_pile(row, neighbours, reverse: bool) -> bool:
    """Whether some pile shows no rank adjacent to any rank shown by another pile (see the module
    docstring; ``neighbours[r]``: the ranks adjacent to ``r``)."""
    if len(row) <= 1:
        return False
    counts: dict[int, int] = {}
    for pile in row:
        for r in set(_shown(pile, reverse)):
            counts[r] = counts.get(r, 0) + 1
    for pile in row:
        mine = set(_shown(pile, reverse))
        if not any(counts.get(s, 0) - (s in mine) > 0 for r in mine for s in neighbours[r]):
            return True
    return False


def disconnected(row, neighbours, reverse: bool) -> bool:
    """Whether the link graph of the row's piles is disconnected (see the module docstring)."""
    if len(row) <= 1:
        return False
    holders: dict[int, list[int]] = {}
    for p, pile in enumerate(row):
        for r in set(_shown(pile, reverse)):
            holders.setdefault(r, []).append(p)
    seen, ranks_done = {0}, set()
    todo = [0]
    while todo:  # breadth over piles; each rank's holders are visited once
        p = todo.pop()
        for r in _shown(row[p], reverse):
            for s in neighbours[r]:
                if s in ranks_done or s not in holders:
                    continue
                ranks_done.add(s)
                for q in holders[s]:
                    if q not in seen:
                        seen.add(q)
                        todo.append(q)
    return len(seen) < len(row)


def uncoverable_cards(row, neighbours, reverse: bool) -> bool:
    """Whether two top cards of a physical row can never be covered (see the module docstring);
    always ``False`` with ``moves=published``."""
    if reverse or len(row) <= 1:
        return False
    total: dict[int, int] = {}
    for r in row:
        total[r] = total.get(r, 0) + 1
    right: dict[int, int] = {}
    found = 0
    for p in range(len(row) - 1, -1, -1):  # right to left, counting the ranks seen to the right
        r = row[p]
        if not any(right.get(s) for s in neighbours[r]) and (
                p <= 2 or sum(total.get(s, 0) for s in neighbours[r]) <= 1):
            found += 1
        right[r] = right.get(r, 0) + 1
    return found >= 2


def _stranded_options(row, neighbours, reverse: bool) -> dict[int, list[int]] | None:
    """The stranded cards of a physical row (no partner to their right), from the right, each with its
    landing partners: the positions to its left holding a partner, none when it has fewer than two
    or sits in the first three piles (see the module docstring). None where neither condition on them
    can fire: a published row (``reverse``), or at most one stranded card."""
    if reverse or len(row) <= 1:
        return None
    stranded = []
    right: set = set()
    for p in range(len(row) - 1, -1, -1):
        if not any(s in right for s in neighbours[row[p]]):
            stranded.append(p)
        right.add(row[p])
    options = {}
    for c in stranded:
        partners = [q for q in range(c) if row[q] in neighbours[row[c]]]
        options[c] = partners if c >= 3 and len(partners) >= 2 else []
    return options if len(options) > 1 else None


def stranded_cards(row, neighbours, reverse: bool) -> bool:
    """Whether a physical row's stranded cards cannot, all but one, be given distinct partners to land
    on (see the module docstring: a maximum bipartite matching, the plain way); always ``False``
    with ``moves=published``."""
    options = _stranded_options(row, neighbours, reverse)
    if options is None:
        return False
    return len(options) - _matched(list(options), lambda c: options[c]) >= 2


def _saturates(jumpers, options, double) -> bool:
    """Whether the bipartite graph ``jumpers`` -> ``options`` (landing partners), with the jumper
    ``double`` counted twice, matches every jumper (and the second copy) to distinct partners."""
    copies = [(c, 0) for c in jumpers] + [(double, 1)]
    return _matched(copies, lambda u: options[u[0]]) == len(copies)


def _matched(items, partners_of) -> int:
    """The size of a maximum matching of ``items`` to distinct partners (``partners_of(item)``), by
    augmenting paths (Kuhn's algorithm), the plain way."""
    owner: dict = {}  # partner -> item

    def augment(u, seen) -> bool:
        for q in partners_of(u):
            if q not in seen:
                seen.add(q)
                if q not in owner or augment(owner[q], seen):
                    owner[q] = u
                    return True
        return False

    return sum(1 for u in items if augment(u, set()))


def used_partners(row, neighbours, reverse: bool) -> bool:
    """Whether a physical row's stranded cards, all but one, fail the surplus condition: some set of
    them whose partners are not more than the set (see the module docstring); always ``False``
    with ``moves=published``."""
    options = _stranded_options(row, neighbours, reverse)
    if options is None:
        return False
    stranded = list(options)
    hopeless = [c for c in stranded if not options[c]]
    if len(hopeless) >= 2:
        return True
    for final in hopeless or stranded:  # the final card, never covered, needs no partner
        jumpers = [c for c in stranded if c != final]
        if all(_saturates(jumpers, options, c) for c in jumpers):
            return False
    return True


def frozen_piles(row, neighbours, reverse: bool) -> bool:
    """Whether a published row has a frozen top or two frozen bottoms (see the module docstring);
    always ``False`` with ``moves=physical`` (there ``isolated_pile`` says the same of tops)."""
    if not reverse or len(row) <= 1:
        return False

    def shown(p, pile):
        return {pile[1]} if p == 0 else {pile[0], pile[1]}

    counts: dict[int, int] = {}
    for p, pile in enumerate(row):
        for r in shown(p, pile):
            counts[r] = counts.get(r, 0) + 1

    def partner_elsewhere(rank, mine) -> bool:
        return any(counts.get(s, 0) - (s in mine) > 0 for s in neighbours[rank])

    frozen_bottoms = 0
    for p, pile in enumerate(row):
        mine = shown(p, pile)
        if not partner_elsewhere(pile[1], mine):
            return True
        if p >= 1 and not partner_elsewhere(pile[0], mine):
            frozen_bottoms += 1
    return frozen_bottoms >= 2


def pairable(counts, cycle: bool) -> bool:
    """Whether ``counts[r]`` items of each rank ``r`` split into pairs of adjacent ranks, the ranks on a
    path ``0 - 1 - ... - (R-1)``, closed into a cycle when ``cycle`` (the plain way: try every number
    of pairs across the closing edge, then the path is forced from rank 0 upward)."""
    ranks = len(counts)
    for across in range(min(counts[0], counts[-1]) + 1 if cycle else 1):
        left = list(counts)
        left[0] -= across
        left[-1] -= across
        carry = 0  # pairs between rank r - 1 and rank r
        for r in range(ranks):
            carry = left[r] - carry
            if carry < 0:
                break
        else:
            if carry == 0:
                return True
    return False


def unpaired_tops(row, neighbours, reverse: bool) -> bool:
    """Whether a published row's tops to come cannot pair up into moves (see the module docstring);
    always ``False`` with ``moves=physical``. ``neighbours`` must be the rules' adjacency (a path of
    ranks, or a cycle with wrap)."""
    if not reverse or len(row) <= 1:
        return False
    ranks = len(neighbours)
    cycle = ranks >= 3 and ranks - 1 in neighbours[0]
    counts = [0] * ranks
    for p, (bottom, top) in enumerate(row):
        counts[top] += 1
        if p > 0:
            counts[bottom] += 1
    last = {bottom for bottom, _ in row[1:]}  # the final top: the bottom of the last pile moved
    for final in range(ranks):
        if counts[final] and final in last:
            counts[final] -= 1
            ok = pairable(counts, cycle)
            counts[final] += 1
            if ok:
                return False
    return True


def immovable_piles(row, neighbours, reverse: bool) -> bool:
    """Whether some pile of a published row other than the first can never move, by the least
    fixpoint of the module docstring (the plain way: every pair of piles, until nothing changes);
    always ``False`` with ``moves=physical``."""
    if not reverse or len(row) <= 1:
        return False
    m = len(row)
    tops = [{top} for _, top in row]  # T(k)
    moved: set[int] = set()  # M
    changed = True
    while changed:
        changed = False
        for i in range(1, m):
            for k in range(i):
                stuck = sum(1 for q in range(k + 1, i) if q not in moved)
                if not (stuck == 0 or (stuck <= 2 and i - k - 1 >= 2)):
                    continue
                if not any(s in neighbours[r] for r in tops[i] for s in tops[k]):
                    continue
                if i not in moved or row[i][0] not in tops[k]:
                    moved.add(i)
                    tops[k].add(row[i][0])
                    changed = True
    return len(moved) < m - 1


def proof_of_loss(row, neighbours, reverse: bool, conditions=CONDITIONS) -> str | None:
    """The name of the first of ``conditions`` that proves the row lost, or ``None``."""
    for name in conditions:
        if _CHECKS[name](row, neighbours, reverse):
            return name
    return None




#: The most rows :func:`split_row` explores, over every part and every way of cutting tried, before it
#: gives up (no proof).
SPLIT_ROW_CAP = 200_000
#: The part sizes :func:`split_row` tries by default (the row cut into runs of that many piles).
SPLIT_ROW_SIZES = (4, 6, 8, 10)
#: A move across parts: (k, e), the mover's index ``k`` in its part (0 = leftmost), and ``e``, the
#: target's place from the end of the piles left of the mover's part (1 = the nearest); ``k + e`` is
#: the move's distance, 1 or 3.
_ACROSS = ((0, 1), (0, 3), (1, 2), (2, 1))


def _part_rows(start, adjacent, shown, drops, budget):
    """Every row of one part reachable by its own moves, its *departures* (its ``k``-th pile, ``k <
    3``, leaves when its top is adjacent to a rank of ``shown[k]``) and its *drops* (its ``e``-th pile
    from its end takes a pile ``(t, b)`` of ``drops[e]`` when ``t`` is adjacent to its top, which
    becomes ``b``), or ``None`` once ``budget[0]`` (counted down) runs out (see :func:`split_row`)."""
    seen = {start}
    todo = [start]
    while todo:
        row = todo.pop()
        budget[0] -= 1
        if budget[0] < 0:
            return None
        m = len(row)
        new = []
        for i in range(1, m):
            for d in (1, 3):
                j = i - d
                if j >= 0 and adjacent(row[i][1], row[j][1]):
                    new.append(row[:j] + ((row[j][0], row[i][0]),) + row[j + 1:i] + row[i + 1:])
        for k in range(min(3, m)):
            if any(adjacent(row[k][1], s) for s in shown[k]):
                new.append(row[:k] + row[k + 1:])
        for e in range(1, min(3, m) + 1):
            j = m - e
            for top, bottom in drops[e]:
                if adjacent(top, row[j][1]):
                    new.append(row[:j] + ((row[j][0], bottom),) + row[j + 1:])
        for child in new:
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def split_cut(row, neighbours, cuts, budget) -> bool | None:
    """Whether :func:`split_row`'s argument proves the row lost with the row cut before each pile of
    ``cuts`` (increasing, each in ``1 .. len(row) - 1``); ``None``: past the budget, no proof."""
    def adjacent(a, b):
        return b in neighbours[a]

    bounds = [0, *cuts, len(row)]
    parts = [tuple(row[a:b]) for a, b in zip(bounds, bounds[1:])]
    n = len(parts)
    drops = [{e: frozenset() for e in (1, 2, 3)} for _ in parts]
    while True:
        explored = []
        left_tops: dict[int, set] = {e: set() for e in (1, 2, 3)}  # S(e): ranks at place e from the end
        for i, part in enumerate(parts):
            shown = {k: set().union(*(left_tops[e] for kk, e in _ACROSS if kk == k)) for k in range(3)}
            rows = _part_rows(part, adjacent, shown, drops[i], budget)
            if rows is None:
                return None
            explored.append(rows)
            # the piles left of the next part: this part's rows, then (where a row is short) those before
            nxt: dict[int, set] = {e: set() for e in (1, 2, 3)}
            for r in rows:
                for e in (1, 2, 3):
                    if e <= len(r):
                        nxt[e].add(r[-e][1])
                    else:
                        nxt[e] |= left_tops[e - len(r)]
            left_tops = nxt
        new = []
        for j in range(n):
            got: dict[int, set] = {e: set() for e in (1, 2, 3)}
            between = {0}  # the piles the parts strictly between j and i may hold (at most 2 matter)
            for i in range(j + 1, n):
                for r in explored[i]:
                    for k, d in ((k, d) for k in range(min(3, len(r))) for d in (1, 3)):
                        for gap in between:
                            e = d - k - gap
                            if 1 <= e <= 3:
                                got[e].add((r[k][1], r[k][0]))
                between = {a + len(r) for a in between for r in explored[i] if a + len(r) <= 2}
                if not between:
                    break
            new.append({e: frozenset(v) for e, v in got.items()})
        if new == drops:
            break
        drops = new
    return (not any(len(r) == 1 for r in explored[0])
            or any(() not in rows for rows in explored[1:]))


def split_row(row, neighbours, reverse: bool, sizes=SPLIT_ROW_SIZES, cap: int | None = None) -> bool:
    """Whether cutting a published row into runs of piles proves it lost (see the module docstring);
    always ``False`` with ``moves=physical``. Tries the row cut into runs of each of ``sizes`` piles
    (the first run shorter), all within ``cap`` rows explored (default :data:`SPLIT_ROW_CAP`)."""
    if not reverse or len(row) <= 1:
        return False
    budget = [SPLIT_ROW_CAP if cap is None else cap]
    m = len(row)
    for size in sizes:
        cuts = list(range(m - size, 0, -size))[::-1]
        if not cuts:
            cuts = [m - 1]
        found = split_cut(row, neighbours, cuts, budget)
        if found:
            return True
        if budget[0] <= 0:
            return False
    return False


_CHECKS = {"isolated_pile": isolated_pile, "disconnected": disconnected, "uncoverable_cards": uncoverable_cards,
           "frozen_piles": frozen_piles, "unpaired_tops": unpaired_tops, "immovable_piles": immovable_piles,
           "stranded_cards": stranded_cards, "used_partners": used_partners, "split_row": split_row}
