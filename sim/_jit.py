"""The one place where numba options are set (STUMPY style): every kernel uses :func:`jit`.

Compiled kernels are cached on disk, and numba's own check of a cached kernel looks only at the file
that defines it (numba's documented limitation: "cache invalidation fails to recognize changes in
symbols defined in another file"). A kernel here calls jitted functions and reads module constants
of other files (``odds_phase`` compiles ``phase_kernel``'s helpers into its own code), so after a
``git pull`` that changed only such a helper the cached caller would run the old code. To rule that
out, the cache lives in a directory named by a fingerprint of the source of every module kernels
are built from (:data:`KERNEL_PACKAGES`): ``<root>/__pycache__/solitaire-numba/<fingerprint>``, the
root being the directory that holds the ``sim`` package (the repository, for the editable install of
the README), or ``$NUMBA_CACHE_DIR/solitaire-numba/<fingerprint>`` where that variable is set. Any
change of any of those files starts a fresh cache (and compiles on first use again); fingerprints not
used for :data:`STALE_DAYS` days are removed. Deleting the directory is always safe.

Only the project's own functions are cached there: a cache locator (:class:`ProjectCacheLocator`),
put first in numba's list, takes the functions defined in the files of :data:`KERNEL_PACKAGES` and
leaves every other one to numba's own locators, so that a user's ``@numba.njit(cache=True)``
function is cached where numba would cache it anyway. Numba's settings (``numba.config.CACHE_DIR``)
are not changed.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import numba
from numba.core import caching

#: GIL released (so joblib threads run kernels in parallel), cached on disk.
JIT_OPTIONS = dict(nogil=True, cache=True, boundscheck=False, fastmath=False)

#: the packages whose modules define kernels or what kernels compile in (jitted helpers, constants)
KERNEL_PACKAGES = ("sim", "exact")
#: the directory that holds the packages
ROOT = Path(__file__).resolve().parent.parent
#: the caches of other fingerprints (other versions of the source) are removed after this many days
STALE_DAYS = 7


def source_fingerprint(root: Path = ROOT) -> str:
    """A digest of the path and content of every ``.py`` file of :data:`KERNEL_PACKAGES` under
    ``root``: equal exactly when no such file changed (up to a SHA-256 collision)."""
    digest = hashlib.sha256()
    for package in KERNEL_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def cache_dir(root: Path = ROOT, base: str | None = None) -> Path:
    """Where the kernels compiled from the source under ``root`` are cached: under ``base`` (numba's
    ``NUMBA_CACHE_DIR``, if set) or ``root/__pycache__``, in ``solitaire-numba/<fingerprint>``."""
    return Path(base or root / "__pycache__") / "solitaire-numba" / source_fingerprint(root)


def _remove_stale(current: Path) -> None:
    """Best effort: remove the sibling caches of other fingerprints unused for :data:`STALE_DAYS`."""
    try:
        siblings = [p for p in current.parent.iterdir() if p.is_dir() and p.name != current.name]
    except OSError:
        return
    cutoff = time.time() - STALE_DAYS * 86400
    for path in siblings:
        try:
            if path.stat().st_mtime < cutoff:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


#: where this process caches the project's kernels (set by :func:`_use_fingerprinted_cache`; None:
#: not writable, numba's own locators apply)
CACHE_DIR: Path | None = None


class ProjectCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Numba cache locator of the functions defined in the project's kernel packages: they are cached
    in :data:`CACHE_DIR` (in a subfolder per source folder, as numba's ``NUMBA_CACHE_DIR`` locator
    does); any other function is not this locator's (``from_function`` returns None)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(str(CACHE_DIR), self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self):
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        if CACHE_DIR is None or not is_project_file(py_file):
            return None
        return super().from_function(py_func, py_file)


def is_project_file(py_file) -> bool:
    """Whether ``py_file`` is a module of :data:`KERNEL_PACKAGES` under :data:`ROOT`."""
    try:
        relative = Path(py_file).resolve().relative_to(ROOT)
    except (ValueError, OSError):
        return False
    return len(relative.parts) > 1 and relative.parts[0] in KERNEL_PACKAGES


def _use_fingerprinted_cache() -> None:
    """Cache the project's kernels in :func:`cache_dir` (before any kernel below is decorated: numba
    picks a function's locator when a cached function is defined)."""
    global CACHE_DIR
    current = cache_dir(base=numba.config.CACHE_DIR or None)
    try:  # marks the fingerprint as in use (its mtime), so that other versions' runs keep it
        current.mkdir(parents=True, exist_ok=True)
        os.utime(current)
    except OSError:  # not writable: numba's own locators apply
        return
    CACHE_DIR = current
    if ProjectCacheLocator not in caching.CacheImpl._locator_classes:
        caching.CacheImpl._locator_classes.insert(0, ProjectCacheLocator)
    _remove_stale(current)


_use_fingerprinted_cache()


def _watch_compilation() -> None:
    """Keep the time spent compiling or loading kernels apart (:mod:`sim.compiling`)."""
    from . import compiling

    compiling.install()


_watch_compilation()


def jit(func=None, **overrides):
    """``numba.njit`` with the project's options."""
    options = {**JIT_OPTIONS, **overrides}
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)
