"""The results atlas, written when the site is built: every record of every results store with its
provenance, and the report that ``solitaire report`` writes, from ``results/*.h5``.

Pages go to ``docs/atlas/generated/`` (not tracked): ``report.md`` and its figures, written by
:func:`solitaire.report.write_report` from the project's store (nothing is computed: the report only
reads), one page per store listing every record (the columns of ``solitaire runs`` plus seed, commit,
date, package version and command line), and the tables the project's scripts wrote beside the
stores (``results/*.md``). Every table of these pages is also written as a CSV file under
``generated/csv/`` and linked from above the table (Sphinx copies it into the built site).
"""
from __future__ import annotations

import csv
import io
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "results"
OUT = ROOT / "docs" / "atlas" / "generated"

#: The stores of the project (tracked in git) and what each holds.
STORES = {
    "solitaire.h5": "the project's store: every number of the report",
    "readings.h5": "the runs behind the published-readings section (`scripts/published_readings.py`)",
    "hand_graphs.h5": "Hand Solitaire whole-deck graphs of every deck up to 12 cards "
                      "(`scripts/hand_poison_survey.py --store`)",
}
#: Tables written by the project's scripts beside the stores: (file, title).
TABLES = {
    "exact_one_handed_table.md": "Exact One-Handed table (every deck, four variants)",
    "exact_families.md": "One-Handed Solitaire on narrow decks (S x 2 and 2 x R), exact",
    "frontier_mc.md": "Exact results past 20 cards against Monte Carlo",
    "hand_poison_survey.md": "Hand Solitaire poison sets on every small deck",
}


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


#: Sections of a store's page, in this order: kind -> title.
KINDS = {"simulation": "Simulations", "exact": "Exact distributions", "hand-graph": "Whole-deck graphs",
         "poison": "Poison-set classifications", "best_play": "Best play of random decks", "solve": "Single decks solved",
         "sweep": "Sweeps", "validation": "Validations"}
#: A section with more records than this lists its command lines under the table, not in a column.
COMMAND_COLUMN_MAX = 80


def _variant_text(variant: str) -> str:
    """``one-handed(win=end,...)`` -> ``win=end, ...`` (the section names the game)."""
    inner = variant.partition("(")[2].rstrip(")") if "(" in variant else variant
    return inner.replace(",", ", ") or "-"


#: The columns of a store page's tables (and of their CSV files).
COLUMNS = ["deck", "variant", "method", "size", "result", "interval", "seed", "commit", "date", "command", "record"]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def write_csv(rows: list[list], header: list[str], name: str) -> str:
    """Write ``rows`` under ``header`` to ``generated/csv/name`` and return the Markdown download link
    to put above the table on a page of ``generated/``."""
    folder = OUT / "csv"
    folder.mkdir(parents=True, exist_ok=True)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[str(c) for c in row] for row in rows])
    (folder / name).write_text(text.getvalue(), encoding="utf-8")
    return f"Download this table: {{download}}`{name} <csv/{name}>` (CSV, {len(rows)} rows)."


def _pipe_cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def tables_to_csv(text: str, stem: str) -> str:
    """``text`` (Markdown) with a CSV download link above each of its pipe tables, each written by
    :func:`write_csv` as ``stem-N.csv``."""
    lines, out, number, i = text.split("\n"), [], 0, 0
    while i < len(lines):
        if (lines[i].startswith("|") and i + 1 < len(lines)
                and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i + 1].strip())):
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            number += 1
            rows = [_pipe_cells(row) for row in lines[i + 2:j]]
            out += [write_csv(rows, _pipe_cells(lines[i]), f"{stem}-{number}.csv"), ""] + lines[i:j]
            i = j
        else:
            out.append(lines[i])
            i += 1
    return "\n".join(out)


def store_page(path: Path, about: str) -> str:
    """A Markdown page listing every record of the store at ``path`` with its provenance: one table
    per kind of result and game, a row per record, each table also a CSV file (:func:`write_csv`)."""
    from sim.store import ResultsStore
    from solitaire.commands.runs import _columns, summary_row

    records = ResultsStore(path).list()
    lines = [f"# `{path.name}`", "",
             f"{about[0].upper()}{about[1:]}: {len(records)} records. Download the store: "
             f"{{download}}`{path.name} <../../../results/{path.name}>` (HDF5; "
             "`solitaire runs --out FILE` lists it, `sim.store.ResultsStore(FILE).load(name)` reads a record).",
             "", "Each row is one record: what it is about, its result, the seed of a random computation, and "
             "the commit and date of the code that computed it; *record* is its name in the store.", ""]
    groups: dict[tuple[str, str], list[dict]] = {}
    for record in records:
        groups.setdefault((record["kind"], str(record.get("game") or "-")), []).append(record)
    order = list(KINDS)
    for (kind, game), group in sorted(groups.items(), key=lambda kv: (order.index(kv[0][0]) if kv[0][0] in order
                                                                       else len(order), kv[0])):
        with_command = len(group) <= COMMAND_COLUMN_MAX
        packages = sorted({str(r.get("provenance", {}).get("package_version", "?")) for r in group})
        table_rows: list[list] = []
        at = len(lines) + 4  # where the download link goes, once the rows are known
        lines += [f"## {KINDS.get(kind, kind)}: {game}", "",
                  f"{len(group)} records; package version {', '.join(packages)}.", "",
                  "| deck | variant | method | size | result | interval | seed | commit | date |"
                  + (" command |" if with_command else "") + " record |",
                  "|---" * (10 + with_command) + "|"]
        commands: dict[str, int] = {}
        for record in group:
            row = summary_row(record)
            deck, variant, size, result, interval = _columns(row)
            prov = record.get("provenance", {})
            commit = str(prov.get("git_commit", "?"))
            commit = commit[:10] + ("-dirty" if commit.endswith("-dirty") else "")
            when = str(prov.get("finished") or prov.get("started") or record.get("saved") or "?")[:10]
            seed = record.get("seed")
            command = prov.get("command_line")
            commands[command or "-"] = commands.get(command or "-", 0) + 1
            cells = [deck, _variant_text(variant), row.get("method") or "-", size, result, interval,
                     "-" if seed is None else seed, f"`{commit}`", when]
            if with_command:
                cells.append(f"`{command}`" if command else "-")
            cells.append(f"`{row['name']}`")
            lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
            table_rows.append([deck, variant, row.get("method") or "", size, result, interval,
                               "" if seed is None else seed, prov.get("git_commit", ""), when, command or "",
                               row["name"]])
        link = write_csv(table_rows, COLUMNS, f"store-{path.stem}-{_slug(kind)}-{_slug(game)}.csv")
        lines[at:at] = [link, ""]
        lines.append("")
        if not with_command:
            lines += ["Computed by:", ""] + [f"- `{c}` ({n} records)" if c != "-" else f"- not recorded ({n} records)"
                                              for c, n in sorted(commands.items())] + [""]
    return "\n".join(lines) + "\n"


def report_page(out: Path) -> None:
    """``out/report.md`` and its figures, written by the report code from the project's stores."""
    from sim.store import ResultsStore
    from solitaire.report import write_report

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in STORES:  # the report reads its side stores beside the README it writes
            if name != "solitaire.h5" and (RESULTS / name).exists():
                shutil.copy2(RESULTS / name, work / name)
        readme = write_report(ResultsStore(RESULTS / "solitaire.h5"), work)
        text = readme.read_text().replace(f"`{work}/", "`results/").replace(str(work), "results")
        text = text.replace(f"{ROOT}/", "")  # the store's path as the repository names it
        text = text.replace("# Results\n", "# The report: what has been computed\n", 1)
        for figure in work.iterdir():
            if figure.suffix in (".png", ".svg"):
                shutil.copy2(figure, out / figure.name)
    (out / "report.md").write_text(tables_to_csv(text, "report"))


def write_atlas(app=None) -> None:
    if hasattr(sys, "set_int_max_str_digits"):  # exact fractions run to thousands of digits
        sys.set_int_max_str_digits(0)
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir(parents=True)
    report_page(OUT)
    stores = []
    for name, about in STORES.items():
        path = RESULTS / name
        if path.exists():
            (OUT / f"store-{path.stem}.md").write_text(store_page(path, about))
            stores.append(f"store-{path.stem}")
    tables = []
    for name, title in TABLES.items():
        path = RESULTS / name
        if path.exists():
            text = path.read_text()
            if not text.startswith("# "):
                text = f"# {title}\n\n{text}"
            (OUT / name).write_text(tables_to_csv(text, path.stem))
            tables.append(path.stem)
    index = ["# Reports, stores and tables", "", "```{toctree}", ":maxdepth: 1", ""] + ["report"] + stores + tables + ["```", ""]
    (OUT / "index.md").write_text("\n".join(index))


def setup(app):
    app.connect("builder-inited", write_atlas)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
