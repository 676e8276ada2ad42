"""Provenance recorded with every result: versions, git commit, time, command line."""
from __future__ import annotations

import datetime as _dt
import functools
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

PACKAGE = "solitaire-odds"
_LIBRARIES = ("numpy", "numba", "scipy", "sympy", "networkx", "h5py", "joblib")
#: Optional libraries (the ``dask`` extra): recorded when installed, left out otherwise, since a run
#: that could not use them does not depend on them.
_OPTIONAL_LIBRARIES = ("dask", "distributed")


def package_version() -> str:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "0+unknown"


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """The commit of the source tree the package runs from ("unknown" outside a checkout), as it was
    when this module was first imported: it is read once, at the start of the process (see the end of
    this module), so a record written at the end of a long run names the code that ran, not a tree
    changed (or checked out anew) while it ran."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5)
        commit = out.stdout.strip() if out.returncode == 0 else "unknown"
        if commit != "unknown":
            dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=5).stdout.strip()
            if dirty:
                commit += "-dirty"
        return commit
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def library_versions() -> dict[str, str]:
    """Versions of Python and of the libraries results depend on ("absent" for a required one that
    is missing); dask and distributed only when installed."""
    versions = {"python": sys.version.split()[0]}
    for name in _LIBRARIES + _OPTIONAL_LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if name in _LIBRARIES:
                versions[name] = "absent"
    return versions


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def command_line() -> str:
    """The command that ran, as typed: an absolute path to the program (an installed entry point such
    as ``/home/me/.venv/bin/solitaire``) is cut to its name, so stored records name no local folders."""
    program = sys.argv[0] if sys.argv else ""
    if os.path.isabs(program):
        program = os.path.basename(program)
    return " ".join([program] + sys.argv[1:])


def collect(**extra) -> dict:
    """A provenance record; ``extra`` adds run-specific entries (times, chunk plan...)."""
    record = {
        "package_version": package_version(),
        "git_commit": git_commit(),
        "libraries": library_versions(),
        "command_line": command_line(),
    }
    record.update(extra)
    return record


# Pin the commit now, at the start of the process: every run's record is written at its end.
git_commit()
