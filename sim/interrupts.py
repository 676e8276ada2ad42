"""Ctrl-C (SIGINT) and SIGTERM, turned into one exception raised where it is safe to stop.

The console command installs :func:`handling_signals` for SIGINT and SIGTERM (SIGTERM is what
``timeout``, systemd and container runtimes send, and by default it would kill the process with
nothing saved). A Python signal handler runs between two bytecodes of the main thread, and that may
be inside a Python callback of compiled (numba) code: an exception raised there becomes a
``SystemError`` or worse, a crash. So the handler never raises:

* inside :func:`deferred` (work that saves its progress: a Monte Carlo run's chunks, a validation's
  cases) the signal is recorded, and :func:`check`, called where stopping is safe (between two
  chunks, after the finished one is counted), raises :class:`Interrupted`; the run saves its
  checkpoint on the way out and the CLI prints one line saying what was saved;
* elsewhere (work with nothing to save: an exact count, a search) the process prints one line and
  exits at once with status 128 + the signal number, as does a second signal while one is pending
  (but not the same signal delivered twice within :data:`DUPLICATE_SECONDS`, as under ``timeout``).
  Files are safe either way: every write to a store is atomic (a killed write leaves the old file).

Without :func:`handling_signals` (the Python API), Python's own Ctrl-C handling applies
(``KeyboardInterrupt``), and a run still writes its checkpoint before the exception propagates.
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

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
_received_at = [0.0]  # when the pending signal came (time.monotonic())
_depth = [0]
#: A second delivery of the pending signal within this many seconds is the same request, not a
#: second one: GNU ``timeout`` sends its signal to the process and to its process group, so a
#: process run under it receives SIGTERM twice at once.
DUPLICATE_SECONDS = 1.0


_prefix = ["interrupted"]
_note = [""]  # what an immediate stop keeps (see :func:`keeping`)


@contextlib.contextmanager
def keeping(note: str):
    """While the block runs, an immediate stop (work that saves as it goes, not at a safe point: the
    finished passes or jobs of an exact count, each written to disk as it ends) says ``note`` after
    ``interrupted`` (e.g. ``": finished passes are kept in DIR; run the same command to resume"``)."""
    previous = _note[0]
    _note[0] = note
    try:
        yield
    finally:
        _note[0] = previous


def forget() -> None:
    """Drop a signal that arrived while deferred, once the work it asked to stop has finished (and
    been kept) anyway."""
    _pending.clear()


def pending() -> bool:
    """Whether a signal arrived while deferred and :func:`check` has not raised it yet."""
    return bool(_pending)


def _handler(signum, frame):
    if _depth[0] > 0 and not _pending:
        _pending.append(signum)  # raised by check() where stopping is safe
        _received_at[0] = time.monotonic()
        return
    if _pending and signum == _pending[0] and time.monotonic() - _received_at[0] < DUPLICATE_SECONDS:
        return  # the same signal delivered twice (see DUPLICATE_SECONDS)
    again = " again: stopped at once, the last checkpoint kept" if _pending else ""
    from .progress import end_line

    # on a line of its own: over a progress bar on a terminal, after it in a file
    os.write(2, f"{end_line()}{_prefix[0]}{again}{_note[0]}\n".encode())
    os._exit(128 + signum)


@contextlib.contextmanager
def handling_signals(prog: str | None = None):
    """While the block runs (in the main thread; a no-op elsewhere), SIGINT and SIGTERM stop the
    work as the module docstring says; ``prog`` prefixes the line printed on an immediate stop. The
    previous handlers are restored afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    _prefix[0] = f"{prog}: interrupted" if prog else "interrupted"
    for s in SIGNALS:
        signal.signal(s, _handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        _pending.clear()


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
