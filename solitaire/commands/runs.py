"""``solitaire runs``: what the results store holds, without opening HDF5."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import click

from sim import GAMES
from sim.store import ResultsStore

from ..options import DEFAULT_STORE, emit_json, json_option


def _p_win_text(row: dict) -> str:
    p = row.get("p_win")
    if p is None:
        return "-"
    if isinstance(p, str):  # an exact fraction "n/d"
        return f"{float(Fraction(p)):.6%}"
    return f"{p:.6%}"


def _extent_text(row: dict) -> str:
    if row["exact"]:
        return "exact" if row.get("orders") is None else f"exact ({Decimal(row['orders']):.3e} orders)"
    return f"{row['games']:,} games" if isinstance(row.get("games"), int) else "-"


def _interval_text(row: dict) -> str:
    if row["exact"]:
        return "exact"
    ci = row.get("ci95")
    return f"[{ci[0]:.6%}, {ci[1]:.6%}]" if isinstance(ci, list) and len(ci) == 2 else "-"


@click.command("runs")
@click.option("--out", type=click.Path(dir_okay=False), default=DEFAULT_STORE, show_default=True,
              metavar="FILE", help="Results store (HDF5) to list.")
@click.option("--game", type=click.Choice(list(GAMES)), default=None, help="Only this game.")
@json_option
def runs_command(out, game, as_json):
    """List the results store: one line per stored computation (date, kind, game, deck, variant,
    method, games or exactness, p_win with its 95% interval, name), then the runs still under way
    (resumable with the same command) with their progress.

    --json prints {"store", "results": [...], "unfinished": [...]}; exact counts are integers.
    """
    store = ResultsStore(out)
    rows = [r for r in store.list() if game is None or r["game"] == game]
    unfinished = [r for r in store.checkpoints() if game is None or r["game"] == game]
    if as_json:
        emit_json({"store": str(store.path), "results": rows, "unfinished": unfinished})
        return
    if not store.path.exists():
        click.echo(f"no results store at {store.path} yet")
        return
    click.echo(f"{store.path}: {len(rows)} result(s), {len(unfinished)} unfinished run(s)")
    for r in rows:
        deck = f"{r['suits']}x{r['ranks']}" if r.get("suits") is not None else "-"
        date = (r.get("date") or "")[:16].replace("T", " ")
        click.echo(f"{date}  {r['kind']:<10} {deck:>6}  {r.get('variant') or r.get('game')}  {r['method']}  "
                   f"{_extent_text(r)}  p_win {_p_win_text(r)} {_interval_text(r)}  {r['name']}")
    for r in unfinished:
        date = r["updated"][:16].replace("T", " ")
        click.echo(f"{date}  unfinished {r['suits']}x{r['ranks']:<4} {r['variant']}  seed {r['seed']}  "
                   f"{r['games']:,} games: {r['chunks_done']}/{r['n_chunks']} chunks done  {r['run']}")
