"""File-system steps the store relies on: advisory locks, fsync of a file and of a folder, whether a
folder can be written, and the one-line form of an OS error."""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..checks import writable_folder
from ..errors import UsageError


def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:160]


def _writable_dir(folder: Path) -> bool:
    try:
        writable_folder(folder)
        return True
    except UsageError:
        return False


@contextlib.contextmanager
def _locked(lock_path: Path, on_wait=None):
    """An exclusive advisory lock on ``lock_path`` (POSIX ``flock``; no-op where unavailable);
    ``on_wait()`` is called once if another process holds it."""
    try:
        import fcntl
    except ImportError:  # Windows: one writer is the documented rule
        yield
        return
    with open(lock_path, "a") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    """Make the rename durable (POSIX); harmless to skip where directories can't be opened."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
