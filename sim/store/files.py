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
    ``on_wait()`` is called once if another process holds it. The lock file is removed when the
    lock is released, so no empty file is left beside a store: the holder removes it while still
    holding it, and a process that locked a file already removed (it opened it before the removal)
    sees that the path no longer names its file and locks the path anew."""
    try:
        import fcntl
    except ImportError:  # Windows: one writer is the documented rule
        yield
        return
    waited = False
    while True:
        try:
            handle = open(lock_path, "a")
        except FileNotFoundError:  # its folder (a journal) was removed as it emptied: make it again
            lock_path.parent.mkdir(exist_ok=True)
            continue
        try:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait is not None and not waited:
                    on_wait()
                waited = True
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                same = os.stat(lock_path).st_ino == os.fstat(handle.fileno()).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # the holder before us removed this file: lock the path's current file
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
                continue
            try:
                yield
            finally:
                with contextlib.suppress(OSError):
                    lock_path.unlink()
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            return
        finally:
            handle.close()


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
