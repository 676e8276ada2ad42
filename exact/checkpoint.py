"""Checkpoints of long exact counts: the state between two steps (a layer of the DP, a set size of
the phase tables), kept in one file and resumed.

A computation built step by step (``done`` of ``total`` steps) calls :meth:`StepCheckpoint.step`
after each one. The state is written (numpy arrays and a small JSON header in one ``.npz`` file,
written beside and renamed over after an fsync, so a process killed at any moment leaves the old
checkpoint or the new one, never a torn one) at most every ``seconds``, and at once when SIGINT or
SIGTERM arrived while the work was deferred (:mod:`sim.interrupts`): the step then raises
:class:`~sim.interrupts.Interrupted`, saying what was kept. The same computation given the same
file again starts after the saved step and ends with the counts an uninterrupted one gives (every
step is a deterministic function of the saved state). The header carries a key (engine, deck,
method...): a file of another computation is refused with one line, as is an unreadable one.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

from sim import interrupts
from sim.errors import UsageError

#: seconds between two writes of a checkpoint (the interval of every checkpointed run, one value)
DEFAULT_SECONDS = 10.0
_HEADER = "__checkpoint__"


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def in_folder(folder, key: dict, *, seconds: float | None = None, what: str = "steps") -> "StepCheckpoint":
    """The checkpoint of the computation ``key`` in ``folder``: a file named by the computation
    (its engine and deck, and a digest of the whole key), so that computations share a folder."""
    import hashlib

    text = json.dumps(key, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    name = f"{key.get('engine', 'exact')}-{key.get('suits', '')}x{key.get('ranks', '')}-{digest}.npz"
    return StepCheckpoint(Path(folder) / name, key, seconds=DEFAULT_SECONDS if seconds is None else seconds, what=what)


class StepCheckpoint:
    """The saved state of one step-by-step exact computation, in the file ``path`` (see the module
    docstring). ``key``: what makes two computations the same (plain JSON values). ``seconds``:
    the least time between two writes (0: after every step). ``what``: the steps' name in the
    messages ("layers", "set sizes")."""

    def __init__(self, path, key: dict, *, seconds: float = DEFAULT_SECONDS, what: str = "steps"):
        self.path = Path(path)
        self.key = json.loads(json.dumps(key))
        self.seconds = float(seconds)
        self.what = what
        self.writes = 0  # files written by this process (tests count them)
        self.resumed_at = 0  # the step a loaded state had reached
        self._last = time.monotonic()

    def load(self):
        """``(state, arrays)`` saved by the same computation, or None when there is no file yet."""
        if not self.path.exists():
            return None
        try:
            with open(self.path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
                head = json.loads(str(z[_HEADER]))
                arrays = {name: z[name] for name in z.files if name != _HEADER}
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise UsageError(f"cannot read the checkpoint {self.path} ({exc}): remove it to start again") from None
        if head.get("key") != self.key:
            raise UsageError(f"the checkpoint {self.path} belongs to another computation ({head.get('key')}): "
                             "remove it or give another place") from None
        self.resumed_at = int(head["done"])
        return head["state"], arrays

    def save(self, done: int, total: int | None, state: dict, arrays: dict) -> None:
        """Write the state after step ``done`` of ``total`` (replacing the previous one, atomically)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        head = json.dumps({"key": self.key, "done": done, "total": total, "state": state})
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, **{_HEADER: np.array(head)}, **arrays)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _fsync_dir(self.path.parent)
        self.writes += 1
        self._last = time.monotonic()
        self.saved = (done, total)

    def step(self, done: int, total: int | None, snapshot) -> None:
        """After step ``done`` of ``total`` (None: a computation that does not know how many steps it
        takes, as a p-adic lifting): write ``snapshot()`` (``(state, arrays)``) if it is due, or if a
        signal is waiting, and then stop with :class:`~sim.interrupts.Interrupted`."""
        stop = interrupts.pending()
        if total is not None and done >= total:
            return  # the last step: what follows it is the result (a signal now is the caller's to honour)
        if stop or time.monotonic() - self._last >= self.seconds:
            self.save(done, total, *snapshot())
        if stop:
            try:
                interrupts.check()
            except interrupts.Interrupted as exc:
                exc.saved = (f"{done}{'' if total is None else f' of {total}'} {self.what} saved to {self.path}; "
                             "run the same command to resume")
                raise

    def discard(self) -> None:
        """Remove the file, and a half-written one a killed write left beside it (the computation
        is finished and kept elsewhere)."""
        for path in [self.path, *self.path.parent.glob(f".{self.path.name}-*.tmp")]:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
