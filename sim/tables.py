"""Results as tidy tables and short summaries: what ``solitaire export`` writes, what every result's
``to_frame()`` returns and what it shows in a notebook (``__repr__``, ``_repr_markdown_``).

A table is a list of rows (dicts with the same keys, in the same order): one row per score for a
score distribution (a simulation, an exact result, odds), one per cell for a sweep, one per outcome
(won, lost by each proof, undecided by what stopped the search) for a best-play estimate, one per
deck for a solved deck, one per poison-set size for Hand Solitaire's poison runs and whole-deck
graphs, one per check for a validation. Each row starts with what the result is about (``kind, name, game, variant, suits,
ranks, method, seed``) and ends with where it came from (``package_version, commit``).

Exact means exact: counts, numbers of games or orders and seeds are Python ints (never floats: a
64-bit seed or ``52!`` does not fit a double), exact probabilities are ``"n/d"`` strings.
:func:`to_frame` keeps integer columns as Python ints (pandas ``object`` dtype);
:func:`write_table` writes them as digits in CSV and, in JSON, as integers (seeds of 2^53 or more as
decimal strings, as every JSON text of the toolkit writes them, :func:`sim.seeds.seeds_to_json`).

This module works on the stored form of a result (its ``to_dict()`` content, ``kind`` and
``provenance``), so a result read from a results store and one just computed give the same table.
"""
from __future__ import annotations

import csv
import io
import json
import os
from fractions import Fraction

from .fractions_text import fraction_text

#: Formats of :func:`write_table`.
FORMATS = ("csv", "json", "parquet")

#: The columns that start every row, and those that end it.
HEAD = ("kind", "name", "game", "variant", "suits", "ranks", "method", "seed")
TAIL = ("package_version", "commit")

_CLASS_KINDS = {"OddsResult": "odds"}


def record_of(result) -> dict:
    """The stored form of a result object: its ``to_dict()`` with ``kind`` and ``provenance``."""
    record = dict(result.to_dict())
    record["kind"] = kind_of(result)
    record["provenance"] = dict(getattr(result, "provenance", None) or {})
    return record


def kind_of(result) -> str:
    return getattr(result, "kind", None) or _CLASS_KINDS.get(type(result).__name__, type(result).__name__)


def _int(value):
    """An int (a stored count may come back as a numpy int or, from old JSON, a digit string)."""
    if value is None or isinstance(value, bool):
        return value
    return int(value)


def _pair(ci):
    return (None, None) if not ci else (ci[0], ci[1])


def rows(record: dict, name: str | None = None) -> list[dict]:
    """The tidy table of a stored record (``to_dict()`` content plus ``kind`` and ``provenance``)."""
    kind = record["kind"]
    prov = record.get("provenance") or {}
    method = record.get("method") or prov.get("method") or {"simulation": "monte-carlo"}.get(kind, kind)
    head = {"kind": kind, "name": name or record.get("name") or prov.get("stored_as"), "game": record.get("game"),
            "variant": record.get("variant"), "suits": _int(record.get("suits")), "ranks": _int(record.get("ranks")),
            "method": method, "seed": _int(record.get("seed"))}
    tail = {"package_version": prov.get("package_version"), "commit": prov.get("git_commit")}
    body = _BODIES.get(kind)
    if body is None:
        raise ValueError(f"no table for results of kind {kind!r}")
    out = []
    for row in body(record):
        merged = {**head, **{k: v for k, v in row.items() if k in head}}
        merged.update({k: v for k, v in row.items() if k not in head})
        merged.update(tail)
        out.append(merged)
    return out


def _scores(record: dict, size_key: str, size) -> list[dict]:
    p_win = record.get("p_win")
    base = {size_key: size, "wins": _int(record.get("wins"))}
    if isinstance(p_win, (int, float)) and not isinstance(p_win, bool):
        low, high = _pair(record.get("ci95"))
        base.update(p_win=float(p_win), ci95_low=low, ci95_high=high)
    else:
        base["p_win"] = p_win
    return [{**base, "score": score, "count": _int(count)} for score, count in enumerate(record["score_counts"])]


def _simulation(record):
    return _scores(record, "games", _int(record["games"]))


def _exact(record):
    return _scores(record, "orders", _int(record["orders"]))


def _odds(record):
    simulated = record.get("method") == "simulated"
    total = sum(int(c) for c in record["score_counts"])
    extra = {"dealt": record.get("dealt"), "remaining": _int(record.get("remaining")),
             "engine": record.get("engine")}
    wins = None  # the record does not store wins; p_win says it
    out = []
    for row in _scores({**record, "wins": wins}, "games" if simulated else "orders", total):
        row.pop("wins")
        out.append({**extra, **row})
    return out


def _sweep(record):
    out = []
    for cell in record["cells"]:
        low, high = _pair(cell.get("ci95"))
        out.append({"suits": _int(cell["suits"]), "ranks": _int(cell["ranks"]), "method": cell["source"],
                    "seed": _int(cell.get("seed")), "sweep_seed": _int(record.get("seed")),
                    "games": _int(cell.get("games")), "p_win": cell.get("p_win"),
                    "p_win_exact": cell.get("p_win_exact"), "ci95_low": low, "ci95_high": high})
    return out


def _best_play(record):
    common = {"decks": _int(record["decks"]), "node_budget": _int(record.get("node_budget")),
              "time_budget": record.get("time_budget"), "strategy": record.get("strategy"),
              "solver_version": _int(record.get("solver_version"))}
    out = [{**common, "outcome": "won", "proof": None, "stop": None, "count": _int(record["won"])}]
    lost_by = {k: _int(v) for k, v in (record.get("lost_by") or {}).items()}
    unexplained = _int(record["lost"]) - sum(lost_by.values())
    for proof, count in lost_by.items():
        out.append({**common, "outcome": "lost", "proof": proof, "stop": None, "count": count})
    if unexplained or not lost_by:
        out.append({**common, "outcome": "lost", "proof": None, "stop": None, "count": unexplained})
    # the open decks by what stopped their search (a run begun before verdicts said why: one row, stop None)
    open_by = {k: _int(v) for k, v in (record.get("open_by") or {}).items()}
    unexplained = _int(record["undecided"]) - sum(open_by.values())
    for stop, count in sorted(open_by.items()):
        out.append({**common, "outcome": "undecided", "proof": None, "stop": stop, "count": count})
    if unexplained or not open_by:
        out.append({**common, "outcome": "undecided", "proof": None, "stop": None, "count": unexplained})
    return out


def _solve(record):
    line = record.get("line")
    return [{"order": " ".join(str(int(c)) for c in record["order"]), "status": record["status"],
             "proof": record.get("proof"), "stop": record.get("stop"), "nodes": _int(record["nodes"]),
             "node_budget": _int(record["node_budget"]),
             "time_budget": record.get("time_budget"), "strategy": record.get("strategy"),
             "line": None if line is None else " ".join(f"{s}-{t}" for s, t in line)}]


def _poison(record):
    common = {k: _int(record[k]) for k in ("decks", "cap", "budget", "won", "trapped", "win_reachable",
                                           "undecided", "unwinnable", "unwinnable_undecided")}
    out = []
    leftovers = record.get("poison_set_leftovers") or {}
    for size, runs in sorted(((int(k), _int(v)) for k, v in (record.get("poison_set_sizes") or {}).items())):
        made = leftovers.get(str(size)) or leftovers.get(size) or {}
        if made:
            for key, n in sorted(made.items()):
                out.append({**common, "poison_set_size": size, "leftovers": key, "runs": _int(n)})
        else:
            out.append({**common, "poison_set_size": size, "leftovers": None, "runs": runs})
    return out or [{**common, "poison_set_size": None, "leftovers": None, "runs": 0}]


def _hand_graph(record):
    common = {"orders": _int(record["orders"]), "winning_orders": _int(record["winning_orders"]),
              "unwinnable_orders": _int(record["unwinnable_orders"]), "p_win": record.get("p_win"),
              "p_trapped": record.get("p_trapped"),
              "expected_iterations_given_win": record.get("expected_iterations_given_win")}
    leftovers = record.get("poison_set_leftovers") or {}
    out = []
    for size, sets in sorted(((int(k), _int(v)) for k, v in (record.get("poison_sets") or {}).items())):
        made = leftovers.get(str(size)) or leftovers.get(size)
        out.append({**common, "poison_set_size": size, "poison_sets": sets,
                    "leftovers": None if made is None else ",".join(str(int(x)) for x in made)})
    return out or [{**common, "poison_set_size": None, "poison_sets": 0, "leftovers": None}]


def _validation(record):
    common = {"games": _int(record.get("games")), "alpha": record.get("alpha"), "passed": record.get("passed")}
    return [{**common, "game": None if c.get("variant") is None else str(c["variant"]).split("(")[0],
             "variant": c.get("variant"), "suits": _int(c.get("suits")), "ranks": _int(c.get("ranks")),
             "method": "holm", "test": c["test"], "statistic": c.get("statistic"), "p_value": c.get("p_value"),
             "tested": c.get("tested"), "rejected": c.get("rejected"), "detail": c.get("detail")}
            for c in record["checks"]]


_BODIES = {"simulation": _simulation, "exact": _exact, "odds": _odds, "sweep": _sweep, "best_play": _best_play,
           "solve": _solve, "poison": _poison, "hand-graph": _hand_graph, "validation": _validation}


# --- pandas -------------------------------------------------------------------------------------

def _pandas():
    try:
        import pandas
    except ImportError:
        from .errors import UsageError

        raise UsageError("to_frame() needs pandas: pip install 'solitaire-odds[pandas]'") from None
    return pandas


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def frame(table: list[dict]):
    """A pandas DataFrame of a table; a column of integers (None allowed) keeps Python ints (``object``
    dtype), so that seeds, counts and ``52!`` stay exact."""
    pd = _pandas()
    columns = list(table[0]) if table else list(HEAD + TAIL)
    data = {}
    for column in columns:
        values = [row.get(column) for row in table]
        present = [v for v in values if v is not None]
        if present and all(_is_int(v) for v in present):
            data[column] = pd.Series(values, dtype=object)
        elif present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present) \
                and len(present) == len(values):
            data[column] = pd.Series(values, dtype="float64")
        else:
            data[column] = pd.Series(values, dtype=object)
    return pd.DataFrame(data, columns=columns)


def to_frame(result):
    """``result.to_frame()``: the tidy table of a result object as a pandas DataFrame."""
    return frame(rows(record_of(result)))


# --- files --------------------------------------------------------------------------------------

def check_format(fmt: str, path: str | os.PathLike | None = None) -> str:
    """The table format named by ``fmt`` (or, when ``fmt`` is None, by ``path``'s suffix), or a
    one-line :class:`~sim.errors.UsageError`; parquet is refused at once when pyarrow is missing."""
    from .errors import UsageError

    if fmt is None:
        suffix = os.path.splitext(str(path or ""))[1].lstrip(".").lower()
        fmt = {"pq": "parquet"}.get(suffix, suffix) or "csv"
        if fmt not in FORMATS:
            raise UsageError(f"cannot tell the format from {str(path)!r}: give --format "
                             f"{'|'.join(FORMATS)} or a file ending in .csv, .json or .parquet")
    fmt = str(fmt).lower()
    if fmt not in FORMATS:
        raise UsageError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise UsageError("parquet needs pyarrow, which is not installed: pip install pyarrow, "
                             "or use --format csv or json") from None
    return fmt


def _csv_text(table: list[dict]) -> str:
    buffer = io.StringIO()
    columns = list(table[0]) if table else []
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    for row in table:
        writer.writerow(["" if row[c] is None else repr(row[c]) if isinstance(row[c], float) else row[c]
                         for c in columns])
    return buffer.getvalue()


def _json_text(table: list[dict]) -> str:
    from .seeds import seeds_to_json

    def finite(v):
        return None if isinstance(v, float) and v != v or v in (float("inf"), float("-inf")) else v

    safe = [{k: finite(v) for k, v in row.items()} for row in table]
    return json.dumps(seeds_to_json(safe), indent=1, allow_nan=False) + "\n"


def _parquet_bytes(table: list[dict]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = list(table[0]) if table else []
    arrays = {}
    for column in columns:
        values = [row[column] for row in table]
        ints = [v for v in values if v is not None]
        if ints and all(_is_int(v) for v in ints):
            if all(-(1 << 63) <= v < (1 << 63) for v in ints):
                arrays[column] = pa.array(values, type=pa.int64())
            else:  # beyond 64 bits (52!, a large seed): exact as text
                arrays[column] = pa.array([None if v is None else str(v) for v in values], type=pa.string())
        else:
            arrays[column] = pa.array(values)
    sink = io.BytesIO()
    pq.write_table(pa.table(arrays), sink)
    return sink.getvalue()


def table_bytes(table: list[dict], fmt: str) -> bytes:
    """The file content of a table in ``fmt`` (see :data:`FORMATS`)."""
    if fmt == "csv":
        return _csv_text(table).encode()
    if fmt == "json":
        return _json_text(table).encode()
    return _parquet_bytes(table)


# --- summaries ----------------------------------------------------------------------------------

def _percent(p) -> str:
    """A probability as a percentage with four significant figures (tiny ones in e-notation)."""
    if p is None:
        return "-"
    p = float(Fraction(p)) if isinstance(p, str) else float(p)
    if p == 0 or p >= 1e-4:
        return f"{p:.4%}"
    return f"{p * 100:.4g}%"


def _exact_p(p) -> str:
    """An exact probability: ``n/d (percent)``, the fraction left out when it is long."""
    if p is None:
        return "-"
    p = Fraction(p)
    text = fraction_text(p)
    return f"{text} ({_percent(p)})" if len(text) <= 40 else f"{_percent(p)} (exact fraction in to_dict())"


def _number(n) -> str:
    """A count with thousands separators, in e-notation from 10^21 on (``52!``)."""
    n = int(n)
    return f"{n:,}" if n < 10**21 else f"{n:.4e}".replace("e+", "e")


def _interval(ci) -> str:
    return "-" if not ci else f"[{_percent(ci[0])}, {_percent(ci[1])}]"


def facts(record: dict) -> tuple[str, list[tuple[str, str]]]:
    """What a result is about (its subject) and its few headline figures, as ``(label, text)``."""
    kind = record["kind"]
    deck = f"{record['suits']}x{record['ranks']}" if record.get("suits") is not None else ""
    subject = " ".join(x for x in (record.get("variant") or record.get("game") or "", deck) if x)
    if kind == "simulation":
        return subject, [("p_win", _percent(record["p_win"])), ("95% CI", _interval(record["ci95"])),
                         ("games", _number(record['games'])), ("seed", str(record["seed"]))]
    if kind == "exact":
        return subject, [("p_win", _exact_p(record["p_win"])), ("orders", _number(record['orders'])),
                         ("method", str(record["method"]))]
    if kind == "odds":
        dealt = record.get("dealt") or "nothing"
        out = [("dealt", str(dealt)), ("p_win", _exact_p(record["p_win"]) if record["method"] == "exact"
                                       else _percent(record["p_win"]))]
        if record["method"] == "simulated":
            out += [("95% CI", _interval(record.get("ci95"))), ("games", _number(record['games']))]
        return subject, out
    if kind == "sweep":
        cells = record["cells"]
        made: dict = {}
        for c in cells:
            made[c["source"]] = made.get(c["source"], 0) + 1
        return subject, [("cells", f"{len(cells)} (" + ", ".join(f"{n} {s}" for s, n in sorted(made.items())) + ")"),
                         ("games per simulated cell", _number(record['games'])), ("seed", str(record["seed"]))]
    if kind == "best_play":
        open_by = record.get("open_by") or {}
        why = (" (stopped by " + ", ".join(f"{k} {int(v):,}" for k, v in sorted(open_by.items())) + ")"
               if open_by else "")
        return subject, [("won", f"{int(record['won']):,}"), ("lost", f"{int(record['lost']):,}"),
                         ("undecided", f"{int(record['undecided']):,}{why}"), ("95% bracket", _interval(record["ci95"])),
                         ("seed", str(record["seed"]))]
    if kind == "solve":
        return subject, [("status", str(record["status"]))] + (
            [("proof", str(record["proof"]))] if record.get("proof") else []) + (
            [("stopped by", str(record["stop"]))] if record.get("stop") else []) + [("nodes", _number(record['nodes']))]
    if kind == "poison":
        return subject, [("decks", f"{int(record['decks']):,}"), ("trapped", f"{int(record['trapped']):,}"),
                         ("undecided", f"{int(record['undecided']):,}"),
                         ("95% bracket (trapped)", _interval(record.get("ci95_trapped"))), ("seed", str(record["seed"]))]
    if kind == "hand-graph":
        return subject, [("p_win", _exact_p(record["p_win"])), ("p_trapped", _exact_p(record["p_trapped"])),
                         ("orders", _number(record['orders'])),
                         ("poison sets", _number(sum(int(v) for v in record['poison_sets'].values())))]
    if kind == "validation":
        checks = record["checks"]
        rejected = sum(bool(c.get("rejected")) for c in checks)
        return record.get("game") or "", [("verdict", "passed" if record["passed"] else f"FAILED ({rejected} rejected)"),
                                          ("comparisons", str(record.get("tested"))), ("alpha", str(record["alpha"])),
                                          ("games", _number(record['games']))]
    return subject, []


class TableMixin:
    """``to_frame()``, a short ``repr`` and ``_repr_markdown_`` for a result class (a dataclass declared
    with ``repr=False``, so that these are kept)."""

    __slots__ = ()

    def to_frame(self):
        """The result as a tidy pandas DataFrame (see :mod:`sim.tables`: one row per score, cell,
        outcome...); integer columns hold Python ints, so seeds and counts stay exact. Needs pandas
        (``pip install 'solitaire-odds[pandas]'``)."""
        return to_frame(self)

    def __repr__(self) -> str:
        subject, items = facts(record_of(self))
        return f"{type(self).__name__}({subject}: " + ", ".join(f"{k} {v}" for k, v in items) + ")"

    def _repr_markdown_(self) -> str:
        subject, items = facts(record_of(self))
        lines = [f"**{type(self).__name__}** {subject}", "", "| " + " | ".join(k for k, _ in items) + " |",
                 "|" + "---|" * len(items), "| " + " | ".join(v for _, v in items) + " |"]
        return "\n".join(lines)
