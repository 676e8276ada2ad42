"""The fast path: ``P(win)`` and ``E[T 1_win]`` of a chain by one modular factorization and p-adic
lifting, checked modulo a second prime (and, with ``prove=True``, over the integers)."""
from __future__ import annotations

import contextlib
import math
import zlib
from fractions import Fraction

import numpy as np

from sim import compiling as work_clock  # clocks that leave out kernel compilation
from sim import interrupts
from sim.errors import UsageError
from sim.fractions_text import fraction_text
from exact.hand.chains.chain import CountChain
from exact.hand.chains.dixon import (KNOWN_DENOMINATOR_SLACK, _Digits, _in_elimination_order, _lift_one, _lift_pair,
                                     _lift_vector, fraction_from_state, fraction_state, rational_reconstruction)
from exact.hand.chains.factor import factor_modular
from exact.hand.chains.modular_solve import solve_mod_one, solve_mod_pair, solve_modular
from exact.hand.chains.system import PRIMES, integer_system
from exact.invariants import require


def absorb_modular(chain: CountChain, transient, start: int = 0, *, prove: bool = False,
                   margin_digits: int = 200, stats: dict | None = None, progress=None, checkpoint=None):
    """``(h[start], m[start])`` = ``(P(win), E[T 1_win])`` exactly, by one modular factorization and
    p-adic lifting (see the module docstring). ``stats`` (a dict), if given, receives the unknowns,
    the core size, the lifting steps and the digits of the answers; ``progress`` (a callable), if
    given, is called with a dict of what is known so far after the factorization and at every
    reconstruction attempt (what a run cut short by a time limit got to).

    ``checkpoint`` (a :class:`exact.checkpoint.StepCheckpoint`), if given, keeps the lifting: its
    state after a step (the residuals, the last digits, the expansions so far and their candidates)
    is written every few seconds and when SIGINT or SIGTERM arrives (signals are deferred to the end
    of a step while it lifts), and a saved state is resumed. The factorization is deterministic, so
    a resumed run factors the same system modulo the same prime and continues with the next step:
    the digits, and so the answers, are those of an uninterrupted run. A state saved for another
    system is refused (the system's size, prime and a checksum of its counts are kept with it).

    Agrees exactly with :func:`absorb_fractions` (tested on every Hand Solitaire deck up to 10 cards).
    """
    transient = np.asarray(transient, dtype=bool)
    if not transient[start]:
        return Fraction(0), Fraction(0)
    t0 = work_clock.process_time()
    system = integer_system(chain, transient, start)
    primes = iter(PRIMES)
    factors = None
    while factors is None:
        p = next(primes, None)
        require(p is not None, "the system is singular modulo every prime tried")
        factors = factor_modular(system, p, progress=progress)
    t_factor = work_clock.process_time() - t0
    if progress is not None:
        progress({"phase": "factored", "system_size": system.size, "core": len(factors.core),
                  "eliminated": len(factors.order), "l_entries": len(factors.l_idx), "factor_cpu_seconds": t_factor})
    system, factors = _in_elimination_order(system, factors)
    p, n, s = factors.p, system.size, system.start
    f = factors
    solve = lambda r: solve_mod_pair(r, p, f.order, f.inverse, f.l_ptr, f.l_idx, f.l_val, f.u_ptr, f.u_idx,  # noqa: E731
                                 f.u_val, f.core, f.lu, f.perm, f.diagonal_inverse)
    solve_one = lambda r: solve_mod_one(r, p, f.order, f.inverse, f.l_ptr, f.l_idx, f.l_val, f.u_ptr,  # noqa: E731
                                         f.u_idx, f.u_val, f.core, f.lu, f.perm, f.diagonal_inverse)
    # The m system lags one step behind: its right-hand side D h needs the h digit of the same step,
    # so one solve with two columns gives the next h digit and the current m digit together.
    fingerprint = _fingerprint(system, p) if checkpoint is not None else None
    saved = checkpoint.load() if checkpoint is not None else None
    r_h = system.wins.copy()
    r_m = np.zeros(n, dtype=np.int64)
    x = np.zeros((n, 2), dtype=np.int64)  # the digits (x_h, x_m) of a step
    if saved is None:  # a resumed lifting takes its digits from the saved state instead
        x[:, 0] = solve_modular(factors, r_h)
    # A's indices and counts as int32 when they fit (half the bytes a step streams; the products are
    # taken in int64 all the same)
    small = len(system.data) == 0 or int(np.abs(system.data).max()) < 2**31
    indices = system.indices.astype(np.int32) if small else system.indices
    data = system.data.astype(np.int32) if small else system.data
    rhs = np.empty((n, 2), dtype=np.int64)
    digits_h, digits_m = _Digits(p), _Digits(p)
    margin_steps = max(4, math.ceil(margin_digits / math.log10(p)))
    steps, next_check, t_reconstruct = 0, 16, 0.0
    accepted_h = accepted_m = None
    # x_m = 0 before the first step: r_m is unchanged by it, so every step is one fused pass
    x_m = r_one = one_column_from = None
    if saved is not None:
        state, arrays = saved
        if state["fingerprint"] != fingerprint:
            raise UsageError(f"the lifting saved in {checkpoint.path} is of another system (made by another version?): "
                             "remove it to start the lifting again")
        steps, next_check, t_reconstruct = int(state["steps"]), int(state["next_check"]), float(state["reconstruct"])
        digits_h, digits_m = _Digits.from_state(p, state["digits_h"]), _Digits.from_state(p, state["digits_m"])
        accepted_h, accepted_m = fraction_from_state(state["accepted_h"]), fraction_from_state(state["accepted_m"])
        r_h, r_m = arrays["r_h"], arrays["r_m"]
        if state["one_column_from_step"] is None:
            x = arrays["x"]
        else:
            x_m, r_one = arrays["x_m"], np.empty(n, dtype=np.int64)
            one_column_from = int(state["one_column_from_step"])
            del x, rhs

    def snapshot():
        state = {"fingerprint": fingerprint, "steps": steps, "next_check": next_check, "reconstruct": t_reconstruct,
                 "digits_h": digits_h.state(), "digits_m": digits_m.state(), "accepted_h": fraction_state(accepted_h),
                 "accepted_m": fraction_state(accepted_m), "one_column_from_step": one_column_from}
        arrays = {"r_h": r_h, "r_m": r_m, **({"x": x} if x_m is None else {"x_m": x_m})}
        return state, arrays

    with (interrupts.deferred() if checkpoint is not None else contextlib.nullcontext()):
        while accepted_h is None or accepted_m is None:
            if x_m is None:
                require(_lift_pair(system.indptr, indices, data, system.total, r_h, r_m, x, p, rhs),
                        "a Dixon residual is divisible by p")
                solve(rhs)
                digits_h.push(x[s, 0])
                digits_m.push(rhs[s, 1])
                x[:] = rhs
                if not r_h.any():
                    # h is solved exactly (an integer vector, e.g. P(win) = 1 everywhere): every later h
                    # digit is 0 and adds nothing to m's right-hand side, so m is lifted alone, one column
                    x_m, r_one = np.ascontiguousarray(x[:, 1]), np.empty(n, dtype=np.int64)
                    del x, rhs
                    one_column_from = steps + 1
            else:
                require(_lift_one(system.indptr, indices, data, r_m, x_m, p, r_one), "a Dixon residual is divisible by p")
                solve_one(r_one)
                digits_h.push(0)
                digits_m.push(r_one[s])
                x_m, r_one = r_one, x_m
            steps += 1
            if steps >= next_check:
                next_check = steps + max(16, steps // 32)
                for digits, which in ((digits_h, "h"), (digits_m, "m")):
                    if (accepted_h if which == "h" else accepted_m) is not None:
                        continue
                    digits.flush()
                    if digits.candidate is not None and digits.agrees(digits.candidate):
                        if digits.steps - digits.found_at >= margin_steps:
                            if which == "h":
                                accepted_h = digits.candidate
                            else:
                                accepted_m = digits.candidate
                        continue
                    t_start = work_clock.process_time()
                    digits.candidate = rational_reconstruction(digits.value, digits.power)
                    if digits.candidate is None and which == "m" and accepted_h is not None:
                        # m's denominator divides det(A)**2: try p_win's denominator squared, times a little
                        square = accepted_h.denominator ** 2
                        scaled = rational_reconstruction(digits.value * square % digits.power, digits.power,
                                                         KNOWN_DENOMINATOR_SLACK)
                        digits.candidate = None if scaled is None else scaled / square
                    digits.found_at = digits.steps
                    t_reconstruct += work_clock.process_time() - t_start
                if progress is not None:
                    progress({"phase": "lifting", "steps": steps, "digits": int(steps * math.log10(p)),
                              "p_win_found": accepted_h is not None, "lift_cpu_seconds": work_clock.process_time() - t0 - t_factor})
                # a candidate is accepted as soon as the margin has passed, not at the next regular check
                pending = [d.found_at + margin_steps for d, accepted in ((digits_h, accepted_h), (digits_m, accepted_m))
                           if accepted is None and d.candidate is not None]
                if pending:
                    next_check = min(next_check, max(steps + 1, min(pending)))
            if checkpoint is not None:
                checkpoint.step(steps, None, snapshot)
        if checkpoint is not None:
            checkpoint.save(steps, None, *snapshot())  # a stop during the check below resumes there
            checkpoint.step(steps, None, snapshot)  # a signal that came meanwhile stops here, saying so
    if stats is not None and one_column_from is not None:
        stats["one_column_from_step"] = one_column_from
    t_lift = work_clock.process_time() - t0 - t_factor
    core, eliminated = len(factors.core), len(factors.order)
    del factors, f, solve, solve_one  # the first factorization is done with: the second one needs the memory
    # a second prime, a fresh factorization: the answers must satisfy the system modulo q too
    for q in PRIMES:
        if q == p or accepted_h.denominator % q == 0 or accepted_m.denominator % q == 0:
            continue
        second = factor_modular(system, q)
        if second is None:
            continue
        h_q = solve_modular(second, system.wins)
        m_q = solve_modular(second, system.total * h_q % q)
        require(h_q[s] == accepted_h.numerator * pow(accepted_h.denominator, -1, q) % q,
                "P(win) checked modulo a second prime")
        require(m_q[s] == accepted_m.numerator * pow(accepted_m.denominator, -1, q) % q,
                "E[T 1_win] checked modulo a second prime")
        break
    else:
        require(False, "no second prime to check the answer with")
    if prove:
        _prove(chain, transient, start, accepted_h, accepted_m)
    if stats is not None:
        stats.update(system_size=n, core=core, eliminated=eliminated, prime=p, steps=steps,
                     digits_p_win=len(fraction_text(accepted_h).split("/")[1]),
                     digits_m=len(fraction_text(accepted_m).split("/")[1]), factor_cpu_seconds=t_factor,
                     lift_cpu_seconds=t_lift, reconstruct_cpu_seconds=t_reconstruct,
                     check_cpu_seconds=work_clock.process_time() - t0 - t_factor - t_lift)
    return accepted_h, accepted_m


def _prove(chain, transient, start, h_start, m_start):
    """Check ``A h = wins`` and ``A m = D h`` over the integers for the whole solution vectors (found
    by :func:`solve_vector`); their start entries must be the accepted answers."""
    h, m = solve_vector(chain, transient)
    index = int(np.flatnonzero(np.flatnonzero(transient) == start)[0])
    require(h[index] == h_start and m[index] == m_start, "the proof is of the answer given")


def solve_vector(chain: CountChain, transient):
    """The whole vectors ``h`` and ``m`` (lists of Fractions, transient states in increasing order),
    each checked over the integers: ``A h = wins`` and ``A m = D h``. Slow (every entry is lifted);
    used by ``prove=True``."""
    transient = np.asarray(transient, dtype=bool)
    system = integer_system(chain, transient, int(np.flatnonzero(transient)[0]))
    factors = None
    for p in PRIMES:
        factors = factor_modular(system, p)
        if factors is not None:
            break
    require(factors is not None, "the system is singular modulo every prime tried")
    h = _lift_vector(system, factors, [int(w) for w in system.wins])
    den = math.lcm(*(f.denominator for f in h))
    total = [int(t) for t in system.total]
    m_scaled = _lift_vector(system, factors, [t * (x * den).numerator for t, x in zip(total, h)])
    return h, [x / den for x in m_scaled]


def _fingerprint(system, p: int) -> list:
    """What identifies a lifting's system for its checkpoint: the size, the start, the prime and a
    checksum of every count (the saved digits are only valid for exactly this system)."""
    crc = 0
    for part in (system.indptr, system.indices, system.data, system.wins, system.total):
        crc = zlib.crc32(np.ascontiguousarray(part, dtype=np.int64).tobytes(), crc)
    return [int(system.size), int(system.start), int(p), crc]
