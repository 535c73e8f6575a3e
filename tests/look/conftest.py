"""Headless Debian chromium (Playwright) and axe-core, for tests that look at what recipients see."""
from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
# Reference images shown in docs/recipients.md; written again by `LOOK_UPDATE_DOCS=1 pytest tests/look`.
DOCS = Path(__file__).resolve().parents[2] / "docs" / "look"
UPDATE_DOCS = os.environ.get("LOOK_UPDATE_DOCS") == "1"


def _missing() -> str | None:
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is not installed (apt-get install chromium)"
    if not shutil.which("pdftoppm"):
        return "pdftoppm is not installed (apt-get install poppler-utils)"
    if not AXE.exists():
        return "axe-core is not installed (npm ci in tests/look)"
    return None


@pytest.fixture(scope="session")
def browser(request) -> Iterator[object]:
    missing = _missing()
    if missing:
        if os.environ.get("CI"):  # CI installs all three (.ci/run): never pass there by not looking
            pytest.fail(missing)
        pytest.skip(missing)
    # The run's one Playwright (tests/conftest.py), shared with the console's browser tests.
    playwright = request.getfixturevalue("playwright_session")
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def page(browser) -> Iterator[object]:
    # bypass_csp: the download page's own policy forbids scripts, axe-core included.
    context = browser.new_context(viewport={"width": 700, "height": 900}, device_scale_factor=1, bypass_csp=True)
    page = context.new_page()
    yield page
    context.close()


def axe_violations(page) -> list[str]:
    """WCAG 2 A and AA problems axe-core finds on the page, as 'rule: target' strings."""
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']})")
    return [f"{v['id']}: {node['target']}" for v in result["violations"] for node in v["nodes"]]


def keep(name: str, png: bytes, tmp_path: Path, *, reference: bool = False) -> Path:
    """Write a render for the test (and a few, when asked, as reference images under docs/look)."""
    path = tmp_path / name
    path.write_bytes(png)
    if UPDATE_DOCS and reference:
        DOCS.mkdir(parents=True, exist_ok=True)
        (DOCS / name).write_bytes(png)
    return path
