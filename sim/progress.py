"""The progress bar of every long computation: on stderr, shown only once it has run a few seconds,
removed when it ends, so short runs and ``--json`` output stay clean."""
from __future__ import annotations

import sys

#: Seconds before a bar appears: shorter computations show nothing.
DELAY_SECONDS = 3
#: Seconds between redraws.
MIN_INTERVAL = 0.1


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

    return tqdm(iterable, total=total, initial=initial, desc=desc, unit=unit, unit_scale=unit_scale, delay=DELAY_SECONDS,
                mininterval=MIN_INTERVAL, bar_format=bar_format,
                disable=progress is not None and not progress, file=sys.stderr, leave=False, dynamic_ncols=True)
