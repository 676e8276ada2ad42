"""Browser tests of the page docs/play/: headless Chromium driven by Playwright's sync API.

The page is served from the repository by a local HTTP server on 127.0.0.1 (a random free port, in a
thread, shut down when the tests end). Chromium is the system's (Debian's ``chromium``, installed by
``.ci/run``): Playwright's own browser download is not used. Without Playwright or a Chromium the
tests are skipped with the reason (they fail instead where ``SOLITAIRE_REQUIRE_BROWSER`` is set, as
``.ci/run`` sets it); ``SOLITAIRE_CHROMIUM`` names another Chromium executable.

Screenshots go to ``tests/browser/artifacts/`` (git-ignored; ``SOLITAIRE_BROWSER_ARTIFACTS`` sets
another folder).
"""
from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = "/docs/play/index.html"
ARTIFACTS = Path(os.environ.get("SOLITAIRE_BROWSER_ARTIFACTS", ROOT / "tests" / "browser" / "artifacts"))
#: how long one page action or wait may take before the test fails (ms)
TIMEOUT_MS = 20_000


def pytest_collection_modifyitems(config, items):
    """Every test that opens the browser is marked ``browser`` (``-m "not browser"`` leaves them out)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


def chromium_path() -> str | None:
    given = os.environ.get("SOLITAIRE_CHROMIUM")
    if given:
        return given if Path(given).exists() else None
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="session")
def server():
    """Base URL of the repository served on 127.0.0.1 (stopped when the session ends)."""
    handler = functools.partial(_QuietHandler, directory=str(ROOT))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _missing(reason: str):
    if os.environ.get("SOLITAIRE_REQUIRE_BROWSER"):
        pytest.fail(f"{reason}, and SOLITAIRE_REQUIRE_BROWSER is set")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright import sync_api
    except ImportError:
        _missing("Playwright is not installed (pip install -e '.[test]'): browser tests skipped")
    path = chromium_path()
    if path is None:
        _missing("no Chromium found (apt-get install chromium, or set SOLITAIRE_CHROMIUM): browser tests skipped")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def page(browser):
    """A fresh page (its own context); fails the test on any JavaScript error the page raised."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"the page raised: {errors}"


@pytest.fixture
def open_page(page, server):
    """``open_page(query)`` loads the page with that query string and waits until it has played."""

    def open_(query: str = ""):
        page.goto(f"{server}{PAGE}{query}")
        page.wait_for_function("document.querySelector('[data-testid=result]').textContent !== '' "
                               "|| !document.querySelector('[data-testid=error]').hidden")
        return page

    return open_
