"""Provenance recorded with every result: versions, git commit, time, command line."""
from __future__ import annotations

import datetime as _dt
import functools
import importlib
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


def version() -> str:
    """The installed package's full version, from git by setuptools-scm (``0.1.0``, or past the last
    release tag ``0.1.0.post12+g1a2b3c4``); ``0+unknown`` when the package is not installed."""
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def package_version() -> str:
    """The release the package belongs to (``X.Y.Z`` of :func:`version`, the last release tag).

    It is part of every run's identity (what must match for a run to be resumed or served from the
    store), so it changes with a release, not with every commit; :func:`version` and
    :func:`git_commit` say exactly which code ran.

    >>> package_version().count(".") >= 1
    True
    """
    full = version()
    release = full.split("+")[0]
    for marker in (".post", ".dev", "a", "b", "rc"):
        release = release.split(marker)[0]
    parts = release.split(".")
    if not all(p.isdigit() for p in parts):
        return full
    while len(parts) < 3:
        parts.append("0")
    return ".".join(parts)


def _built_commit() -> str | None:
    """The commit an installed (non-editable) package was built from, from the version file that
    setuptools-scm writes at build time (``sim/_version.py``); None when there is none."""
    try:  # through sys.modules (not the package attribute), so that the module in force is read
        _version = importlib.import_module(f"{__package__}._version")
    except ImportError:
        return None
    commit = getattr(_version, "commit", None)
    if not commit:
        return None
    commit = str(commit)
    if commit.startswith("g") and len(commit) > 7:  # setuptools-scm names git nodes "g<hash>"
        commit = commit[1:]
    return commit + ("-dirty" if getattr(_version, "dirty", False) else "")


@functools.lru_cache(maxsize=1)
def git_commit() -> str:
    """The commit of the code the package runs from, as it was when this module was first imported:
    it is read once, at the start of the process (see the end of this module), so a record written at
    the end of a long run names the code that ran, not a tree changed (or checked out anew) while it ran.

    In a git checkout (the package imported from its source tree, an editable install) it is the
    checkout's ``HEAD``, ``-dirty`` when tracked files differ from it; an installed wheel reports the
    commit it was built from (written into it by setuptools-scm); "unknown" when neither is known."""
    here = Path(__file__).resolve().parent
    try:
        top = subprocess.run(["git", "-C", str(here), "rev-parse", "--show-toplevel"], capture_output=True,
                             text=True, timeout=5)
        # only a checkout of this package counts: a wheel installed in a virtual environment kept
        # inside some other git repository must not report that repository's commit
        if top.returncode == 0 and Path(top.stdout.strip()).resolve() / here.name == here:
            out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                                 text=True, timeout=5)
            if out.returncode == 0 and out.stdout.strip():
                commit = out.stdout.strip()
                dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                                       capture_output=True, text=True, timeout=5).stdout.strip()
                return commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return _built_commit() or "unknown"


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
        "version": version(),
        "git_commit": git_commit(),
        "libraries": library_versions(),
        "command_line": command_line(),
    }
    record.update(extra)
    return record


# Pin the commit now, at the start of the process: every run's record is written at its end.
git_commit()
