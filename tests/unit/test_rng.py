"""The random streams: the kernel generator equals the reference, shuffles and draws are uniform."""
import numpy as np
import pytest
from scipy import stats

from sim import rng
from sim._jit import jit


def test_xoshiro_kernel_equals_reference():
    state = rng.chunk_states(12345, 7, 1)[0]
    assert [int(x) for x in rng._stream(state, 1000)] == rng.reference_stream(state, 1000)


def test_chunk_streams_do_not_depend_on_the_plan():
    all_states = rng.chunk_states(99, 0, 10)
    assert (rng.chunk_states(99, 6, 2) == all_states[6:8]).all()
    assert len({tuple(s) for s in all_states}) == 10


@jit
def _shuffle_counts(state, n, games, short=False):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    a = np.arange(n)
    counts = np.zeros((n, n), dtype=np.int64)  # card x position
    for _ in range(games):
        for k in range(n):
            a[k] = k  # fresh sorted deck each time: tests one shuffle, not a chain of them
        if short:
            s0, s1, s2, s3 = rng.shuffle_short(a, s0, s1, s2, s3)
        else:
            s0, s1, s2, s3 = rng.shuffle(a, s0, s1, s2, s3)
        for pos in range(n):
            counts[a[pos], pos] += 1
    return counts


@pytest.mark.parametrize("n", [2, 5, 13, 52])
def test_shuffle_is_uniform_card_by_position(n):
    games = 200_000
    counts = _shuffle_counts(rng.chunk_states(2024, 0, 1)[0], n, games)
    # Each position's column is multinomial, so the plain sum has null mean n(n-1); scaled by
    # (n-1)/n it is asymptotically chi-square with (n-1)^2 degrees of freedom (margins are fixed).
    chi2 = (((counts - games / n) ** 2) / (games / n)).sum() * (n - 1) / n
    dof = (n - 1) ** 2
    assert stats.chi2.sf(chi2, dof) > 1e-4


@jit
def _perm_counts(state, games):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    a = np.arange(4)
    counts = np.zeros(256, dtype=np.int64)
    for _ in range(games):
        for k in range(4):
            a[k] = k
        s0, s1, s2, s3 = rng.shuffle(a, s0, s1, s2, s3)
        counts[a[0] * 64 + a[1] * 16 + a[2] * 4 + a[3]] += 1
    return counts


def test_shuffle_gives_every_order_equally_often():
    counts = _perm_counts(rng.chunk_states(7, 0, 1)[0], 240_000)
    observed = counts[counts > 0]
    assert observed.size == 24
    assert stats.chisquare(observed).pvalue > 1e-4


@jit
def _bounded_draws(state, bound, n):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    out = np.empty(2 * n, dtype=np.int64)
    for k in range(n):
        a, b, s0, s1, s2, s3 = rng.bounded_pair(np.uint64(bound), np.uint64(bound), s0, s1, s2, s3)
        out[2 * k] = a
        out[2 * k + 1] = b
    return out


@pytest.mark.parametrize("bound", [1, 3, 7, 52, 3_000_000_019])
def test_bounded_integers_are_in_range_and_uniform(bound):
    draws = _bounded_draws(rng.chunk_states(5, 0, 1)[0], bound, 100_000)
    assert draws.min() >= 0 and draws.max() < bound
    if bound <= 52:
        observed = np.bincount(draws, minlength=bound)
        assert bound == 1 or stats.chisquare(observed).pvalue > 1e-4
    else:  # a bound near 2**32 exercises the rejection path; check the top/bottom halves balance
        assert abs((draws < bound // 2).mean() - 0.5) < 0.01


def _card_position_pvalue(counts, games):
    """p-value of uniformity for a card x position count table of ``games`` random permutations.

    Pearson's statistic over the n x n cells has mean n(n-1) here (each game adds a permutation
    matrix, whose cells are dependent), so it is scaled by (n-1)/n to follow chi2 with (n-1)**2
    degrees of freedom (checked: unscaled, p-values of an exact shuffle pile up near 0 for small n).
    """
    n = counts.shape[0]
    chi2 = (((counts - games / n) ** 2) / (games / n)).sum() * (n - 1) / n
    return stats.chi2.sf(chi2, (n - 1) ** 2)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 13, 52])
def test_short_shuffle_is_uniform_card_by_position(n):
    # n = 2..6 cover every length of the tail after the four-draws-per-output loop
    games = 200_000
    counts = _shuffle_counts(rng.chunk_states(2025, 0, 1)[0], n, games, True)
    assert (counts.sum(axis=0) == games).all() and (counts.sum(axis=1) == games).all()
    assert _card_position_pvalue(counts, games) > 1e-4


@jit
def _short_perm_counts(state, n, games):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    a = np.arange(n)
    counts = np.zeros(n ** n, dtype=np.int64)
    for _ in range(games):
        for k in range(n):
            a[k] = k
        s0, s1, s2, s3 = rng.shuffle_short(a, s0, s1, s2, s3)
        code = 0
        for k in range(n):
            code = code * n + a[k]
        counts[code] += 1
    return counts


@pytest.mark.parametrize("n", [4, 5])
def test_short_shuffle_gives_every_order_equally_often(n):
    import math

    counts = _short_perm_counts(rng.chunk_states(8, 0, 1)[0], n, 100 * math.factorial(n) * 10)
    observed = counts[counts > 0]
    assert observed.size == math.factorial(n)
    assert stats.chisquare(observed).pvalue > 1e-4


@jit
def _bounded16_draws(state, bound, n):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    out = np.empty(n, dtype=np.int64)
    for k in range(n):
        x, s0, s1, s2, s3 = rng.next64(s0, s1, s2, s3)
        out[k], s0, s1, s2, s3 = rng.bounded16(x & np.uint64(0xFFFF), np.uint64(bound), s0, s1, s2, s3)
    return out


@pytest.mark.parametrize("bound", [1, 3, 7, 52, 4096, 40_000, 65_536])
def test_bounded16_is_in_range_and_uniform(bound):
    # large bounds take the rejection path often (up to 39% of draws for 40,000)
    draws = _bounded16_draws(rng.chunk_states(6, 0, 1)[0], bound, 200_000)
    assert draws.min() >= 0 and draws.max() < bound
    if bound <= 52:
        observed = np.bincount(draws, minlength=bound)
        assert bound == 1 or stats.chisquare(observed).pvalue > 1e-4
    else:  # 16 equal-width bins
        observed = np.bincount(draws * 16 // bound, minlength=16)
        assert stats.chisquare(observed).pvalue > 1e-4


@jit
def _short4_counts(state, n, games):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    a = np.empty((4, n), dtype=np.int64)
    counts = np.zeros((4, n, n), dtype=np.int64)  # array x card x position
    pairs = np.zeros((n, n), dtype=np.int64)  # (first card of array 0, first card of array 3)
    for _ in range(games):
        for lane in range(4):
            for k in range(n):
                a[lane, k] = k
        s0, s1, s2, s3 = rng.shuffle_short4(a[0], a[1], a[2], a[3], s0, s1, s2, s3)
        for lane in range(4):
            for pos in range(n):
                counts[lane, a[lane, pos], pos] += 1
        pairs[a[0, 0], a[3, 0]] += 1
    return counts, pairs


@pytest.mark.parametrize("n", [2, 5, 13])
def test_short_shuffle4_is_uniform_and_independent(n):
    games = 100_000
    counts, pairs = _short4_counts(rng.chunk_states(77, 0, 1)[0], n, games)
    for lane in range(4):
        assert _card_position_pvalue(counts[lane], games) > 1e-4
    assert stats.chisquare(pairs.ravel()).pvalue > 1e-4
