"""Exact counts past 2**64: one zeta pass per prime, joined by the Chinese remainder theorem.

Every count of a deck of ``n`` cards lies in ``[0, n!]`` (24! is about 2**79, 28! about 2**98). A
pass of :func:`exact.one_handed.zeta_kernel.zeta_pass` computes every count modulo one prime
``p < 2**31``; with primes whose product ``M`` exceeds ``n!`` the residues fix each count (the
unique value in ``[0, M)``). The joined counts are then checked: they must add up to ``n!``
(a wrong residue in any pass would give a count near ``M``, far from that) and every score must
have the parity of ``n`` (:mod:`exact.one_handed.parity`).

Passes are independent: they run on local threads (the kernels release the GIL) or as tasks on
a Dask cluster (``backend="dask"``; only this process joins and checks). With ``checkpoint=PATH``
every finished pass is stored at once (a JSON file, written beside and renamed over), and a run
given the same file again skips the passes already there: an interrupted run resumes.
"""
from __future__ import annotations

import json
import math
import os
import tempfile
import time

from sim.errors import UsageError

from exact.invariants import require
from exact.one_handed.parity import check_parity

#: the largest primes below 2**31 (products of two residues fit in 64 bits)
PRIME_LIMIT = 2**31


def _is_prime(p: int) -> bool:
    if p < 2:
        return False
    d = 2
    while d * d <= p:
        if p % d == 0:
            return False
        d += 1
    return True


def largest_primes(count: int, below: int = PRIME_LIMIT) -> list[int]:
    """The ``count`` largest primes below ``below``, largest first.

    >>> largest_primes(3)
    [2147483647, 2147483629, 2147483587]
    """
    out = []
    p = below - 1
    while len(out) < count:
        if _is_prime(p):
            out.append(p)
        p -= 1
    return out


def primes_for(n: int, primes=None) -> list[int]:
    """The fewest primes (from ``primes``, default the largest below 2**31) whose product exceeds ``n!``."""
    bound = math.factorial(n)
    pool = list(primes) if primes is not None else largest_primes(bound.bit_length() // 30 + 1)
    out, product = [], 1
    for p in pool:
        if product > bound:
            break
        out.append(p)
        product *= p
    if product <= bound:
        raise UsageError(f"the primes given multiply to {product}, not more than {n}! = {bound}: give more primes")
    return out


def crt(residues: list[int], primes: list[int]) -> int:
    """The value in ``[0, prod(primes))`` with the given residues (Garner-free, Python ints).

    >>> crt([2, 3, 2], [3, 5, 7])
    23
    """
    m = 1
    for p in primes:
        m *= p
    x = 0
    for r, p in zip(residues, primes):
        mp = m // p
        x += r * mp * pow(mp, -1, p)
    return x % m


def join(passes: dict, n: int):
    """(score counts, never-returning orders) from ``{prime: (ends, never)}``, checked."""
    primes = sorted(passes)
    counts = [crt([passes[p][0][j] for p in primes], primes) for j in range(n + 1)]
    never = crt([passes[p][1] for p in primes], primes)
    require(sum(counts) == math.factorial(n), "residue counts must add up to (S*R)! (a pass is wrong, or too few primes)")
    require(check_parity(counts, n), "a score with the wrong parity: the parity theorem fails")
    require(0 <= never <= math.factorial(n), "never-returning orders lie in [0, n!]")
    return counts, never


_PLANS: dict = {}


def _plan(suits: int, ranks: int):
    """One plan per deck shape and process (its orbit lists serve every pass)."""
    from exact.one_handed.zeta_kernel import ZetaPlan

    key = (suits, ranks)
    if key not in _PLANS:
        _PLANS.clear()  # keep one: a plan of a large deck holds its orbit lists
        _PLANS[key] = ZetaPlan(suits, ranks)
    return _PLANS[key]


def _pass_task(suits: int, ranks: int, prime: int, progress=None):
    """One pass, as a task for a worker (a thread or a Dask worker): plain ints in, plain ints out."""
    from exact.one_handed.zeta_kernel import zeta_pass

    t0 = time.thread_time()  # this thread's CPU: passes on parallel threads are timed apart
    ends, never = zeta_pass(suits, ranks, prime, plan=_plan(suits, ranks), progress=progress)
    return prime, [int(e) for e in ends], int(never), time.thread_time() - t0


def _load_checkpoint(path, key: dict) -> dict:
    if path is None or not os.path.exists(path):
        return {}
    try:
        with open(path) as fh:
            data = json.load(fh)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read the pass checkpoint {path!r} ({exc}); remove it to start again") from None
    if data.get("key") != key:
        raise UsageError(f"the pass checkpoint {path!r} belongs to another computation ({data.get('key')}); "
                         "give another file or remove it")
    return {int(p): (v["ends"], v["never"], float(v.get("cpu_seconds", 0.0))) for p, v in data.get("passes", {}).items()}


def _save_checkpoint(path, key: dict, passes: dict) -> None:
    if path is None:
        return
    data = {"key": key, "passes": {str(p): {"ends": e, "never": nv, "cpu_seconds": cpu}
                                   for p, (e, nv, cpu) in sorted(passes.items())}}
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".passes-", suffix=".json")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh)
    os.replace(tmp, path)


def zeta_counts(suits: int, ranks: int, *, primes=None, workers: int = 1, backend: str = "local", scheduler=None,
                checkpoint=None, progress=None, stats: dict | None = None):
    """Score counts and never-returning orders (Python ints) of the plain game on ``suits x ranks``:
    one zeta pass per prime, joined and checked (see the module docstring).

    ``primes``: the pool to draw from (default the largest primes below 2**31; tests force small ones).
    ``progress(done, total, work)``: ``done`` of ``total`` steps, a step being one set size of one pass
    (``total = passes * (n + 1)``; ``done`` starts at the passes already stored), ``work`` the orbit
    points of the pass under way. Parallel passes report when each ends."""
    from exact.one_handed.zeta_kernel import ZETA_ENGINE_VERSION

    from sim.checks import check_workers

    workers = check_workers(workers)
    n = suits * ranks
    use = primes_for(n, primes)
    require(all(2 < p < PRIME_LIMIT for p in use), "primes must lie between 2 and 2**31")
    key = {"engine": ZETA_ENGINE_VERSION, "suits": suits, "ranks": ranks, "primes": use}
    done = _load_checkpoint(checkpoint, key)
    todo = [p for p in use if p not in done]
    steps = n + 1
    total = len(use) * steps
    say = progress if progress is not None else (lambda done_, total_, work_: None)
    say(len(done) * steps, total, 0)

    def finished(result):
        prime, ends, never, cpu = result
        done[prime] = (ends, never, cpu)
        _save_checkpoint(checkpoint, key, done)
        say(len(done) * steps, total, 0)

    from sim.backends import check_backend

    check_backend(backend, scheduler)
    if backend == "dask":
        from sim.backends import dask_client

        client, closing = dask_client(scheduler, workers)
        try:
            from distributed import as_completed

            futures = [client.submit(_pass_task, suits, ranks, p, pure=False) for p in todo]
            for fut in as_completed(futures):
                finished(fut.result())
        finally:
            for thing in closing:
                thing.close()
    elif workers > 1 and len(todo) > 1:
        from joblib import Parallel, delayed

        for _ in _plan(suits, ranks).layers():  # built once, before the threads share it
            pass
        for result in Parallel(n_jobs=min(workers, len(todo)), backend="threading", return_as="generator")(
                delayed(_pass_task)(suits, ranks, p) for p in todo):
            finished(result)
    else:
        for p in todo:
            base = len(done) * steps
            finished(_pass_task(suits, ranks, p, progress=lambda s, _t, points, base=base: say(base + s, total, points)))
    counts, never = join({p: done[p][:2] for p in use}, n)
    if stats is not None:
        from sim.deck import Deck

        from exact.one_handed.limits import zeta_estimate

        stats.update(passes=len(use), passes_reused=len(use) - len(todo), primes=",".join(map(str, use)),
                     pass_cpu_seconds=sum(done[p][2] for p in use),
                     orbits=zeta_estimate(Deck(suits, ranks))["orbits"])
    return counts, never
