"""A browser walk's stops (tests/console/test_first_hour_walk.py): each page checked with axe-core and
at 1280 and 375 px, and with LOOK_UPDATE_DOCS=1 (as tests/look) photographed at both widths into
docs/look/ as first-hour-NN-<page>-<width>.png, which docs/first-hour.md shows. The walk also counts what a
person does: every page the browser loads and every form it sends."""
from __future__ import annotations

import dataclasses
import io
import os
from pathlib import Path

from PIL import Image

from tests.console.browser import assert_accessible
from tests.console.word_breaks import broken_words, spilling_cells

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "look"
WRITE = os.environ.get("LOOK_UPDATE_DOCS") == "1"
WIDE, PHONE = 1280, 375
# Full-page shots, cut off below this height: a long list says what it is in its first screens.
MAX_HEIGHT = {WIDE: 1100, PHONE: 1800}


@dataclasses.dataclass(frozen=True)
class Steps:
    """What a person did: pages loaded (a redirect after a form is its target's one load) and forms sent."""
    loads: int
    forms: int

    def __sub__(self, earlier: Steps) -> Steps:
        return Steps(self.loads - earlier.loads, self.forms - earlier.forms)


@dataclasses.dataclass
class Walk:
    """The browser page of the walk, the pages it has stopped at, and the loads and forms so far."""
    page: object
    shots: list[str] = dataclasses.field(default_factory=list)
    loads: int = 0
    forms: int = 0

    def __post_init__(self) -> None:
        page = self.page
        page.on("load", lambda _page: self._loaded())
        # A form sent is a navigation that posts from the page; its redirect is the same form, not another.
        page.on("request", lambda request: self._sent() if request.is_navigation_request()
                and request.method == "POST" and request.frame == page.main_frame
                and request.redirected_from is None else None)

    def _loaded(self) -> None:
        self.loads += 1

    def _sent(self) -> None:
        self.forms += 1

    def steps(self) -> Steps:
        return Steps(self.loads, self.forms)

    def look(self, name: str = "") -> None:
        """Check the page as it is at 1280 px, then at 375 px (check_at_width)."""
        page = self.page
        try:
            for width in (WIDE, PHONE):
                page.set_viewport_size({"width": width, "height": 800})
                check_at_width(page, name or page.url, width)
        finally:
            page.set_viewport_size({"width": WIDE, "height": 800})

    def stop(self, name: str) -> None:
        """Check the page (look) and, when asked, photograph it at both widths as the walk's next step."""
        page = self.page
        self.shots.append(name)
        number = len(self.shots)
        self.look(name)
        try:
            if WRITE:
                for width in (WIDE, PHONE):
                    page.set_viewport_size({"width": width, "height": 800})
                    _photograph(page, DOCS / f"first-hour-{number:02d}-{name}-{width}.png", MAX_HEIGHT[width])
        finally:
            page.set_viewport_size({"width": WIDE, "height": 800})


def check_at_width(page, name: str, width: int) -> None:
    """Every check of a page at one width, in one place: axe-core (WCAG 2.1 A/AA, and no two regions with one
    name), nothing wider than the screen, no table cut off, no word of a table broken inside (issue 51: a
    table reads on a phone). A further check of a page as shown at a width joins here."""
    assert_accessible(page, rules=("landmark-unique",))
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width, (name, width, _too_wide(page, width))
    assert _cut_off_tables(page) == [], (name, width)
    assert broken_words(page) == [], (name, width)
    assert spilling_cells(page) == [], (name, width)


def _too_wide(page, width: int) -> list[str]:
    """The outermost elements that reach past the screen's right edge."""
    return page.evaluate("""width => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > width && e.parentElement.getBoundingClientRect().right <= width)
        .map(e => e.outerHTML.slice(0, 120))""", width)


def _cut_off_tables(page) -> list[str]:
    """Tables wider than the box they are shown in: a column that needs scrolling sideways to be seen."""
    return page.evaluate("""() => [...document.querySelectorAll('table')]
        .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.outerHTML.slice(0, 120))""")


def _photograph(page, path: Path, max_height: int) -> None:
    height = min(page.evaluate("document.scrollingElement.scrollHeight"), max_height)
    width = page.viewport_size["width"]
    png = page.screenshot(full_page=True, clip={"x": 0, "y": 0, "width": width, "height": height},
                          animations="disabled", caret="hide")
    # A page of the console has few colours: a 64-colour palette keeps the file a fraction of the size.
    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG", optimize=True)
