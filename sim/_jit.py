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
"""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import numba

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


def _use_fingerprinted_cache() -> None:
    """Point numba's cache at :func:`cache_dir` (before any kernel below is decorated: numba reads
    the directory when a cached function is defined)."""
    current = cache_dir(base=numba.config.CACHE_DIR or None)
    numba.config.CACHE_DIR = str(current)
    try:  # marks the fingerprint as in use (its mtime), so that other versions' runs keep it
        current.mkdir(parents=True, exist_ok=True)
        os.utime(current)
    except OSError:  # not writable: numba falls back to its own locations
        return
    _remove_stale(current)


_use_fingerprinted_cache()


def jit(func=None, **overrides):
    """``numba.njit`` with the project's options."""
    options = {**JIT_OPTIONS, **overrides}
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)
