"""Ctrl-C (SIGINT) and SIGTERM, turned into one exception raised where it is safe to stop.

The console command installs :func:`handling_signals`: both signals then raise :class:`Interrupted`
(SIGTERM is what ``timeout``, systemd and container runtimes send, and by default it would kill the
process with nothing saved). Inside :func:`deferred` (a Monte Carlo run writing checkpoints) the
signal is only recorded, and :func:`check` raises it between two chunks, after the finished chunk
has been counted, so the checkpoint written on the way out holds every chunk that finished and the
exception never surfaces inside a compiled kernel. A second signal while one is pending stops at
once.

Without :func:`handling_signals` (the Python API), Python's own Ctrl-C handling applies
(``KeyboardInterrupt``), and a run still writes its checkpoint before the exception propagates.
"""
from __future__ import annotations

import contextlib
import signal
import threading

#: Signals turned into :class:`Interrupted` by :func:`handling_signals`.
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """A run was stopped by SIGINT or SIGTERM. ``saved``: what was kept (set by the run that wrote
    a checkpoint on the way out, e.g. ``"227 of 763 chunks saved to FILE"``), or None.

    A ``BaseException`` (like ``KeyboardInterrupt``), so ``except Exception`` never swallows it.
    """

    def __init__(self, signum: int, saved: str | None = None):
        super().__init__(signum)
        self.signum = int(signum)
        self.saved = saved

    @property
    def exit_status(self) -> int:
        """The shell's convention: 128 + the signal number (130 for SIGINT, 143 for SIGTERM)."""
        return 128 + self.signum

    @property
    def signal_name(self) -> str:
        return signal.Signals(self.signum).name

    def __str__(self) -> str:
        return f"interrupted ({self.signal_name})" + (f": {self.saved}" if self.saved else "")


_pending: list[int] = []  # signals received while deferred (main thread only)
_depth = [0]


def _handler(signum, frame):
    if _depth[0] > 0 and not _pending:
        _pending.append(signum)  # raised by check() between two chunks
        return
    _pending.clear()
    raise Interrupted(signum)


@contextlib.contextmanager
def handling_signals():
    """SIGINT and SIGTERM raise :class:`Interrupted` in the main thread while the block runs (no-op
    outside the main thread); the previous handlers are restored afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    for s in SIGNALS:
        signal.signal(s, _handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        _pending.clear()


def installed() -> bool:
    """Whether :func:`handling_signals` is in force (in the main thread)."""
    return threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is _handler


@contextlib.contextmanager
def deferred():
    """Within the block, a signal handled by :func:`handling_signals` is recorded, not raised; call
    :func:`check` where stopping is safe."""
    _depth[0] += 1
    try:
        yield
    finally:
        _depth[0] -= 1
    if _depth[0] == 0:
        check()


def check() -> None:
    """Raise :class:`Interrupted` if a signal arrived while deferred."""
    if _pending:
        signum = _pending.pop()
        _pending.clear()
        raise Interrupted(signum)
