"""Sphinx configuration of the solitaire-odds site.

Build it offline from the repository root with ``python -m sphinx -W -b html docs OUT`` (the ``docs``
extra installs what it needs). The results atlas is written at build time from ``results/*.h5`` by the
project's report code (``docs/_ext/atlas.py``); nothing is fetched from the network.
"""
from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

from sim import provenance  # noqa: E402

project = "solitaire-odds"
author = "the solitaire-odds authors"
copyright = "the solitaire-odds authors"
release = provenance.version()
version = release

extensions = [
    "myst_nb",  # Markdown through myst-parser, and the quickstart notebook
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_click",
    "atlas",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
# the quickstart notebook is shown with the outputs stored in it (the tests run it: tests/cli/test_notebook.py)
nb_execution_mode = "off"
root_doc = "index"
# docs/play/ is a page of its own, published as it is (html_extra_path below): no source of the site
exclude_patterns = ["_build", "_generated", "play/**.md", "play/**.rst", "Thumbs.db", ".DS_Store"]
templates_path: list[str] = []

# The browser page in docs/play/ (a static page of its own, built apart) is published with the site
# under play/ as it is. html_extra_path copies a folder's contents to the site's root, so the page is
# copied into a folder of its own first.
html_extra_path: list[str] = []
if (DOCS / "play").is_dir():
    import shutil

    _extra = DOCS / "_generated" / "extra"
    shutil.rmtree(_extra, ignore_errors=True)
    shutil.copytree(DOCS / "play", _extra / "play")
    html_extra_path = [str(_extra)]

# option names such as --out must not turn into dashes in the command-line reference
smartquotes = False

myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 3

autodoc_default_options = {"members": True, "undoc-members": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
numpydoc_show_class_members = False
numpydoc_validation_checks: set[str] = set()
numpydoc_xref_param_type = False

html_theme = "furo"
html_title = f"solitaire-odds {provenance.package_version()}"
html_static_path: list[str] = []
html_show_sourcelink = False
html_copy_source = False

linkcheck_ignore = [r"https?://.*"]  # offline: internal links only (tests/docs checks the built HTML)
nitpicky = False
suppress_warnings: list[str] = []


def _plain_rubrics(app, what, name, obj, options, lines):
    """numpydoc writes a docstring's sections (Examples, Notes...) as rubrics, and leaves a module
    docstring's as section titles; Sphinx names both by their title, so two on one page, or on two
    pages, clash (a warning, an error under -W). Bold paragraphs read the same and name nothing."""
    for i, line in enumerate(lines):
        if line.startswith(".. rubric:: "):
            lines[i] = f"**{line[len('.. rubric:: '):].strip()}**"
        elif (i + 1 < len(lines) and line.strip() and set(lines[i + 1].strip()) == {"-"}
              and len(lines[i + 1].strip()) == len(line.strip())):
            lines[i], lines[i + 1] = f"**{line.strip()}**", ""


def setup(app):
    app.connect("autodoc-process-docstring", _plain_rubrics, priority=900)  # after numpydoc's (500)
