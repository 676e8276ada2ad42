"""``solitaire export``: a stored result as a tidy table (CSV, JSON or parquet)."""
from __future__ import annotations

import os
import sys
import tempfile

import click

from ..options import DEFAULT_STORE, open_store


def _check_target(path: str) -> str:
    """``path`` if a table can be written there (its folder exists and is writable, it is not a
    folder itself), else a one-line :class:`~sim.errors.UsageError`; nothing is created."""
    from sim.errors import UsageError

    target = os.path.abspath(path)
    folder = os.path.dirname(target)
    if os.path.isdir(target):
        raise UsageError(f"--to {path}: is a folder; give a file name")
    if not os.path.isdir(folder):
        raise UsageError(f"--to {path}: the folder {folder} does not exist")
    if os.path.exists(target) and not os.access(target, os.W_OK):
        raise UsageError(f"--to {path}: cannot write there (permission denied)")
    try:  # a probe, removed at once: permissions alone do not tell (root, read-only mounts)
        fd, probe = tempfile.mkstemp(prefix=".export-", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"--to {path}: cannot write there ({exc.strerror or exc})") from None
    return target


def _write(target: str, content: bytes) -> None:
    """Write ``content`` to ``target`` whole or not at all (a temporary file renamed into place)."""
    from sim.errors import WriteError

    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".export-", dir=os.path.dirname(target))
        with os.fdopen(fd, "wb") as f:
            f.write(content)
        os.replace(tmp, target)
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise WriteError(f"could not write {target}: {exc.strerror or exc}") from None


@click.command("export")
@click.argument("name")
@click.option("--out", type=click.Path(dir_okay=False), default=DEFAULT_STORE, show_default=True,
              metavar="FILE", help="Results store (HDF5) to read the result from; the default is relative to the "
                   "current folder (the project's store in a checkout).")
@click.option("--to", "target", type=click.Path(), default=None, metavar="PATH",
              help="File to write (default: standard output; parquet needs a file). Its suffix (.csv, .json, "
                   ".parquet) gives the format when --format is not given.")
@click.option("--format", "fmt", type=str, default=None, metavar="csv|json|parquet",
              help="Table format (default: from --to's suffix, else csv). parquet needs pyarrow.")
def export_command(name, out, target, fmt):
    """Write a stored result as a tidy table (CSV, JSON or parquet).

    NAME is a result's name as `solitaire runs` lists it. One row per score (simulations, exact
    results), per cell (sweeps), per outcome (best-play runs: won, lost by each proof, undecided), per
    poison-set size (poison runs, whole-deck graphs) or per check (validations); every row names the
    kind, result name, game, variant, deck (suits, ranks), method and seed, the number of games or
    deck orders, and the package version and commit that computed it. Counts and seeds are written
    exactly (digits; never floats), exact probabilities as n/d.

    Example: solitaire export simulation-one-handed-4x13-20261123T123136-799f5c --to run.csv
    """
    from sim.errors import UsageError
    from sim.tables import check_format, rows, table_bytes

    fmt = check_format(fmt, target)
    if target is None and fmt == "parquet":
        raise UsageError("parquet is binary: give a file with --to")
    path = _check_target(target) if target is not None else None
    store = open_store(out, must_exist=True, write=False)
    record = store.load(name)  # an unknown name is a one-line StoreError (a UsageError)
    try:
        table = rows(record, name)
    except ValueError as exc:
        raise UsageError(f"{name}: {exc}") from None
    content = table_bytes(table, fmt)
    if path is None:
        sys.stdout.buffer.write(content) if hasattr(sys.stdout, "buffer") else sys.stdout.write(content.decode())
        sys.stdout.flush()
    else:
        _write(path, content)
        click.echo(f"wrote {len(table)} row(s) of {name} to {target} ({fmt})")
