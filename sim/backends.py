"""Where a run's chunks are played: local threads (joblib) or a Dask cluster.

The Monte Carlo loop (:mod:`sim.montecarlo`) hands :func:`run_chunks` the chunk indices still to
play and a callback; a backend only decides where each chunk runs, and every chunk draws its own
stream (:func:`sim.rng.chunk_states`), so the counts do not depend on the backend or the number of
workers. Only the calling (parent) process sees the counts.
"""
from __future__ import annotations

import contextlib
import functools
import itertools
import json
import warnings
from typing import Callable

from . import rng
from .checks import check_workers
from .deck import Deck
from .errors import UsageError
from .games import get_game
from .variant import Variant

#: ``run(state, games) -> counts``: a game's chunk runner (see :meth:`sim.games.Game.load_runner`).
ChunkRunner = Callable[[object, int], dict]

#: Where chunks run: ``local`` (joblib threads in this process) or ``dask`` (a Dask cluster).
BACKENDS = ("local", "dask")
#: How long to try reaching a Dask scheduler before giving up.
DASK_CONNECT_TIMEOUT = "20s"


def run_chunks(runner: ChunkRunner, seed: int, plan, chunks, *, workers: int,
               on_done: Callable[[int, dict], None], backend: str = "local", scheduler=None,
               spec: tuple | None = None) -> dict:
    """Run the given chunk indices, calling ``on_done(k, counts)`` in the parent as each finishes.

    ``local``: kernels release the GIL, so joblib's threading backend runs them in parallel without
    pickling or recompiling in other processes. ``dask``: chunks are submitted to a Dask
    distributed cluster (``scheduler``: an address, a ``distributed.Client``, or None for a
    ``LocalCluster`` of ``workers`` processes); each worker builds the runner from ``spec`` (see
    :func:`play_chunk`) and draws chunk ``k``'s stream exactly as here. Only this (the parent)
    process sees the counts. Returns a few facts about where the chunks ran, for provenance.
    """
    if backend == "dask":
        return _run_chunks_dask(spec, seed, plan, iter(chunks), workers=workers, scheduler=scheduler,
                                on_done=on_done)
    from joblib import Parallel, delayed

    def task(k: int):
        state = rng.chunk_states(seed, k, 1)[0]
        return k, runner(state, plan.size(k))

    chunks = iter(chunks)
    first = next(chunks, None)
    if first is None:
        return {}
    second = next(chunks, None)
    if workers == 1 or second is None:
        for k in itertools.chain([first], [] if second is None else [second], chunks):
            on_done(*task(k))
        return {}
    chunks = itertools.chain([first, second], chunks)
    parallel = Parallel(n_jobs=workers, prefer="threads", return_as="generator_unordered")
    with warnings.catch_warnings():
        # Stopping early (a signal) leaves chunks played but not counted: they are played again
        # on resume, so joblib's warning about them says nothing the user needs.
        warnings.filterwarnings("ignore", message=r"\d+ tasks", category=UserWarning, module="joblib")
        results = parallel(delayed(task)(k) for k in chunks)
        try:
            for k, counts in results:
                on_done(k, counts)
        finally:
            results.close()
    return {}


@functools.lru_cache(maxsize=8)
def _spec_runner(suits: int, ranks: int, variant: str, options_json: str) -> ChunkRunner:
    variant = Variant.parse(variant)
    return get_game(variant.game).load_runner(Deck(suits, ranks), variant, json.loads(options_json))


def play_chunk(spec: tuple, seed: int, k: int, games: int) -> tuple[int, dict]:
    """Chunk ``k`` of a run, played wherever this is called (a Dask worker): the runner is rebuilt
    from ``spec = (suits, ranks, variant string, options JSON)`` and cached per process, and the
    stream is chunk ``k``'s, so the counts are those the local backend gets."""
    runner = _spec_runner(*spec)
    return k, runner(rng.chunk_states(seed, k, 1)[0], games)


def dask_client(scheduler, workers: int):
    """(client, things to close): a given Client is used as is; an address is connected to; None
    starts a LocalCluster of ``workers`` single-threaded processes."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise UsageError("the dask backend needs dask.distributed: pip install 'solitaire-odds[dask]'") from None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
        return client, [client, cluster]
    if isinstance(scheduler, str):
        try:
            client = Client(scheduler, timeout=DASK_CONNECT_TIMEOUT)
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot reach the Dask scheduler at {scheduler!r} ({' '.join(str(exc).split())[:120]}): "
                             "check --scheduler (e.g. tcp://host:8786)") from None
        return client, [client]
    return scheduler, []


def check_backend(backend: str, scheduler) -> None:
    """Refuse an unknown backend, or a scheduler given with the local backend."""
    if backend not in BACKENDS:
        raise UsageError(f"unknown backend {backend!r}: choose one of {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise UsageError("a Dask scheduler was given but the backend is local: add --backend dask")
    if backend == "dask":
        try:
            import distributed  # noqa: F401 (only whether it is installed)
        except ImportError:
            raise UsageError("the dask backend needs dask.distributed, which is not installed: "
                             "pip install 'solitaire-odds[dask]'") from None


@contextlib.contextmanager
def shared_scheduler(backend: str = "local", scheduler=None, workers: int | None = None):
    """For many runs in a row (a sweep's cells): yields ``get()``, the ``scheduler`` to give each
    :func:`simulate` call.

    With ``dask``, the first ``get()`` opens one client (connecting to the address, or starting a
    ``LocalCluster`` of ``workers`` processes when ``scheduler`` is None) and every run uses it, so a
    cluster is not started and stopped per run; it is closed on exit. Nothing is started if no run
    asks. With ``local``, ``get()`` returns None.
    """
    check_backend(backend, scheduler)
    opened: list = []  # [client, things to close] once opened

    def get():
        if backend != "dask" or (scheduler is not None and not isinstance(scheduler, str)):
            return scheduler
        if not opened:
            opened.extend(dask_client(scheduler, check_workers(workers)))
        return opened[0]

    try:
        yield get
    finally:
        for closable in opened[1] if opened else []:
            closable.close()


def _run_chunks_dask(spec, seed, plan, chunks, *, workers, scheduler, on_done) -> dict:
    from distributed import as_completed

    first = next(chunks, None)
    if first is None:
        return {}
    chunks = itertools.chain([first], chunks)
    client, to_close = dask_client(scheduler, workers)
    try:
        threads = sum(client.nthreads().values()) or 1
        info = {"dask_scheduler": str(client.scheduler.address), "dask_threads": threads}
        pending = iter(chunks)
        # A bounded window of futures keeps the scheduler light however many chunks there are.
        window = [client.submit(play_chunk, spec, seed, k, plan.size(k), pure=False)
                  for k in itertools.islice(pending, max(2 * threads, 4))]
        queue = as_completed(window)
        try:
            for future in queue:
                k, counts = future.result()
                future.release()
                on_done(k, counts)
                following = next(pending, None)
                if following is not None:
                    queue.add(client.submit(play_chunk, spec, seed, following, plan.size(following), pure=False))
        except BaseException:
            client.cancel(list(queue.futures))
            raise
        return info
    finally:
        for closable in to_close:
            closable.close()
