"""p-adic (Dixon) lifting and rational reconstruction: the steps that turn solves modulo a prime into
exact rationals."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from exact.hand.chains.modular_solve import floor_divmod, solve_modular
from exact.hand.chains.system import IntegerSystem, ModularFactors
from sim._jit import jit


@jit
def _lift_pair(indptr, indices, data, total, r_h, r_m, x, p, rhs):
    """One Dixon step of both systems in one pass over ``A``, in place: the ``m`` step of the last
    digit ``x_m = x[:, 1]`` and the ``h`` step of the new digit ``x_h = x[:, 0]`` (each row's update
    reads only ``x``, both digits of a state in one cache line), then the next right-hand sides:
    ``r_m = (r_m - A x_m) / p``, ``r_h = (r_h - A x_h) / p``, ``r_m += D x_h``,
    ``rhs = (r_h, r_m) mod p``. False if a residual is not divisible by p (a bug)."""
    ok = True
    pinv = 1.0 / np.float64(p)
    for i in range(r_h.shape[0]):
        ui = np.uint64(i)
        acc_h = 0
        acc_m = 0
        for e in range(np.uint64(indptr[ui]), np.uint64(indptr[ui + np.uint64(1)])):
            ue = np.uint64(e)
            a = np.int64(data[ue])
            j = np.uint64(indices[ue])
            acc_h += a * x[j, 0]
            acc_m += a * x[j, 1]
        v_m = r_m[ui] - acc_m
        v_h = r_h[ui] - acc_h
        q_h, rest_h = floor_divmod(v_h, p, pinv)
        q_m, rest_m = floor_divmod(v_m, p, pinv)
        if rest_h != 0 or rest_m != 0:
            ok = False
        r_h[ui] = q_h
        r_m[ui] = q_m + total[ui] * x[ui, 0]
        rhs[ui, 0] = floor_divmod(r_h[ui], p, pinv)[1]
        rhs[ui, 1] = floor_divmod(r_m[ui], p, pinv)[1]
    return ok


@jit
def _lift_one(indptr, indices, data, r, x, p, rhs):
    """One Dixon step of one system in one pass over ``A``, in place: ``r = (r - A x) / p``,
    ``rhs = r mod p``. False if a residual is not divisible by p (a bug)."""
    ok = True
    pinv = 1.0 / np.float64(p)
    for i in range(r.shape[0]):
        ui = np.uint64(i)
        acc = 0
        for e in range(np.uint64(indptr[ui]), np.uint64(indptr[ui + np.uint64(1)])):
            ue = np.uint64(e)
            acc += np.int64(data[ue]) * x[np.uint64(indices[ue])]
        q, rest = floor_divmod(r[ui] - acc, p, pinv)
        if rest != 0:
            ok = False
        r[ui] = q
        rhs[ui] = floor_divmod(q, p, pinv)[1]
    return ok


def _in_elimination_order(system: IntegerSystem, factors: ModularFactors):
    """The system and its factors with the states renumbered in elimination order (the core last,
    in its order): the same solutions, permuted. A lifting step's sparse passes then touch nearby
    rows (3x4 ``step7=off``: a solve 84 -> 70 ms)."""
    n = system.size
    old = np.concatenate([factors.order, factors.core]).astype(np.int64)  # old state of each new number
    new = np.empty(n, dtype=np.int64)
    new[old] = np.arange(n)
    a = sp.csr_matrix((system.data, system.indices, system.indptr), shape=(n, n))[old][:, old].tocsr()
    a.sort_indices()
    renumbered = IntegerSystem(indptr=a.indptr.astype(np.int64), indices=a.indices.astype(np.int64),
                               data=a.data.astype(np.int64), wins=system.wins[old], total=system.total[old],
                               start=int(new[system.start]))
    f = factors
    eliminated = len(f.order)
    return renumbered, ModularFactors(
        p=f.p, order=np.arange(eliminated, dtype=np.int64), inverse=f.inverse, l_ptr=f.l_ptr,
        l_idx=new[f.l_idx].astype(np.int32), l_val=f.l_val, u_ptr=f.u_ptr, u_idx=new[f.u_idx].astype(np.int32),
        u_val=f.u_val, core=np.arange(eliminated, n, dtype=np.int64), lu=f.lu, perm=f.perm,
        diagonal_inverse=f.diagonal_inverse)


def _lehmer_batch(r0: int, r1: int):
    """The cofactor matrix ``(A, B, C, D)`` of the first Euclid steps on ``(r0, r1)`` (``r0 > r1 > 0``)
    whose quotients the leading 62 bits decide (Knuth's Algorithm L: a step is taken only when the
    quotients of both bracketing pairs agree, so every one is the true quotient), or None when
    not even one step is decided that way. Then ``(A r0 + B r1, C r0 + D r1)`` are the remainders
    a few steps on."""
    shift = max(r0.bit_length() - 62, 0)
    a, b = r0 >> shift, r1 >> shift
    A, B, C, D = 1, 0, 0, 1
    while b + C != 0 and b + D != 0:
        q = (a + A) // (b + C)
        if q != (a + B) // (b + D):
            break
        A, C = C, A - q * C
        B, D = D, B - q * D
        a, b = b, a - q * b
    return None if B == 0 else (A, B, C, D)


def rational_reconstruction(u: int, modulus: int, denominator_bound: int | None = None, *, reference: bool = False):
    """The fraction ``a/b`` with ``a = b u (mod modulus)``, ``0 < b <= D`` and ``|a| <= N``, where
    ``2 N D < modulus``, or None. By default ``N = D = sqrt(modulus / 2)``; a small
    ``denominator_bound`` ``D`` (a denominator known up to a small factor) leaves ``N`` the rest,
    so that about half the digits suffice. The answer is unique when it exists.

    The extended Euclid steps are taken in batches decided by the leading 62 bits
    (:func:`_lehmer_batch`: one pass over the big numbers for some 18 steps; 3x4 ``step7=off``'s
    85,000-digit moduli about 5 times faster), a batch kept only when its last remainder is still
    above ``N`` (the remainders decrease, so none before it was at most ``N``), the last steps one
    at a time; ``reference=True`` takes every step one at a time (the plain algorithm)."""
    if denominator_bound is None:
        bound = den_bound = math.isqrt(modulus // 2)
    else:
        den_bound = denominator_bound
        bound = (modulus - 1) // (2 * den_bound)
    r0, r1 = modulus, u % modulus
    t0, t1 = 0, 1
    while r1 > bound:
        batch = None if reference or r1.bit_length() < 256 else _lehmer_batch(r0, r1)
        if batch is not None:
            A, B, C, D = batch
            n0, n1 = A * r0 + B * r1, C * r0 + D * r1
            if n1 > bound:
                r0, r1 = n0, n1
                t0, t1 = A * t0 + B * t1, C * t0 + D * t1
                continue
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        t0, t1 = t1, t0 - q * t1
    if t1 == 0 or abs(t1) > den_bound or math.gcd(r1, t1) != 1:
        return None
    return Fraction(r1, t1)


#: With P(win) = a/d known, E[T 1_win] d**2 is reconstructed with a denominator of at most this
#: (its denominator divides det(A)**2, nearly always d**2 already): half the digits of a balanced
#: reconstruction. A balanced one is tried too, so a larger denominator is found all the same.
KNOWN_DENOMINATOR_SLACK = 1 << 64


class _Digits:
    """The p-adic expansion of one unknown, as a Python int, with a candidate fraction."""

    def __init__(self, p: int):
        self.p, self.value, self.power, self.steps = p, 0, 1, 0
        self.pending: list = []
        self.candidate: Fraction | None = None
        self.found_at = 0

    def push(self, digit: int) -> None:
        self.pending.append(int(digit))

    def flush(self) -> None:
        if not self.pending:
            return
        chunk = 0
        for d in reversed(self.pending):
            chunk = chunk * self.p + d
        self.value += chunk * self.power
        self.power *= self.p ** len(self.pending)
        self.steps += len(self.pending)
        self.pending = []

    def agrees(self, fraction: Fraction) -> bool:
        return (fraction.denominator * self.value - fraction.numerator) % self.power == 0

    def state(self) -> dict:
        """What a checkpoint keeps (plain JSON: the expansion in hexadecimal); the pending digits
        are folded in first, which changes nothing a later :meth:`flush` would not."""
        self.flush()
        return {"value": format(self.value, "x"), "steps": self.steps, "found_at": self.found_at,
                "candidate": fraction_state(self.candidate)}

    @classmethod
    def from_state(cls, p: int, state: dict) -> "_Digits":
        """The expansion :meth:`state` described, for the same prime."""
        digits = cls(p)
        digits.value, digits.steps = int(state["value"], 16), int(state["steps"])
        digits.power = p ** digits.steps
        digits.found_at = int(state["found_at"])
        digits.candidate = fraction_from_state(state["candidate"])
        return digits


def fraction_state(value: Fraction | None):
    """A fraction (or None) as plain JSON, read back by :func:`fraction_from_state`."""
    return None if value is None else [format(value.numerator, "x"), format(value.denominator, "x")]


def fraction_from_state(state) -> Fraction | None:
    return None if state is None else Fraction(int(state[0], 16), int(state[1], 16))


def _lift_vector(system: IntegerSystem, factors: ModularFactors, rhs: list) -> list:
    """The exact solution of ``A x = rhs`` (Python ints), every entry lifted p-adically; returned
    only once ``A x = rhs`` holds over the integers (the check that makes it a proof)."""
    p, n = factors.p, system.size
    indptr, indices, data = system.indptr.tolist(), system.indices.tolist(), system.data.tolist()

    def times_a(x):
        return [sum(data[e] * x[indices[e]] for e in range(indptr[i], indptr[i + 1])) for i in range(n)]

    r = list(rhs)
    value, power, steps = [0] * n, 1, 0
    while True:
        steps += 1
        xs = solve_modular(factors, np.array([v % p for v in r], dtype=np.int64)).tolist()
        value = [v + d * power for v, d in zip(value, xs)]
        power *= p
        r = [(a - b) // p for a, b in zip(r, times_a(xs))]
        if steps % 8:
            continue
        denominator, numerators, bound = 1, [], math.isqrt(power // 2)
        for v in value:
            scaled = v * denominator % power
            scaled = scaled - power if scaled > power // 2 else scaled
            if abs(scaled) > bound:  # not small yet: this entry needs more denominator
                f = rational_reconstruction(v * denominator, power)
                if f is None:
                    break
                denominator *= f.denominator
                scaled = v * denominator % power
                scaled = scaled - power if scaled > power // 2 else scaled
                numerators = [x * f.denominator for x in numerators]
            numerators.append(scaled)
        else:
            if times_a(numerators) == [denominator * b for b in rhs]:
                return [Fraction(x, denominator) for x in numerators]
