"""``solitaire report``: the main job. Compute what the report needs (:mod:`solitaire.main_job`, reusing
the store) and write it (:mod:`solitaire.report`)."""
from __future__ import annotations

from pathlib import Path

import click
from click.core import ParameterSource

from sim.checks import check_workers, writable_folder
from sim.errors import UsageError

from ..options import DEFAULT_STORE, SEED, open_store, workers_option


@click.command("report")
@click.option("--out", type=click.Path(dir_okay=False), default=DEFAULT_STORE, show_default=True, metavar="FILE",
              help="Results store to read (and fill). Paths are relative to the current folder; without --out "
                   "the project's store must exist there (run in a checkout), so the main job is never "
                   "recomputed into a new folder unasked.")
@click.option("--dir", "report_dir", type=click.Path(file_okay=False), default="results", show_default=True,
              help="Where README.md and the figures are written (relative to the current folder).")
@click.option("--compute/--no-compute", default=True, show_default=True,
              help="First run the default computations the store lacks (minutes on a laptop); "
                   "--no-compute only renders what is stored.")
@click.option("--seed", type=SEED, default=None,
              help="Seed of the computations --compute runs. Default: 20261123, and 1 for the standard-deck "
                   "One-Handed runs (20261123 is scripts/standard_deck_long_run.sh's seed, so those games would be "
                   "its first chunks); a given seed is used for all of them.")
@workers_option
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress lines and bars on stderr while computing.")
def report_command(out, report_dir, compute, seed, workers, progress):
    """Write results/README.md and its figures from the results store.

    With --compute (the default) the store is first filled with the main job: exact distributions
    of every deck up to 12 cards, 10^8 games of the standard deck, the other rule readings, the
    published sweep (suits 3-7 x ranks 9-15) at 10^7 games a cell, a validation of the simulator
    against exact values (One-Handed and Prisoner's Patience), and Hand Solitaire and Prisoner's
    Patience runs. Finished pieces are
    reused, interrupted ones resume. Every number in the report is read from the store.
    """
    from ..main_job import DEFAULT_SEED, STANDARD_SEED, compute_defaults  # numba and the engines: only when run
    from ..report import write_report

    # Everything is checked before anything is computed, written or created.
    if workers is not None:
        check_workers(workers)
    ctx = click.get_current_context()
    if ctx.get_parameter_source("out") == ParameterSource.DEFAULT and not Path(out).exists():
        # outside a checkout: never recompute the whole main job into ./results/ unasked
        raise UsageError(f"no results store at {out} in this folder: run `solitaire report` in a checkout of the "
                         "project, or name the store and the folder with --out and --dir")
    store = open_store(out, must_exist=not compute, write=compute)
    writable_folder(report_dir)
    if compute:
        seeds = ({"seed": DEFAULT_SEED, "standard_seed": STANDARD_SEED} if seed is None
                 else {"seed": seed, "standard_seed": seed})
        compute_defaults(store, **seeds, workers=workers, progress=progress,
                         say=lambda message: click.echo(f"solitaire report: {message}", err=True))
    path = write_report(store, report_dir)
    click.echo(f"wrote {path}")
