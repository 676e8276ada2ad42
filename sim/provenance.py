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


def _installed_version() -> str:
    """The version in the installed package's metadata, written when it was installed."""
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _git(*args: str) -> str | None:
    """The output of a git command run in this package's folder; None when it fails."""
    try:
        out = subprocess.run(["git", "-C", str(Path(__file__).resolve().parent), *args], capture_output=True,
                             text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


@functools.lru_cache(maxsize=1)
def _in_checkout() -> bool:
    """Whether the package runs from a git checkout of itself (its source tree, an editable install):
    a wheel installed in a virtual environment kept inside some other git repository is not one."""
    here = Path(__file__).resolve().parent
    top = _git("rev-parse", "--show-toplevel")
    return bool(top) and Path(top).resolve() / here.name == here


def _checkout_version(release: str) -> str | None:
    """The version setuptools-scm would give the checkout's ``HEAD``: the last release tag ``vX.Y.Z``
    and, past it, ``.postN+gHASH``; with no tag, ``release`` (the installed one) and N the commits of
    the history."""
    described = _git("describe", "--tags", "--long", "--match", "v[0-9]*")
    if described:  # v0.2.0-5-gabc1234
        tag, distance, node = described.rsplit("-", 2)
        release = tag.removeprefix("v")
    else:
        distance, node = _git("rev-list", "--count", "HEAD"), _git("rev-parse", "--short=9", "HEAD")
        if not distance or not node:
            return None
        node = "g" + node
    return release if distance == "0" else f"{release}.post{distance}+{node}"


@functools.lru_cache(maxsize=1)
def version() -> str:
    """The package's full version, from git by setuptools-scm (``0.1.0``, or past the last release tag
    ``0.1.0.post12+g1a2b3c4``); ``0+unknown`` when the package is not installed.

    Run from a checkout (an editable install), it is read from the checkout when the process starts,
    like :func:`git_commit`: an editable install's own metadata keeps the version of the commit it was
    installed at, however many commits later it runs."""
    installed = _installed_version()
    if _in_checkout():
        return _checkout_version(_release(installed)) or installed
    return installed


def package_version() -> str:
    """The release the package belongs to (``X.Y.Z`` of :func:`version`, the last release tag).

    It is part of every run's identity (what must match for a run to be resumed or served from the
    store), so it changes with a release, not with every commit; :func:`version` and
    :func:`git_commit` say exactly which code ran.

    >>> package_version().count(".") >= 1
    True
    """
    return _release(version())


def _release(full: str) -> str:
    """``X.Y.Z`` of a full version (``0.1.0.post3+gabc`` gives ``0.1.0``; ``0.2`` gives ``0.2.0``)."""
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
    checkout's ``HEAD``, ``-dirty`` when tracked files outside ``results/`` and ``docs/`` differ from
    it; an installed wheel reports the commit it was built from (written into it by setuptools-scm);
    "unknown" when neither is known."""
    if _in_checkout():
        commit = _git("rev-parse", "HEAD")
        if commit:
            # the code, not the data: a long run appends its finished jobs to a journal kept in the
            # repository (results/), and a record stored from it must still name a clean commit
            dirty = _git("status", "--porcelain", "--untracked-files=no", "--", ":(top)",
                         ":(top,exclude)results", ":(top,exclude)docs")
            return commit + ("-dirty" if dirty else "")
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


# Pin the commit and version now, at the start of the process: every run's record is written at its end.
git_commit()
version()
