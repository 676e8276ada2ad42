"""exact.hand.chains: the modular solver (Dixon lifting) and verified lumping against the Fraction reference."""
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
import scipy.sparse as sp

import exact.hand.chains as chains
from exact.hand.chains import (
    CountChain, absorb_fractions, absorb_modular, dense_lu, dixon, driver, factor, lumping, lump, modular_solve,
    rational_reconstruction, solve_vector)
from exact.invariants import InvariantError


@st.composite
def count_chains(draw, max_states=12):
    """A random chain given by counts, with some states that cannot win and some symmetric copies
    (so that lumping has something to merge)."""
    n = draw(st.integers(1, max_states))
    src, dst, count = [], [], []
    wins = []
    for u in range(n):
        edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, 30)), max_size=5))
        for v, c in edges:
            src.append(u)
            dst.append(v)
            count.append(c)
        wins.append(draw(st.integers(0, 3)) if draw(st.booleans()) else 0)
    if draw(st.booleans()):  # a mirrored copy of the chain, joined at state 0
        src += [s + n for s in src]
        dst += [d + n for d in dst]
        count += count
        wins += wins
        src.append(0)
        dst.append(n)
        count.append(draw(st.integers(1, 5)))
        n *= 2
    total = np.array(wins, dtype=np.int64)
    np.add.at(total, np.array(src, dtype=np.int64), np.array(count, dtype=np.int64))
    total = np.maximum(total, 1)
    wins = np.array(wins, dtype=np.int64)
    # a state with no outcome at all stays put (one outcome: itself)
    for u in np.flatnonzero(total - wins - np.bincount(np.array(src, dtype=np.int64), weights=np.array(count),
                                                       minlength=n).astype(np.int64)):
        src.append(int(u))
        dst.append(int(u))
        count.append(1)
    return CountChain(src=np.array(src, dtype=np.int64), dst=np.array(dst, dtype=np.int64),
                      count=np.array(count, dtype=np.int64), wins=wins, total=total)


def can_win(chain: CountChain) -> np.ndarray:
    reach = chain.wins > 0
    while True:
        more = reach.copy()
        more[chain.src[reach[chain.dst]]] = True
        if (more == reach).all():
            return reach
        reach = more


@settings(max_examples=80)
@given(count_chains())
def test_modular_equals_fractions_on_random_chains(chain):
    chain.check()
    transient = can_win(chain)
    assert absorb_modular(chain, transient) == absorb_fractions(chain, transient)


@settings(max_examples=80)
@given(count_chains())
def test_lumping_keeps_the_answers(chain):
    transient = can_win(chain)
    lumped, lumped_transient, start, block = lump(chain, transient, 0)
    assert lumped.states <= chain.states + 1
    assert (block >= 0).tolist() == transient.tolist()
    assert absorb_fractions(lumped, lumped_transient, start) == absorb_fractions(chain, transient)
    # every state of a block has the block's answers
    for u in np.flatnonzero(transient)[:4].tolist():
        assert absorb_fractions(chain, transient, u) == absorb_fractions(lumped, lumped_transient, int(block[u]))


def test_mirrored_states_are_lumped():
    # states 1 and 2 are copies (each wins 1 of 2, else returns to 0): one block
    chain = CountChain(src=np.array([0, 0, 1, 2]), dst=np.array([1, 2, 0, 0]), count=np.array([1, 1, 1, 1]),
                       wins=np.array([0, 1, 1]), total=np.array([2, 2, 2]))
    lumped, transient, start, block = lump(chain, np.ones(3, dtype=bool), 0)
    assert block[1] == block[2] != block[0]
    assert int(transient.sum()) == 2
    assert absorb_modular(lumped, transient, start) == absorb_fractions(chain, np.ones(3, dtype=bool))


def test_a_hash_collision_is_caught(monkeypatch):
    # every signature equal: the refinement would merge states that differ, and the exact
    # verification must refuse it
    monkeypatch.setattr(lumping, "_mix", lambda x: np.zeros(np.shape(x), dtype=np.uint64))
    chain = CountChain(src=np.array([0, 1]), dst=np.array([1, 0]), count=np.array([1, 2]),
                       wins=np.array([1, 1]), total=np.array([2, 3]))
    with pytest.raises(InvariantError, match="lumped block"):
        lump(chain, np.ones(2, dtype=bool), 0)


def test_a_wrong_reconstruction_is_caught_modulo_the_second_prime(monkeypatch):
    chain = CountChain(src=np.array([0, 1, 1]), dst=np.array([1, 0, 1]), count=np.array([1, 1, 1]),
                       wins=np.array([1, 1]), total=np.array([2, 5]))
    transient = np.ones(2, dtype=bool)
    real = rational_reconstruction
    monkeypatch.setattr(driver, "rational_reconstruction", lambda u, m: (real(u, m) or Fraction(0)) + Fraction(1, 7))
    monkeypatch.setattr(dixon._Digits, "agrees", lambda self, f: True)
    with pytest.raises(InvariantError, match="second prime"):
        absorb_modular(chain, transient)


@given(st.integers(-10**30, 10**30), st.integers(1, 10**30))
def test_rational_reconstruction_recovers_fractions(a, b):
    f = Fraction(a, b)
    assume(f.denominator % chains.PRIMES[0])  # a p-adic expansion needs a denominator prime to p
    modulus = chains.PRIMES[0] ** 40  # > 2 |a| b
    u = f.numerator * pow(f.denominator, -1, modulus) % modulus
    assert rational_reconstruction(u, modulus) == f


@settings(max_examples=200)
@given(st.integers(1, 80), st.integers(0, 2**64), st.one_of(st.none(), st.integers(1, 2**70)),
       st.integers(1, 10**40), st.booleans())
def test_lehmer_reconstruction_agrees_with_the_plain_one(k, seed, bound, den, near):
    # moduli of up to 80 digits of PRIMES[0] (Lehmer batches from 256 bits on); any residue, or one
    # of a fraction with a denominator near the limit (the batches must stop just above the bound)
    import random

    modulus = chains.PRIMES[0] ** k
    rng = random.Random(seed)
    u = rng.randrange(modulus)
    if near:
        den = den % max(2, math.isqrt(modulus // 2)) or 1
        num = rng.randrange(-math.isqrt(modulus // 2) - 1, math.isqrt(modulus // 2) + 2)
        if math.gcd(den, modulus) == 1:
            u = num * pow(den, -1, modulus) % modulus
    if bound is not None and 2 * bound >= modulus:
        bound = None
    assert rational_reconstruction(u, modulus, bound) == rational_reconstruction(u, modulus, bound, reference=True)


def test_prove_checks_the_whole_vector():
    chain = CountChain(src=np.array([0, 1, 1, 2]), dst=np.array([1, 0, 2, 2]), count=np.array([3, 1, 1, 1]),
                       wins=np.array([1, 2, 0]), total=np.array([4, 4, 1]))
    transient = np.array([True, True, False])
    h, m = solve_vector(chain, transient)
    assert h[0] == absorb_fractions(chain, transient, 0)[0]
    assert (h[1], m[1]) == absorb_fractions(chain, transient, 1)
    assert absorb_modular(chain, transient, prove=True) == absorb_fractions(chain, transient)


def test_dense_core_path(monkeypatch):
    # a dense chain: every state moves to every state, so nothing is cheap to eliminate and the
    # dense LU (several panels) does the work
    monkeypatch.setattr(factor, "SPARSE_COST", 1024)
    rng = np.random.default_rng(5)
    n = dense_lu.PANEL + 12
    src = np.repeat(np.arange(n), n)
    dst = np.tile(np.arange(n), n)
    count = rng.integers(1, 4, size=n * n)
    wins = rng.integers(0, 2, size=n)
    total = wins + np.bincount(src, weights=count, minlength=n).astype(np.int64)
    chain = CountChain(src=src, dst=dst, count=count, wins=wins, total=total)
    stats: dict = {}
    h, m = absorb_modular(chain, np.ones(n, dtype=bool), stats=stats)
    assert stats["core"] > dense_lu.PANEL
    assert h == 1
    # m: checked against the integer system over Fractions for this one answer
    system = chains.integer_system(chain, np.ones(n, dtype=bool), 0)
    assert system.size == n
    x = solve_vector(chain, np.ones(n, dtype=bool))
    assert x[0][0] == h and x[1][0] == m


def steps_to_win_naive(chain, transient, start, steps):
    """P(T = t and win) by iterating the distribution in Fractions, state by state."""
    mass = {start: Fraction(1)}
    out = []
    for _ in range(steps):
        out.append(sum((m * Fraction(int(chain.wins[u]), int(chain.total[u])) for u, m in mass.items()), Fraction(0)))
        new: dict = {}
        for s, d, c in zip(chain.src.tolist(), chain.dst.tolist(), chain.count.tolist()):
            if s in mass and transient[d]:
                new[d] = new.get(d, 0) + mass[s] * Fraction(c, int(chain.total[s]))
        mass = new
    return out


@settings(max_examples=40)
@given(count_chains(max_states=8))
def test_steps_to_win_exact_and_tail(chain):
    transient = can_win(chain)
    exact = chains.steps_to_win(chain, transient, 0, steps=6)
    assert exact == steps_to_win_naive(chain, transient, 0, 6)
    lumped, lumped_transient, start, _ = lump(chain, transient, 0)
    assert chains.steps_to_win(lumped, lumped_transient, start, steps=6) == exact
    tail = chains.steps_to_win_tail(chain, transient, 0, first=1, last=6)
    assert np.allclose(tail, [float(x) for x in exact], rtol=1e-12, atol=1e-15)


@given(st.integers(-10**60, 10**60), st.integers(1, 10**6))
def test_reconstruction_with_a_small_denominator_bound(a, b):
    f = Fraction(a, b)
    modulus = chains.PRIMES[0] ** 12  # about 83 digits: a balanced reconstruction could not do it
    u = f.numerator * pow(f.denominator, -1, modulus) % modulus
    assert rational_reconstruction(u, modulus, 10**6) == f


def test_dense_core_in_small_row_blocks(monkeypatch):
    monkeypatch.setattr(factor, "SPARSE_COST", 1024)  # a core of more than a panel is left to the dense LU
    # the dense LU's trailing updates and the float32 conversion done a few rows at a time (as for
    # a core too large for a temporary of its size) give the same answers
    rng = np.random.default_rng(8)
    n = dense_lu.PANEL + 20
    src = np.repeat(np.arange(n), n)
    dst = np.tile(np.arange(n), n)
    count = rng.integers(0, 3, size=n * n)
    wins = rng.integers(1, 3, size=n)
    total = wins + np.bincount(src, weights=count, minlength=n).astype(np.int64)
    chain = CountChain(src=src, dst=dst, count=count, wins=wins, total=total)
    whole = absorb_modular(chain, np.ones(n, dtype=bool))
    monkeypatch.setattr(dense_lu, "UPDATE_ROWS", 7)
    stats: dict = {}
    assert absorb_modular(chain, np.ones(n, dtype=bool), stats=stats) == whole
    assert stats["core"] > dense_lu.PANEL
    assert whole == tuple(x[0] for x in solve_vector(chain, np.ones(n, dtype=bool)))


@st.composite
def sparse_systems(draw):
    """A random sparse integer matrix (as an IntegerSystem), a prime (small ones make zero pivots
    and cancellations common) and a threshold for the sparse elimination."""
    n = draw(st.integers(1, 40))
    density = draw(st.sampled_from([0.05, 0.15, 0.4]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((n, n)) < density, rng.integers(-6, 7, size=(n, n)), 0)
    dense[np.arange(n), np.arange(n)] += rng.integers(1, 9, size=n)
    a = sp.csr_matrix(dense.astype(np.int64))
    a.sort_indices()
    system = chains.IntegerSystem(indptr=a.indptr.astype(np.int64), indices=a.indices.astype(np.int64),
                                  data=a.data.astype(np.int64), wins=np.zeros(n, dtype=np.int64),
                                  total=np.ones(n, dtype=np.int64), start=0)
    p = draw(st.sampled_from([2, 3, 5, 7, 101, chains.PRIMES[0]]))
    max_cost = draw(st.sampled_from([0, 4, 64, 10**9]))
    return system, dense, p, max_cost, rng.integers(0, p, size=(n, 2))


@settings(max_examples=150, deadline=None)
@given(sparse_systems())
def test_numba_sparse_elimination_agrees_with_the_reference(case):
    system, dense, p, max_cost, rhs = case
    fast = chains.factor_modular(system, p, max_cost=max_cost)
    reference = chains.factor_modular(system, p, max_cost=max_cost, reference=True)
    assert (fast is None) == (reference is None)
    if fast is None:
        return
    x = chains.solve_modular(fast, rhs)
    assert np.array_equal(x, chains.solve_modular(reference, rhs))
    assert np.array_equal((dense.astype(object) @ x.astype(object)) % p, rhs.astype(object) % p)
    f = fast
    for c in range(2):  # the one-column solve (the lifting's, once h is exact) agrees column by column
        one = rhs[:, c].astype(np.int64) % p
        modular_solve.solve_mod_one(one, f.p, f.order, f.inverse, f.l_ptr, f.l_idx, f.l_val, f.u_ptr, f.u_idx,
                                    f.u_val, f.core, f.lu, f.perm, f.diagonal_inverse)
        assert np.array_equal(one, x[:, c])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 45), st.integers(0, 2**32 - 1))
def test_dense_solve_of_one_column_agrees_with_the_pair(m, seed):
    # a random LU modulo p (centred float32, as factor_modular stores it), eight rows at a time and the rest
    p = chains.PRIMES[0]
    rng = np.random.default_rng(seed)
    lu = rng.integers(-(p // 2), p // 2 + 1, size=(m, m)).astype(np.float32)
    diagonal_inverse = rng.integers(1, p, size=m)
    y = rng.integers(0, p, size=(2, m)).astype(np.float64)
    one = y[0].copy()
    modular_solve.dense_solve_pair(lu, y[0], y[1], diagonal_inverse, p)
    modular_solve.dense_solve_one(lu, one, diagonal_inverse, p)
    assert np.array_equal(one, y[0])


def _dense_solve_reference(lu, y, diagonal_inverse, p):
    """``L U x = y`` modulo p in Python ints (L unit lower, U upper, stored together in ``lu``)."""
    a = [[int(v) for v in row] for row in lu]
    x = [int(v) % p for v in y]
    m = len(x)
    for i in range(m):
        x[i] = (x[i] - sum(a[i][j] * x[j] for j in range(i))) % p
    for i in reversed(range(m)):
        x[i] = (x[i] - sum(a[i][j] * x[j] for j in range(i + 1, m))) * int(diagonal_inverse[i]) % p
    return x


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 70), st.integers(0, 2**32 - 1), st.sampled_from(["random", "extreme"]))
def test_dense_solves_agree_with_python_ints(m, seed, kind):
    # the float64 dot products of the triangular solves are exact: also with every entry and every
    # right-hand side at the largest centred residues (the bound of SPLIT)
    p = chains.PRIMES[0]
    rng = np.random.default_rng(seed)
    half = (p - 1) // 2
    if kind == "random":
        lu = rng.integers(-half, half + 1, size=(m, m))
        y = rng.integers(0, p, size=(2, m))
    else:
        lu = rng.choice([-half, half], size=(m, m))
        y = rng.choice([half, half + 1], size=(2, m))
    diagonal_inverse = rng.integers(1, p, size=m)
    expect = [_dense_solve_reference(lu, y[c], diagonal_inverse, p) for c in range(2)]
    pair = y.astype(np.float64)
    modular_solve.dense_solve_pair(lu.astype(np.float32), pair[0], pair[1], diagonal_inverse, p)
    one = y[0].astype(np.float64)
    modular_solve.dense_solve_one(lu.astype(np.float32), one, diagonal_inverse, p)
    assert (pair.astype(np.int64) % p).tolist() == expect
    assert (one.astype(np.int64) % p).tolist() == expect[0]


def test_one_column_lifting_once_p_win_is_exact():
    # every state wins with probability 1 (no state can get trapped): the h residual is zero after
    # the first step and m is lifted alone; its answer is that of the Fraction elimination
    rng = np.random.default_rng(11)
    n = 30
    src = np.concatenate([np.arange(n - 1), rng.integers(0, n, size=4 * n)])
    dst = np.concatenate([np.arange(1, n), rng.integers(0, n, size=4 * n)])
    count = rng.integers(1, 5, size=len(src))
    wins = np.zeros(n, dtype=np.int64)
    wins[n - 1] = 3
    total = wins + np.bincount(src, weights=count, minlength=n).astype(np.int64)
    chain = CountChain(src=src, dst=dst, count=count, wins=wins, total=total)
    stats: dict = {}
    answer = absorb_modular(chain, np.ones(n, dtype=bool), stats=stats)
    assert answer[0] == 1 and stats["one_column_from_step"] == 1
    assert answer == absorb_fractions(chain, np.ones(n, dtype=bool))


@given(st.integers(-(2**62 + 2**48) + 1, 2**62 + 2**48 - 1), st.sampled_from([2, 3, 101] + list(chains.PRIMES)))
def test_floor_divmod_without_integer_division(v, p):
    for w in (v, v - v % p, v - v % p + p - 1):  # any value, a multiple of p (as a Dixon residual is), one below
        if abs(w) < 2**62 + 2**48:
            assert modular_solve.floor_divmod(w, p, 1.0 / p) == divmod(w, p)


def _twin_solves(f, rhs):
    """Both columns of ``rhs`` solved by the pair twin at once and by the one-column twin each."""
    pair = np.ascontiguousarray(rhs, dtype=np.int64) % f.p
    modular_solve.solve_mod_pair(pair, f.p, f.order, f.inverse, f.l_ptr, f.l_idx, f.l_val, f.u_ptr, f.u_idx,
                                 f.u_val, f.core, f.lu, f.perm, f.diagonal_inverse)
    ones = []
    for c in range(2):
        one = np.ascontiguousarray(rhs[:, c], dtype=np.int64) % f.p
        modular_solve.solve_mod_one(one, f.p, f.order, f.inverse, f.l_ptr, f.l_idx, f.l_val, f.u_ptr, f.u_idx,
                                    f.u_val, f.core, f.lu, f.perm, f.diagonal_inverse)
        ones.append(one)
    return pair, np.stack(ones, axis=1)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("max_cost", [0, 16, 10**9])
def test_twin_modular_solves_agree_on_random_systems(seed, max_cost):
    # the twins (two columns at once, one column) on random sparse systems whose factors mix sparse
    # eliminations and a dense core of several panels: equal residues, and both solve A x = r mod p
    rng = np.random.default_rng(seed)
    n = dense_lu.PANEL + 40 + 17 * seed
    p = chains.PRIMES[seed % len(chains.PRIMES)]
    dense = np.where(rng.random((n, n)) < 0.08, rng.integers(-50, 51, size=(n, n)), 0)
    dense[np.arange(n), np.arange(n)] += rng.integers(1, 200, size=n)
    a = sp.csr_matrix(dense.astype(np.int64))
    a.sort_indices()
    system = chains.IntegerSystem(indptr=a.indptr.astype(np.int64), indices=a.indices.astype(np.int64),
                                  data=a.data.astype(np.int64), wins=np.zeros(n, dtype=np.int64),
                                  total=np.ones(n, dtype=np.int64), start=0)
    f = chains.factor_modular(system, p, max_cost=max_cost)
    assert f is not None
    rhs = rng.integers(0, p, size=(n, 2))
    pair, ones = _twin_solves(f, rhs)
    assert np.array_equal(pair, ones)
    assert np.array_equal((dense.astype(object) @ pair.astype(object)) % p, rhs.astype(object) % p)
    if max_cost == 10**9:
        assert len(f.core) == 0
    elif max_cost == 0:
        assert len(f.core) > dense_lu.PANEL
