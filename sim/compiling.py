"""First runs: numba compiles each kernel on its first use (or loads it from the on-disk cache,
:mod:`sim._jit`), which can take longer than the work itself. The time spent so is kept apart here,
so that the figures a command reports (CPU seconds, seconds, time budgets) are those of the work:

* :func:`perf_counter`, :func:`process_time` and :func:`thread_time` are :mod:`time`'s clocks less
  the time spent compiling or loading kernels so far (this thread's, for ``perf_counter`` and
  ``thread_time``; every thread's for ``process_time``), so an interval measured with them leaves out
  a compilation that happened inside it;
* :func:`announce_with` names a callable told once per process when a kernel is actually compiled
  (not loaded from the cache): the console command says "compiling kernels (first run only)" then.

:mod:`sim._jit` registers :class:`_Listener` with numba's event API (``numba:compiler_lock`` is held
while a kernel is compiled or loaded, ``numba:compile`` only while it is compiled).
"""
from __future__ import annotations

import threading
import time

_local = threading.local()  # per thread: depth, started (wall, thread CPU), totals
_totals = {"process_cpu": 0.0, "wall": 0.0}
_lock = threading.Lock()
_announce = [None]
_said = [False]


def _mine():
    if not hasattr(_local, "depth"):
        _local.depth, _local.wall, _local.cpu, _local.process = 0, 0.0, 0.0, 0.0
    return _local


def perf_counter() -> float:
    """``time.perf_counter()`` less this thread's time spent compiling or loading kernels."""
    return time.perf_counter() - _mine().wall


def thread_time() -> float:
    """``time.thread_time()`` less this thread's CPU time spent compiling or loading kernels."""
    return time.thread_time() - _mine().cpu


def process_time() -> float:
    """``time.process_time()`` less the CPU time every thread spent compiling or loading kernels."""
    return time.process_time() - _totals["process_cpu"]


def compile_seconds() -> float:
    """Seconds (wall, every thread) spent compiling or loading kernels in this process so far."""
    return _totals["wall"]


def announce_with(callback) -> None:
    """``callback()`` is called once per process, when the first kernel is compiled (None: nobody)."""
    _announce[0] = callback


def _start(event) -> None:
    if event.kind == "numba:compile":
        if not _said[0] and _announce[0] is not None:
            _said[0] = True
            _announce[0]()
        return
    me = _mine()
    if me.depth == 0:
        me.t_wall, me.t_cpu, me.t_process = time.perf_counter(), time.thread_time(), time.process_time()
    me.depth += 1


def _end(event) -> None:
    if event.kind == "numba:compile":
        return
    me = _mine()
    me.depth -= 1
    if me.depth == 0:
        wall = time.perf_counter() - me.t_wall
        cpu = time.thread_time() - me.t_cpu
        me.wall += wall
        me.cpu += cpu
        with _lock:
            _totals["wall"] += wall
            _totals["process_cpu"] += cpu


def install() -> None:
    """Register the listener with numba (once; called by :mod:`sim._jit`)."""
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev):
            _start(ev)

        def on_end(self, ev):
            _end(ev)

    if getattr(install, "done", False):
        return
    listener = _Listener()
    event.register("numba:compiler_lock", listener)
    event.register("numba:compile", listener)
    install.done = True
