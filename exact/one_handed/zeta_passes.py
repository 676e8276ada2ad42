"""The zeta method's passes: one pass per prime, on threads or a Dask cluster, kept in a checkpoint.

A pass (:func:`exact.one_handed.zeta_kernel.zeta_pass`) counts modulo one 31-bit prime; the primes
whose product passes ``n!`` (:func:`exact.one_handed.crt.primes_for`) are run and joined by the
Chinese remainder theorem (:func:`exact.one_handed.crt.join`, checked against ``n!`` and the parity
theorem).

Passes are independent: they run on local threads (the kernels release the GIL) or as tasks on
a Dask cluster (``backend="dask"``; only this process joins and checks). With ``checkpoint=PATH``
every finished pass is stored at once (a JSON file, written beside and renamed over), and a run
given the same file again skips the passes already there: an interrupted run resumes.
"""
from __future__ import annotations

import json
import os
import tempfile

from joblib import Parallel, delayed

from sim import compiling as work_clock  # clocks that leave out kernel compilation
from sim.backends import check_backend, dask_client
from sim.checks import check_workers
from sim.deck import Deck
from sim.errors import UsageError

from exact.invariants import require
from exact.one_handed.crt import PRIME_LIMIT, join, join_core, primes_for
from exact.one_handed.zeta_kernel import ZETA_ENGINE_VERSION, zeta_pass
from exact.one_handed.zeta_plan import ZetaPlan, zeta_estimate

_PLANS: dict = {}


def _plan(suits: int, ranks: int, mode: str = "all"):
    """One plan per deck shape, mode and process (its orbit lists serve every pass)."""
    key = (suits, ranks, mode)
    if key not in _PLANS:
        _PLANS.clear()  # keep one: a plan of a large deck holds its orbit lists
        _PLANS[key] = ZetaPlan(suits, ranks, mode)
    return _PLANS[key]


def _pass_task(suits: int, ranks: int, prime: int, progress=None, checkpoint=None, mode: str = "all"):
    """One pass, as a task for a worker (a thread or a Dask worker): plain ints in, plain ints out."""
    t0 = work_clock.thread_time()  # this thread's CPU: passes on parallel threads are timed apart
    ends, never = zeta_pass(suits, ranks, prime, plan=_plan(suits, ranks, mode), progress=progress,
                            checkpoint=checkpoint)
    return prime, [int(e) for e in ends], int(never), work_clock.thread_time() - t0


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
        fh.flush()
        os.fsync(fh.fileno())  # on disk before it replaces the old file: a crash leaves one or the other
    os.replace(tmp, path)


def zeta_counts(suits: int, ranks: int, *, primes=None, workers: int = 1, backend: str = "local", scheduler=None,
                checkpoint=None, progress=None, stats: dict | None = None, checkpoint_seconds: float | None = None,
                mode: str = "all"):
    """Score counts and never-returning orders (Python ints) of the plain game on ``suits x ranks``:
    one zeta pass per prime, joined and checked (see the module docstring). ``mode="core"``: the
    core mode's five sums (:func:`exact.one_handed.zeta_plan.end_slots`) instead of the counts.

    ``primes``: the pool to draw from (default the largest primes below 2**31; tests force small ones).
    ``progress(done, total, work)``: ``done`` of ``total`` steps, a step being one set size of one pass
    (``total = passes * (n + 1)``; ``done`` starts at the passes already stored), ``work`` the orbit
    points of the pass under way. Parallel passes report when each ends.

    ``checkpoint``: the JSON file of finished passes (see the module docstring). One pass at a time
    on local threads also keeps the pass under way beside it, after each set size (at most every
    ``checkpoint_seconds``; :mod:`exact.checkpoint`), and resumes it from there."""
    workers = check_workers(workers)
    n = suits * ranks
    use = primes_for(n, primes)
    require(all(2 < p < PRIME_LIMIT for p in use), "primes must lie between 2 and 2**31")
    key = {"engine": ZETA_ENGINE_VERSION, "suits": suits, "ranks": ranks, "primes": use}
    if mode != "all":  # the whole distribution's checkpoints keep their key
        key["mode"] = mode
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

    check_backend(backend, scheduler)
    if backend == "dask":
        client, closing = dask_client(scheduler, workers)
        try:
            from distributed import as_completed

            futures = [client.submit(_pass_task, suits, ranks, p, mode=mode, pure=False) for p in todo]
            for fut in as_completed(futures):
                finished(fut.result())
        finally:
            for thing in closing:
                thing.close()
    elif workers > 1 and len(todo) > 1:
        for _ in _plan(suits, ranks, mode).layers():  # built once, before the threads share it
            pass
        for result in Parallel(n_jobs=min(workers, len(todo)), backend="threading", return_as="generator")(
                delayed(_pass_task)(suits, ranks, p, mode=mode) for p in todo):
            finished(result)
    else:
        for p in todo:
            base = len(done) * steps
            partial = None
            if checkpoint is not None:
                from exact.checkpoint import in_folder

                partial = in_folder(os.path.dirname(os.path.abspath(checkpoint)), {**key, "engine": "zeta-pass",
                                    "engine_version": ZETA_ENGINE_VERSION, "prime": p}, seconds=checkpoint_seconds,
                                    what=f"set sizes of pass {len(done) + 1} of {len(use)} ({len(done)} passes done)")
            finished(_pass_task(suits, ranks, p, progress=lambda s, _t, points, base=base: say(base + s, total, points),
                                checkpoint=partial, mode=mode))
            if partial is not None:
                partial.discard()
    if mode == "all":
        counts, never = join({p: done[p][:2] for p in use}, n)
    else:
        counts, never = join_core({p: done[p][:2] for p in use}, n)
    if stats is not None:
        stats.update(passes=len(use), passes_reused=len(use) - len(todo), primes=",".join(map(str, use)),
                     pass_cpu_seconds=sum(done[p][2] for p in use),
                     orbits=zeta_estimate(Deck(suits, ranks))["orbits"])
    return counts, never
