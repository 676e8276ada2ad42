"""The documentation site: built from docs/ with warnings as errors, every internal link of the built
pages resolves, every subcommand and public module has its page, the atlas shows every stored record,
and the front page stays a front page.

The build (about a minute) runs once, in one test, since the atlas pages are written into the source
tree while it runs; it needs the ``docs`` extra (``pip install -e '.[docs]'``, as CI does).
"""
from __future__ import annotations

import csv
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PACKAGES = ("sim", "exact", "solitaire")

pytestmark = pytest.mark.docs


def public_modules() -> list[str]:
    """Every public module of the three packages (no part of its dotted name starts with _)."""
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not any(p.startswith("_") for p in parts):
                names.append(".".join(parts))
    return names


def public_objects() -> list[str]:
    """Every public function and class of the public modules (those a module defines itself; its
    ``__all__`` where it has one)."""
    import importlib
    import inspect

    found = []
    for name in public_modules():
        module = importlib.import_module(name)
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for attr in names:
            obj = getattr(module, attr, None)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == name:
                found.append(f"{name}.{attr}")
    return found


def subcommands() -> list[str]:
    from solitaire.cli import cli

    return sorted(cli.commands)


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if attrs.get(key) and not (tag == "link" and attrs.get("rel") == "canonical"):
                self.links.append(attrs[key])


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def broken_links(site: Path) -> list[str]:
    """Internal links (href, src) of every built page whose file, or whose #fragment in it, is missing."""
    pages = {path: _parse(path) for path in site.rglob("*.html")}
    broken = []
    for page, parsed in pages.items():
        for link in parsed.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    return broken


def test_site_builds_without_warnings_and_its_internal_links_resolve(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    pytest.importorskip("myst_nb")
    pytest.importorskip("sphinx_click")
    site = tmp_path / "html"
    out = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
                          str(site)], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-4000:]
    assert broken_links(site) == []
    # every public module, function and class is documented on an API page, every subcommand on its own page
    ids = set()
    for page in (site / "reference" / "api").glob("*.html"):
        ids |= _parse(page).ids
    assert [m for m in public_modules() if f"module-{m}" not in ids] == []
    assert [name for name in public_objects() if name not in ids] == []
    for name in subcommands():
        page = site / "reference" / "cli" / f"{name}.html"
        assert page.exists(), name
        assert f"solitaire {name}" in page.read_text(encoding="utf-8")
    # the atlas lists every record of every store of the project, each with its commit
    from sim.store import ResultsStore

    for store in sorted((ROOT / "results").glob("*.h5")):
        page = (site / "atlas" / "generated" / f"store-{store.stem}.html").read_text(encoding="utf-8")
        for record in ResultsStore(store).list():
            assert record["name"] in page, (store.name, record["name"])
    assert (site / "atlas" / "generated" / "report.html").exists()
    # the quickstart notebook is a page, with the outputs stored in it (tables and the heatmap)
    quickstart = (site / "quickstart.html").read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", quickstart)  # code is highlighted token by token
    assert "simulate(Deck(4, 5)" in text and "SimulationResult" in text and "<img" in quickstart
    # every table of the atlas has a CSV download beside it, copied into the site, with the table's rows
    for page in (site / "atlas" / "generated").glob("*.html"):
        html = page.read_text(encoding="utf-8")
        tables = html.count("<table")
        csvs = [link for link in _parse(page).links if urlsplit(link).path.endswith(".csv")]
        assert len(csvs) == tables, page.name
        stated = [int(n.replace(",", "")) for n in re.findall(r"\(CSV, ([\d,]+) rows\)", html)]
        assert len(stated) == tables, page.name
        for link, rows in zip(csvs, stated):
            target = (page.parent / unquote(urlsplit(link).path)).resolve()
            assert target.is_relative_to(site.resolve()) and target.exists(), (page.name, link)
            with target.open(newline="", encoding="utf-8") as handle:
                table = list(csv.reader(handle))
            assert len(table) == rows + 1 and len({len(row) for row in table}) == 1, (page.name, link)
    if (DOCS / "play").is_dir():  # the browser page is published as it is
        assert all((site / "play" / p.relative_to(DOCS / "play")).exists()
                   for p in (DOCS / "play").rglob("*") if p.is_file() and p.suffix not in (".md", ".rst"))


def test_broken_links_are_found(tmp_path):
    (tmp_path / "a.html").write_text('<p id="here"><a href="a.html#here">ok</a><a href="b.html">missing</a>'
                                     '<a href="#nowhere">bad anchor</a><a href="https://example.org/">out</a></p>')
    assert broken_links(tmp_path) == ["a.html: b.html", "a.html: #nowhere (no such anchor)"]


def test_every_subcommand_and_public_module_has_a_page_in_the_sources():
    api = "\n".join(p.read_text() for p in (DOCS / "reference" / "api").glob("*.md"))
    documented = set(re.findall(r"^\.\. automodule:: (\S+)$", api, re.M))
    assert [m for m in public_modules() if m not in documented] == []
    assert [m for m in documented if m not in public_modules()] == []  # a renamed module is renamed here too
    for name in subcommands():
        assert (DOCS / "reference" / "cli" / f"{name}.md").exists(), name


def test_readme_is_a_front_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) <= 12_500
    # the two commands for a fresh machine: the test command is the one CI runs
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = re.search(r"^\.venv/bin/python -m pytest .*$", ci, re.M).group(0)
    assert test_command in readme


def test_issue_numbers_only_in_the_changelog():
    pages = [ROOT / "README.md", ROOT / "benchmarks" / "README.md"] + [
        p for p in DOCS.rglob("*.md") if "generated" not in p.parts and "_build" not in p.parts]
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in pages
             for m in re.finditer(r"\b[Ii]ssues? #?\d+", p.read_text(encoding="utf-8"))]
    assert found == []
