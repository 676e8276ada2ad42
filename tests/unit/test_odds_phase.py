"""The odds from a position by the phase recursion (exact.one_handed.odds_phase): its plain reference
and its numba engine against the memoised search (exact.one_handed.odds.position_counts), the two
exact witnesses, on random positions of random decks and variants."""
import json
import math
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exact.one_handed import odds as odds_module
from exact.one_handed.odds import choose_engine, odds, position_counts, settled_position
from exact.one_handed.odds_phase import phase_table_bytes, position_phase_counts, position_phase_reference
from sim.deck import Deck
from sim.errors import UsageError
from sim.variant import Variant
from solitaire.cli import main

from ..naive import brute_force_from
from ..strategies import deck_orders, decks, variants

ODDS_VARIANTS = variants("one-handed").filter(lambda v: not v.rules.final_once)  # the phase engine refuses it


def labels(cards, deck):
    return [(deck.suit(c), deck.rank(c)) for c in cards]


def random_position(data, deck, reverse, left):
    """A random position of ``deck`` with ``min(left, deck.size)`` cards to come: (settled row, cards to come)."""
    variant = Variant.make("one-handed", reverse="on" if reverse else "off")
    order = data.draw(deck_orders(deck))
    left = min(left, deck.size)
    row, _ = settled_position(order[:deck.size - left], deck, variant)
    return row, order[deck.size - left:]


def both_engines(row, undealt, deck, reverse, stats=None):
    """(search, phase numba) as (counts padded to the deck, emptied)."""
    n = deck.size
    pad = lambda hist: (list(hist) + [0] * (n + 1))[:n + 1]  # noqa: E731
    search = position_counts(row, undealt, deck, reverse=reverse, track_empty=True)
    counts, emptied = position_phase_counts(labels(row, deck), labels(undealt, deck), reverse=reverse,
                                            stats=stats)
    assert not any(counts[n + 1:])
    return search, (pad(counts), emptied)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), deck=decks(max_cards=24, max_suits=5, max_ranks=8), reverse=st.booleans(),
       left=st.integers(0, 7))
def test_phase_engine_equals_search_on_random_positions(data, deck, reverse, left):
    row, undealt = random_position(data, deck, reverse, left)
    search, phase = both_engines(row, undealt, deck, reverse)
    assert phase == tuple(search)
    assert sum(phase[0]) == math.factorial(len(undealt))


@settings(max_examples=20, deadline=None)
@given(data=st.data(), deck=decks(max_cards=16, max_suits=4, max_ranks=6), reverse=st.booleans(),
       left=st.integers(0, 5))
def test_phase_reference_equals_search(data, deck, reverse, left):
    """The plain reference (memoised Python over PhaseReference) is the third witness."""
    row, undealt = random_position(data, deck, reverse, left)
    hist, emptied = position_phase_reference(labels(row, deck), labels(undealt, deck), reverse=reverse)
    counts, search_emptied = position_counts(row, undealt, deck, reverse=reverse, track_empty=True)
    assert [hist.get(s, 0) for s in range(deck.size + 1)] == counts
    assert emptied == search_emptied


@settings(max_examples=30, deadline=None)
@given(data=st.data(), deck=decks(max_cards=20, max_suits=5, max_ranks=6), variant=ODDS_VARIANTS,
       left=st.integers(0, 6))
def test_odds_by_either_engine_equal_brute_force(data, deck, variant, left):
    """Through ``odds``: every variant it takes (win=any, reverse, first4=reversed with 1-3 dealt)."""
    order = data.draw(deck_orders(deck))
    dealt = tuple(order[:max(0, deck.size - left)])
    expected = brute_force_from(dealt, deck, variant)
    for engine in ("phase", "search"):
        result = odds(dealt, deck, variant, method="exact", engine=engine)
        assert (result.score_counts, result.wins) == (expected.score_counts, expected.wins)
        if dealt and result.remaining:
            assert result.engine == engine


@pytest.mark.parametrize("reverse", [False, True])
def test_52_card_positions_with_ten_left(reverse):
    """A long row (35 cards, never emptied) and a short one (3 cards: the row can be emptied). Some
    windows' B(y) are not kept (y matches w1: the split sum adds the phase's immediate end itself)."""
    deck = Deck(4, 13)
    variant = Variant.make("one-handed", reverse="on" if reverse else "off")
    long_row = [(7 * i + 3) % 52 for i in range(52)]
    long_row = long_row[::2] + long_row[1::2]
    short_row = np.random.default_rng(5).permutation(52).tolist()
    emptied_total = not_kept = 0
    for order in (long_row, short_row):
        row, _ = settled_position(order[:42], deck, variant)
        stats: dict = {}
        search, phase = both_engines(row, order[42:], deck, reverse, stats)
        assert phase == tuple(search)
        emptied_total += phase[1]
        not_kept += stats["not_kept"]
    assert emptied_total > 0 or reverse
    assert not_kept > 0


def test_engine_choice_and_refusals(monkeypatch):
    assert choose_engine(odds_module.PHASE_FROM_CARDS) == "phase"
    assert choose_engine(odds_module.PHASE_FROM_CARDS - 1) == "search"
    assert choose_engine(20, "search") == "search"
    with pytest.raises(UsageError, match="unknown odds engine"):
        odds("AS", Deck(2, 3), engine="fast")
    # the phase engine measures its tables before allocating them, and refuses in one line
    deck = Deck(2, 4)
    assert phase_table_bytes(labels([0, 5], deck), labels([1, 2, 3, 4, 6, 7], deck)) > 0
    monkeypatch.setattr(odds_module, "MAX_PHASE_TABLE_BYTES", 1000)
    with pytest.raises(UsageError, match="phase tables would take") as info:
        odds("AS 2H", deck, engine="phase")
    assert "\n" not in str(info.value)


def test_cli_states_the_engine(capsys):
    assert main(["odds", "--suits", "2", "--ranks", "4", "--dealt", "AS 2H", "--engine", "phase", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["method"] == "exact" and record["engine"] == "phase"
    assert main(["odds", "--suits", "2", "--ranks", "4", "--dealt", "AS 2H", "--engine", "search", "--json"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["engine"] == "search" and other["score_counts"] == record["score_counts"]
    assert other["p_win"] == record["p_win"]
    assert main(["odds", "--suits", "2", "--ranks", "4", "--dealt", "AS 2H"]) == 0
    assert "engine search" in capsys.readouterr().out


@settings(max_examples=10, deadline=None)
@given(data=st.data(), deck=decks(max_cards=20, max_suits=5, max_ranks=6), reverse=st.booleans(),
       left=st.integers(3, 7))
def test_narrow_and_wide_tables_count_alike(data, deck, reverse, left):
    """Tables over sets of at most NARROW_SET_CARDS cards are uint32 (a count of orders of such a set
    is at most 12! < 2**32); the same position with every table uint64, or with the limit at 3 cards
    (a group's A uint64 and its B uint32), gives the same counts."""
    from exact.one_handed import odds_phase_groups

    assert math.factorial(odds_phase_groups.NARROW_SET_CARDS) < 2**32 <= math.factorial(odds_phase_groups.NARROW_SET_CARDS + 1)
    variant = Variant.make("one-handed", reverse="on" if reverse else "off")
    order = data.draw(deck_orders(deck))
    left = min(left, deck.size)
    row, _ = settled_position(order[:deck.size - left], deck, variant)
    args = labels(row, deck), labels(order[deck.size - left:], deck)
    narrow = position_phase_counts(*args, reverse=reverse)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(odds_phase_groups, "NARROW_SET_CARDS", -1)
        assert odds_phase_groups.table_dtype(0) == np.uint64
        wide = position_phase_counts(*args, reverse=reverse)
        # a group's kept B vectors are over one card fewer than its A: uint32 where A is uint64
        patch.setattr(odds_phase_groups, "NARROW_SET_CARDS", 3)
        mixed = position_phase_counts(*args, reverse=reverse)
    assert narrow == wide == mixed


@settings(max_examples=15, deadline=None)
@given(data=st.data(), deck=decks(max_cards=20, max_suits=5, max_ranks=6), reverse=st.booleans(),
       left=st.integers(4, 8), level=st.sampled_from([4, 3, 2]))
def test_full_row_apart_counts_as_wide(data, deck, reverse, left, level):
    """A group of windows over a universe of NARROW_SET_CARDS + 1 cards keeps the row of its whole
    universe apart (uint64) and the rest uint32: with 16 cards to come, the windows of three cards to
    come. The limit lowered so that the windows of three cards to come (level 4: m - 3 cards), or a
    depth's (r_i, a, b) (m - 2) or (r_{i-1}, r_i, a) (m - 1) are such groups: the same counts as with
    every table uint64, and as the search."""
    from exact.one_handed import odds_phase_groups

    variant = Variant.make("one-handed", reverse="on" if reverse else "off")
    order = data.draw(deck_orders(deck))
    left = min(left, deck.size)
    if left - level < 0:
        return
    row, _ = settled_position(order[:deck.size - left], deck, variant)
    undealt = order[deck.size - left:]
    args = labels(row, deck), labels(undealt, deck)
    stats: dict = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(odds_phase_groups, "NARROW_SET_CARDS", left - level)
        assert odds_phase_groups.split_row(left - level + 1, left - level + 1)
        assert not odds_phase_groups.split_row(left - level + 2, left - level + 1)
        split = position_phase_counts(*args, reverse=reverse, stats=stats)
        patch.setattr(odds_phase_groups, "NARROW_SET_CARDS", -1)
        wide = position_phase_counts(*args, reverse=reverse)
    assert stats["split_groups"] > 0
    assert split == wide
    n = deck.size
    search = position_counts(row, undealt, deck, reverse=reverse, track_empty=True)
    assert ((list(split[0]) + [0] * (n + 1))[:n + 1], split[1]) == tuple(search)


@pytest.mark.parametrize("level", [4, 3, 2])
def test_full_row_apart_on_a_52_card_position(level):
    """The same on 52-card positions with 8 cards left (one that can empty its row), each group kind
    split in turn."""
    from exact.one_handed import odds_phase_groups

    deck = Deck(4, 13)
    for seed in (2, 5):
        order = np.random.default_rng(seed).permutation(52).tolist()
        row, _ = settled_position(order[:44], deck, Variant.make("one-handed"))
        stats: dict = {}
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(odds_phase_groups, "NARROW_SET_CARDS", 8 - level)
            got = position_phase_counts(labels(row, deck), labels(order[44:], deck), stats=stats)
        assert stats["split_groups"] > 0
        search = position_counts(row, order[44:], deck, track_empty=True)
        assert ((list(got[0]) + [0] * 53)[:53], got[1]) == tuple(search)


@pytest.mark.parametrize("narrow", [None, 5])
def test_table_estimate_is_the_peak(narrow):
    """phase_table_bytes (what the refusal limit is checked against, before any allocation) is the
    engine's peak memory within 10% (numpy's allocations traced), on 52-card positions with 9 left:
    the windows' B vectors and each depth's groups are freed when no later window needs them. With the
    narrow limit at 5 cards, the windows of three cards to come (6 cards) keep their row of the whole
    universe apart, as with 16 left."""
    from exact.one_handed import odds_phase_groups

    with pytest.MonkeyPatch.context() as patch:
        if narrow is not None:
            patch.setattr(odds_phase_groups, "NARROW_SET_CARDS", narrow)
        assert _estimate_is_the_peak() == (2 if narrow is not None else 0)


def _estimate_is_the_peak():
    """Both positions' estimate against the traced peak; returns how many split a group."""
    import tracemalloc

    deck = Deck(4, 13)
    variant = Variant.make("one-handed")
    rng = np.random.default_rng(3)
    position_phase_counts(labels([0, 1, 2], deck), labels([3, 4, 5, 6, 7], deck))
    split = 0
    for _ in range(2):
        order = rng.permutation(52).tolist()
        row, _ = settled_position(order[:43], deck, variant)
        args = labels(row, deck), labels(order[43:], deck)
        estimate = phase_table_bytes(*args)
        stats: dict = {}
        # once untraced first: the kernels' type mixes of this position loaded (numba's compilation or
        # cache loading would count in the traced peak when the test runs alone)
        position_phase_counts(*args)
        tracemalloc.start()
        try:
            position_phase_counts(*args, stats=stats)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert 0.9 * estimate <= peak <= 1.1 * estimate
        split += stats["split_groups"] > 0
    return split


def _is_automorphism(cards, g, fixed=()):
    """``g`` maps the cards to come onto themselves keeping every match among them and with ``fixed``."""
    m = cards.m
    if sorted(g) != list(range(m)):
        return False
    for labels in (cards.two, cards.four):
        for u in range(m):
            for v in range(m):
                if (labels[u] == labels[v]) != (labels[g[u]] == labels[g[v]]):
                    return False
            for x in fixed:
                if x >= 0 and (labels[u] == labels[x]) != (labels[g[u]] == labels[x]):
                    return False
    return True


@settings(max_examples=30, deadline=None)
@given(data=st.data(), deck=decks(max_cards=20, max_suits=5, max_ranks=6), reverse=st.booleans(),
       left=st.integers(1, 9))
def test_relabellings_are_a_group_of_automorphisms(data, deck, reverse, left):
    """The relabellings that share the windows' tables keep every match among the cards to come (and
    with a row card, for the windows (r_i, a, b)) and form a group; each window's lookup maps it onto
    its representative."""
    from exact.one_handed.odds_phase_groups import PositionCards, automorphisms, depth_windows, orbit_representatives

    variant = Variant.make("one-handed", reverse="on" if reverse else "off")
    order = data.draw(deck_orders(deck))
    left = min(left, deck.size)
    row, _ = settled_position(order[:deck.size - left], deck, variant)
    cards = PositionCards(labels(row, deck), labels(order[deck.size - left:], deck), reverse)
    fixed = (cards.row_card(cards.k),) if cards.k else ()
    for group in (automorphisms(cards), automorphisms(cards, fixed)):
        assert group[0] == tuple(range(cards.m))
        assert len(set(group)) == len(group)
        assert all(_is_automorphism(cards, g) for g in group[:50])
        members = set(group)
        for g in group[:20]:
            for h in group[:20]:
                assert tuple(g[h[c]] for c in range(cards.m)) in members
    items = list(permutations(range(cards.m), min(3, cards.m)))
    reps, lookup = orbit_representatives(items, automorphisms(cards))
    assert len(set(reps)) == len(reps) and set(lookup) == set(items)
    for w, (j, g) in lookup.items():
        assert tuple(g[c] for c in w) == reps[j]
    if cards.k:
        x = cards.row_card(cards.k)
        reps, lookup = depth_windows(cards, x)
        keep = automorphisms(cards, (x,))
        assert all(_is_automorphism(cards, g, (x,)) for g in keep[:50])
        for w, (j, g) in lookup.items():
            assert w[0] == x and tuple(c if c >= cards.m else g[c] for c in w) == reps[j]


@settings(max_examples=15, deadline=None)
@given(data=st.data(), deck=decks(max_cards=20, max_suits=5, max_ranks=6), reverse=st.booleans(),
       left=st.integers(3, 8))
def test_shared_tables_count_as_unshared(data, deck, reverse, left):
    """With the windows shared by orbits of relabellings, and with none shared (MAX_SYMMETRY 0: every
    window its own table), the engine gives the same counts."""
    from exact.one_handed import odds_phase_groups

    variant = Variant.make("one-handed", reverse="on" if reverse else "off")
    order = data.draw(deck_orders(deck))
    left = min(left, deck.size)
    row, _ = settled_position(order[:deck.size - left], deck, variant)
    args = labels(row, deck), labels(order[deck.size - left:], deck)
    stats: dict = {}
    shared = position_phase_counts(*args, reverse=reverse, stats=stats)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(odds_phase_groups, "MAX_SYMMETRY", 0)
        plain: dict = {}
        assert position_phase_counts(*args, reverse=reverse, stats=plain) == shared
    m = left
    assert plain["windows"] == (m * (m - 1) * (m - 2) if m >= 3 else 0) >= stats["windows"]


def test_symmetric_52_card_position_shares_windows():
    """A 52-card position whose cards to come have many relabellings (every suit's ace to four: one
    rank class per suit pattern) shares its windows and still equals the search."""
    deck = Deck(4, 13)
    undealt = [s * 13 + r for s in range(4) for r in range(2)] + [0 * 13 + 5, 1 * 13 + 6]  # 10 cards
    rest = [c for c in range(52) if c not in undealt]
    row, _ = settled_position(rest, deck, Variant.make("one-handed"))
    stats: dict = {}
    search = position_counts(row, undealt, deck, track_empty=True)
    counts, emptied = position_phase_counts(labels(row, deck), labels(undealt, deck), stats=stats)
    assert ((list(counts) + [0] * 53)[:53], emptied) == tuple(search)
    assert stats["symmetry"] > 1 and stats["windows"] < 10 * 9 * 8


def test_short_index_splits_the_rows_by_size():
    """The kept B rows over sets of at most SHORT_SET_CARDS cards are numbered apart from the others,
    each numbering a bijection onto 0 .. n - 1 (8! < 2**16 <= 9!: every count of such a set fits)."""
    from exact.one_handed import odds_phase_groups

    short = odds_phase_groups.SHORT_SET_CARDS
    assert math.factorial(short) < 2**16 <= math.factorial(short + 1)
    for nbits in (0, 3, 9, 12):
        idx, n_lo, n_hi = odds_phase_groups.short_index(nbits)
        sizes = [bin(r).count("1") for r in range(1 << nbits)]
        lo = sorted(-1 - int(idx[r]) for r in range(1 << nbits) if sizes[r] <= short)
        hi = sorted(int(idx[r]) for r in range(1 << nbits) if sizes[r] > short)
        assert lo == list(range(n_lo)) and hi == list(range(n_hi))
        assert n_lo + n_hi == 1 << nbits


@settings(max_examples=15, deadline=None)
@given(data=st.data(), deck=decks(max_cards=20, max_suits=5, max_ranks=6), reverse=st.booleans(),
       left=st.integers(3, 8), short=st.sampled_from([-1, 0, 1, 2, 3]))
def test_short_b_rows_count_as_wide(data, deck, reverse, left, short):
    """The kept B rows of the inner groups over sets of at most SHORT_SET_CARDS cards are uint16 apart
    from the others: with the limit lowered (so that a small position has rows on both sides; -1: none
    apart) the same counts as the default (every row of such a position short), and as the search."""
    from exact.one_handed import odds_phase_groups

    row, undealt = random_position(data, deck, reverse, left)
    args = labels(row, deck), labels(undealt, deck)
    default = position_phase_counts(*args, reverse=reverse)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(odds_phase_groups, "SHORT_SET_CARDS", short)
        lowered = position_phase_counts(*args, reverse=reverse)
    assert lowered == default
    n = deck.size
    search = position_counts(row, undealt, deck, reverse=reverse, track_empty=True)
    assert ((list(default[0]) + [0] * (n + 1))[:n + 1], default[1]) == tuple(search)
    if len(undealt) <= 5:  # the plain reference, the third witness (small positions only)
        hist, emptied = position_phase_reference(*args, reverse=reverse)
        assert ([hist.get(s, 0) for s in range(n + 1)], emptied) == tuple(search)


@pytest.mark.parametrize("short", [-1, 2, 4])
def test_short_b_rows_on_a_52_card_position(short):
    """The same on 52-card positions with 8 cards left (one that can empty its row), the short rows'
    limit lowered so that both arrays hold kept rows; the estimate stays within 10% of the traced peak."""
    from exact.one_handed import odds_phase_groups

    deck = Deck(4, 13)
    for seed in (2, 5):
        order = np.random.default_rng(seed).permutation(52).tolist()
        row, _ = settled_position(order[:44], deck, Variant.make("one-handed"))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(odds_phase_groups, "SHORT_SET_CARDS", short)
            got = position_phase_counts(labels(row, deck), labels(order[44:], deck))
        search = position_counts(row, order[44:], deck, track_empty=True)
        assert ((list(got[0]) + [0] * 53)[:53], got[1]) == tuple(search)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(odds_phase_groups, "SHORT_SET_CARDS", short)
        _estimate_is_the_peak()


@settings(max_examples=15, deadline=None)
@given(data=st.data(), deck=decks(max_cards=20, max_suits=5, max_ranks=6), reverse=st.booleans(),
       left=st.integers(3, 8), workers=st.integers(2, 3), runs=st.integers(1, 5))
def test_threads_count_as_one(data, deck, reverse, left, workers, runs):
    """Filled in threads (every layer of every group of more than one window split into runs of whole
    windows, however small: PARALLEL_MIN_SETS and THREADS_FROM_CARDS 0; the marks written between the
    layers), the tables give the same counts as in one call, and as the search."""
    from exact.one_handed import odds_phase, odds_phase_groups

    row, undealt = random_position(data, deck, reverse, left)
    args = labels(row, deck), labels(undealt, deck)
    one = position_phase_counts(*args, reverse=reverse, progress=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(odds_phase_groups, "PARALLEL_MIN_SETS", 0)
        patch.setattr(odds_phase, "THREADS_FROM_CARDS", 0)
        patch.setattr(odds_phase_groups, "RUNS_PER_THREAD", runs)
        threaded = position_phase_counts(*args, reverse=reverse, workers=workers, progress=False)
    assert threaded == one
    n = deck.size
    search = position_counts(row, undealt, deck, reverse=reverse, track_empty=True)
    assert ((list(one[0]) + [0] * (n + 1))[:n + 1], one[1]) == tuple(search)


@settings(max_examples=15, deadline=None)
@given(data=st.data(), deck=decks(max_cards=20, max_suits=5, max_ranks=6), reverse=st.booleans(),
       left=st.integers(3, 8), workers=st.integers(1, 2), runs=st.integers(1, 5))
def test_a_progress_bar_counts_as_none(data, deck, reverse, left, workers, runs):
    """With a progress bar, every layer of every group filled one call each, a large one (here all:
    PARALLEL_MIN_SETS, THREADS_FROM_CARDS and TICK_FROM_CARDS 0) in runs of whole windows with the bar
    advanced after each (TICK_RUNS 1-5; in threads with 2 workers), the counts are those without; the bar only goes forward and ends at its total."""
    row, undealt = random_position(data, deck, reverse, left)
    plain = position_phase_counts(labels(row, deck), labels(undealt, deck), reverse=reverse, progress=False)
    ticked, bar, steps = _ticked_counts(row, undealt, deck, reverse, workers, runs)
    assert ticked == plain
    assert all(n >= 0 for n in steps) and bar.n == pytest.approx(bar.total) == len(row) + 2


def test_a_progress_bar_moves_within_the_depths():
    """On a 52-card position (12 left) the bar goes forward by fractions of a depth, as the layers and
    runs fill, not only once a depth (or the windows of three cards to come) is done."""
    deck = Deck(4, 13)
    order = np.random.default_rng(3).permutation(52).tolist()
    row, _ = settled_position(order[:40], deck, Variant.make("one-handed"))
    ticked, bar, steps = _ticked_counts(row, order[40:], deck, False, 1, 8)
    assert ticked == position_phase_counts(labels(row, deck), labels(order[40:], deck), progress=False)
    assert bar.n == pytest.approx(len(row) + 2)
    assert sum(0 < n < 1 for n in steps) > 2 * (len(row) + 2)


def _ticked_counts(row, undealt, deck, reverse, workers, runs):
    """position_phase_counts with a bar, every layer large (see above): the counts, the bar and its
    steps."""
    import sim.progress
    from exact.one_handed import odds_phase, odds_phase_groups

    bars, steps = [], []

    def recording(*a, **k):
        bar = real(*a, **k)
        update = bar.update
        bar.update = lambda n=1: (steps.append(n), update(n))[1]
        bars.append(bar)
        return bar

    real = sim.progress.progress_bar
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(odds_phase_groups, "PARALLEL_MIN_SETS", 0)
        patch.setattr(odds_phase, "THREADS_FROM_CARDS", 0)
        patch.setattr(odds_phase_groups, "TICK_RUNS", runs)
        patch.setattr(odds_phase, "TICK_FROM_CARDS", 0)
        patch.setattr(odds_phase, "progress_bar", recording)  # the name the engine calls
        ticked = position_phase_counts(labels(row, deck), labels(undealt, deck), reverse=reverse,
                                       workers=workers, progress=True)
    [bar] = bars
    return ticked, bar, steps


def test_threads_on_a_52_card_position():
    """The same on a 52-card position with 11 cards left, whose large layers (default limit) run in
    threads, through the public odds (workers=2), against one worker."""
    from exact.one_handed import odds_phase, odds_phase_groups

    deck = Deck(4, 13)
    order = np.random.default_rng(7).permutation(52).tolist()
    one = odds(order[:41], deck, method="exact", engine="phase", workers=1, progress=False)
    tasks, real = [], odds_phase_groups.delayed
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(odds_phase, "THREADS_FROM_CARDS", 11)
        patch.setattr(odds_phase_groups, "delayed", lambda f: tasks.append(f) or real(f))
        two = odds(order[:41], deck, method="exact", engine="phase", workers=2, progress=False)
    assert tasks  # some layers ran in threads
    assert two.score_counts == one.score_counts and two.p_win == one.p_win
    assert sum(one.score_counts) == math.factorial(11)


def test_down_closure_is_every_subset_of_a_live_set():
    from exact.one_handed.odds_phase_groups import down_closure

    m = 5
    live = np.zeros(1 << m, dtype=bool)
    live[[0b10110, 0b00011]] = True
    closed = down_closure(live, m)
    assert [x for x in range(1 << m) if closed[x]] == sorted(
        x for x in range(1 << m) if (x & ~0b10110) == 0 or (x & ~0b00011) == 0)


@settings(max_examples=20, deadline=None)
@given(data=st.data(), deck=decks(max_cards=20, max_suits=5, max_ranks=6), reverse=st.booleans(),
       left=st.integers(3, 8))
def test_needed_sets_count_as_every_set(data, deck, reverse, left):
    """A depth's groups filled only over the sets the play reaches them with (NEEDED_SETS_ONLY, the
    default) give the counts of the groups filled over every set, and of the search."""
    from exact.one_handed import odds_phase

    row, undealt = random_position(data, deck, reverse, left)
    args = labels(row, deck), labels(undealt, deck)
    needed = position_phase_counts(*args, reverse=reverse, progress=False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(odds_phase, "NEEDED_SETS_ONLY", False)
        every = position_phase_counts(*args, reverse=reverse, progress=False)
    assert needed == every
    n = deck.size
    search = position_counts(row, undealt, deck, reverse=reverse, track_empty=True)
    assert ((list(needed[0]) + [0] * (n + 1))[:n + 1], needed[1]) == tuple(search)


def test_needed_sets_on_52_card_positions():
    """On 52-card positions with 10 cards left (their cards to come with several relabellings, so that
    the needs cross relabelled windows), some depth's groups skip sets, with the counts of the search."""
    from exact.one_handed import odds_phase

    deck = Deck(4, 13)
    fractions = []
    real = odds_phase.needed_sets

    def spy(*a):
        needs = real(*a)
        fractions.extend(float(v.mean()) for v in needs.values())
        return needs

    for seed in (1, 2, 3):
        order = np.random.default_rng(seed).permutation(52).tolist()
        row, _ = settled_position(order[:42], deck, Variant.make("one-handed"))
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(odds_phase, "needed_sets", spy)
            counts, emptied = position_phase_counts(labels(row, deck), labels(order[42:], deck), progress=False)
        search = position_counts(row, order[42:], deck, track_empty=True)
        assert ((list(counts) + [0] * 53)[:53], emptied) == tuple(search)
    assert min(fractions) < 0.5
