"""``solitaire runs``: what the results store holds, without opening HDF5."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import click

from exact.status import BestPlayStatus
from sim import GAMES

from ..options import DEFAULT_STORE, emit_json, json_option, open_store

#: Kinds of result that are exact answers (fractions over every deck order), not estimates.
EXACT_KINDS = ("exact", "hand-graph")

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
    if kind == "best_play":
        counts = ", ".join(f"{status.shown} {row[status.value]:,}" for status in
                           (BestPlayStatus.WON, BestPlayStatus.LOST, BestPlayStatus.UNDECIDED)
                           if isinstance(row.get(status.value), int))
        return (deck, variant, _count(row.get("decks"), "decks"), counts or "-",
                f"{_interval(row.get('ci95'))} bracket")
    if kind == "solve":
        status = row.get("status")
        try:
            shown = BestPlayStatus.parse(status).shown
        except ValueError:  # not a best-play status (none stored)
            shown = status or "-"
        return deck, variant, "one deck order", shown, "-"
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


def summary_row(record: dict) -> dict:
    """One row of ``solitaire runs`` (and of its ``--json``) from a stored record (with its ``name``)."""
    prov = record.get("provenance", {})
    kind = record["kind"]
    row = {"name": record["name"], "kind": kind, "game": record.get("game"), "suits": record.get("suits"),
           "ranks": record.get("ranks"), "variant": record.get("variant"),
           "method": record.get("method") or prov.get("method") or ("monte-carlo" if kind == "simulation" else kind),
           "games": record.get("games"), "orders": record.get("orders"), "wins": record.get("wins"),
           "p_win": record.get("p_win"), "ci95": record.get("ci95"), "exact": kind in EXACT_KINDS,
           "seed": record.get("seed"), "date": prov.get("finished") or record.get("saved")}
    # What each kind is about, so that every row says something.
    if record.get("decks") is not None:
        row["decks"] = record["decks"]
    if kind == "poison":
        row.update(trapped=record.get("trapped"), undecided=record.get("undecided"),
                   ci95_trapped=record.get("ci95_trapped"))
    elif kind == "best_play":
        row.update(won=record.get("won"), lost=record.get("lost"), undecided=record.get("undecided"))
    elif kind == "solve":
        row.update(status=record.get("status"))
    elif kind == "validation":
        checks = record.get("checks") or []
        tested = record.get("tested")
        row.update(passed=record.get("passed"), alpha=record.get("alpha"),
                   comparisons=tested if tested is not None else sum(bool(c.get("tested", True)) for c in checks),
                   rejected=sum(bool(c.get("rejected")) for c in checks))
    elif kind == "sweep":
        cells = record.get("cells") or []
        sources: dict = {}
        for cell in cells:
            sources[cell.get("source")] = sources.get(cell.get("source"), 0) + 1
        row.update(grid=_grid_text(cells), cells=len(cells), games_per_cell=record.get("games"),
                   cell_sources=sources)
    return row


def _values_text(values) -> str:
    """``[3, 4, 5, 7]`` -> ``"3-5,7"``."""
    runs: list[list[int]] = []
    for v in sorted(set(values)):
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _grid_text(cells: list) -> str | None:
    """A sweep's grid as ``SUITSxRANKS`` ranges, e.g. ``3-7x9-15``."""
    if not cells:
        return None
    return f"{_values_text(c['suits'] for c in cells)}x{_values_text(c['ranks'] for c in cells)}"


def _table(lines: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    return ["  ".join(text.ljust(w) for text, w in zip(line, widths)).rstrip() for line in lines]


@click.command("runs")
@click.option("--out", type=click.Path(dir_okay=False), default=DEFAULT_STORE, show_default=True,
              metavar="FILE", help="Results store (HDF5) to list; the default is relative to the current folder (the "
                   "project's store in a checkout). A store that does not exist is refused (exit 2).")
@click.option("--game", type=click.Choice(list(GAMES)), default=None, help="Only this game.")
@json_option
def runs_command(out, game, as_json):
    """List the results store: one table, a line per stored computation (date, kind, deck, variant,
    method, size, result, interval, name), then the runs still under way (resumable with the same
    command) with their progress. By kind: simulations and exact results show p_win with its 95%
    interval; poison runs the decks classified and those trapped, with the bracket interval;
    best-play runs (solve --decks) the decks proved won, proved lost and open, with the bracket interval;
    validations the comparisons and whether they passed; sweeps the grid and games per cell.

    --json prints {"store", "results": [...], "unfinished": [...]}; exact counts are integers.
    """
    store = open_store(out, must_exist=True, write=False)  # a misspelt --out is not an empty store
    # A validation may cover several games ("one-handed,prisoners").
    rows = [summary_row(r) for r in store.list() if game is None or game in str(r.get("game") or "").split(",")]
    unfinished = [r for r in store.checkpoints() + store.unfinished_parts()
                  if game is None or game in str(r.get("game") or "").split(",")]
    if as_json:
        games = {g for r in rows + unfinished for g in str(r.get("game") or "").split(",") if g in GAMES}
        emit_json({"store": str(store.path), "results": rows, "unfinished": unfinished}, games=games)
        return
    click.echo(f"{store.path}: {len(rows)} result(s), {len(unfinished)} unfinished run(s)")
    lines = [HEADER]
    for r in rows:
        deck, variant, size, result, interval = _columns(r)
        date = (r.get("date") or "")[:16].replace("T", " ")
        lines.append((date, r["kind"], deck, variant, r.get("method") or "-", size, result, interval, r["name"]))
    for r in unfinished:
        lines.append(_unfinished_line(r))
    for line in _table(lines):
        click.echo(line)


def _unfinished_line(r: dict) -> tuple[str, ...]:
    """A line of the table for a run under way: a Monte Carlo run's checkpoint (chunks of games), or a
    computation made of parts (a poison classification's chunks of decks, a validation's cases)."""
    date = str(r.get("updated", ""))[:16].replace("T", " ")
    deck = f"{r['suits']}x{r['ranks']}" if r.get("suits") is not None else "-"
    variant = r.get("variant") or r.get("game") or "-"
    seed = f"seed {r['seed']}" if r.get("seed") is not None else "-"
    if "chunks_done" in r:
        size, done = f"{r['games']:,} games", f"{r['chunks_done']}/{r['n_chunks']} chunks done"
    else:
        size = _count(r.get("decks"), "decks") if r.get("decks") is not None else r.get("kind") or "-"
        done = f"{r['done']}/{r['total'] if r.get('total') is not None else '?'} {r.get('unit', 'parts')} done"
    return date, "unfinished", deck, variant, seed, size, done, "-", r["run"]
