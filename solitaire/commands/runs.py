"""``solitaire runs``: what the results store holds, without opening HDF5."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import click

from sim import GAMES
from sim.store import ResultsStore

from ..options import DEFAULT_STORE, emit_json, json_option

#: Columns of the table; every kind of result fills each of them with what it is about.
HEADER = ("date", "kind", "deck", "variant", "method", "size", "result", "interval", "name")


def _percent(p) -> str:
    if isinstance(p, str):  # an exact fraction "n/d"
        p = float(Fraction(p))
    return f"{p:.6%}"


def _p_win_text(row: dict) -> str:
    return "-" if row.get("p_win") is None else f"p_win {_percent(row['p_win'])}"


def _count(value, unit: str) -> str:
    return f"{value:,} {unit}" if isinstance(value, int) else "-"


def _interval(ci) -> str:
    return f"[{ci[0]:.6%}, {ci[1]:.6%}]" if isinstance(ci, list) and len(ci) == 2 else "-"


def _columns(row: dict) -> tuple[str, str, str, str, str]:
    """(deck, variant, size, result, interval) texts of a stored result, by kind."""
    kind = row["kind"]
    deck = f"{row['suits']}x{row['ranks']}" if row.get("suits") is not None else "-"
    variant = row.get("variant") or row.get("game") or "-"
    if kind == "poison":
        trapped, decks = row.get("trapped"), row.get("decks")
        share = f" ({trapped / decks:.4%})" if isinstance(trapped, int) and decks else ""
        return (deck, variant, _count(decks, "decks"), f"trapped {trapped if trapped is not None else '-'}{share}",
                f"{_interval(row.get('ci95_trapped'))} bracket")
    if kind == "validation":
        rejected = row.get("rejected") or 0
        verdict = {True: "passed", False: f"FAILED ({rejected} rejected)"}.get(row.get("passed"), "-")
        size = _count(row.get("comparisons"), "comparisons")
        if isinstance(row.get("games"), int):
            size += f", {row['games']:,} games each"
        return deck, variant, size, verdict, f"Holm, alpha {row['alpha']}" if row.get("alpha") is not None else "-"
    if kind == "sweep":
        sources = row.get("cell_sources") or {}
        made = ", ".join(f"{n} {source}" for source, n in sorted(sources.items()))
        return (row.get("grid") or "-", variant, _count(row.get("games_per_cell"), "games per cell"),
                f"{row.get('cells', 0)} cells" + (f" ({made})" if made else ""), "-")
    if row["exact"]:
        orders = row.get("orders")
        if orders is None:
            size = "exact"
        elif int(orders) < 10**12:  # small counts read better in full
            size = f"exact ({int(orders):,} orders)"
        else:
            size = f"exact ({Decimal(orders):.3e} orders)"
        return deck, variant, size, _p_win_text(row), "exact"
    size = _count(row.get("games"), "games") if row.get("games") is not None else _count(row.get("decks"), "decks")
    return deck, variant, size, _p_win_text(row), _interval(row.get("ci95"))


def _table(lines: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    return ["  ".join(text.ljust(w) for text, w in zip(line, widths)).rstrip() for line in lines]


@click.command("runs")
@click.option("--out", type=click.Path(dir_okay=False), default=DEFAULT_STORE, show_default=True,
              metavar="FILE", help="Results store (HDF5) to list.")
@click.option("--game", type=click.Choice(list(GAMES)), default=None, help="Only this game.")
@json_option
def runs_command(out, game, as_json):
    """List the results store: one table, a line per stored computation (date, kind, deck, variant,
    method, size, result, interval, name), then the runs still under way (resumable with the same
    command) with their progress. By kind: simulations and exact results show p_win with its 95%
    interval; poison runs the decks classified and those trapped, with the bracket interval;
    validations the comparisons and whether they passed; sweeps the grid and games per cell.

    --json prints {"store", "results": [...], "unfinished": [...]}; exact counts are integers.
    """
    store = ResultsStore(out)
    # A validation may cover several games ("one-handed,prisoners").
    rows = [r for r in store.list() if game is None or game in str(r.get("game") or "").split(",")]
    unfinished = [r for r in store.checkpoints() if game is None or r["game"] == game]
    if as_json:
        emit_json({"store": str(store.path), "results": rows, "unfinished": unfinished})
        return
    if not store.path.exists():
        click.echo(f"no results store at {store.path} yet")
        return
    click.echo(f"{store.path}: {len(rows)} result(s), {len(unfinished)} unfinished run(s)")
    lines = [HEADER]
    for r in rows:
        deck, variant, size, result, interval = _columns(r)
        date = (r.get("date") or "")[:16].replace("T", " ")
        lines.append((date, r["kind"], deck, variant, r.get("method") or "-", size, result, interval, r["name"]))
    for r in unfinished:
        date = r["updated"][:16].replace("T", " ")
        lines.append((date, "unfinished", f"{r['suits']}x{r['ranks']}", r["variant"], f"seed {r['seed']}",
                      f"{r['games']:,} games", f"{r['chunks_done']}/{r['n_chunks']} chunks done", "-", r["run"]))
    for line in _table(lines):
        click.echo(line)
