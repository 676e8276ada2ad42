"""The progress bar of every long computation: on stderr, shown only once it has run a few seconds,
so short runs and ``--json`` output stay clean. On a terminal it is removed when it ends; in a file
(stderr redirected to a log) its last state is left on a line of its own instead of being cleared
with spaces. Its times (elapsed, rate, remaining) leave out the time spent compiling kernels
(:mod:`sim.compiling`)."""
from __future__ import annotations

import sys

#: Seconds before a bar appears: shorter computations show nothing.
DELAY_SECONDS = 3
#: Seconds between redraws.
MIN_INTERVAL = 0.1

_last = [""]  # the last character a progress bar wrote (a bar redraws its line after a carriage return)


class _Tracked:
    """stderr as a bar writes to it, remembering the last character written (see :func:`line_open`)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        if text:
            _last[0] = text[-1]
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def line_open() -> bool:
    """Whether a progress bar is drawn on stderr's current line (it redraws the line after a carriage return): what is
    written next must start with a newline, or it is glued to the bar. A bar closed (its line cleared,
    ending with a carriage return) or never drawn leaves no line open."""
    return _last[0] not in ("", "\n", "\r")


def end_line() -> str:
    """What to write before a message on stderr so that it starts on a line of its own: a clearing of
    the bar's line on a terminal, a newline after a bar left in a file, else nothing."""
    import os

    try:
        tty = os.isatty(2)
    except OSError:
        tty = False
    if not line_open():
        return ""
    _last[0] = "\n"
    return "\r\x1b[K" if tty else "\n"


def progress_bar(total: int | None, progress: bool | None = None, *, desc: str | None = None, unit: str = "it",
                 initial: int = 0, unit_scale: bool = False, iterable=None, bar_format: str | None = None):
    """A ``tqdm`` bar on stderr for ``total`` units (``initial`` of them done already, e.g. by a run
    being resumed), used as a context manager and advanced with ``update(n)``, or iterated over when
    ``iterable`` is given (one unit an item). ``progress``: ``None`` or ``True`` shows it (after
    :data:`DELAY_SECONDS`), ``False`` never. ``bar_format``: tqdm's (e.g. a percentage only, for a bar
    advanced by fractions of a unit).

    >>> with progress_bar(3, False, desc="demo", unit="case") as bar:
    ...     bar.update(3)
    """
    from tqdm.auto import tqdm

    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or bare stream
        tty = False
    bar = tqdm(iterable, total=total, initial=initial, desc=desc, unit=unit, unit_scale=unit_scale, delay=DELAY_SECONDS,
               mininterval=MIN_INTERVAL, bar_format=bar_format,
               disable=progress is not None and not progress, file=_Tracked(sys.stderr), leave=not tty, dynamic_ncols=True)
    bar._time = _work_time  # its elapsed time, rate and remaining time leave out kernel compilation
    bar.start_t = bar.last_print_t = _work_time()
    return bar


def _work_time() -> float:
    """The bar's clock: wall time less the time spent compiling (or loading) kernels so far. A first
    run compiles them when they are first called, part way through a computation: counted, that time
    made the rate look slow and the remaining time absurd (40 minutes shown for a minute's work)."""
    import time

    from .compiling import compile_seconds

    return time.time() - compile_seconds()
