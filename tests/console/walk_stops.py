"""A browser walk's stops (tests/console/test_first_hour_walk.py): each page checked with axe-core and
for a 375 px screen, and with LOOK_UPDATE_DOCS=1 (as tests/look) photographed at 1280 and 375 px into
docs/look/ as first-hour-NN-<page>-<width>.png, which the README shows."""
from __future__ import annotations

import dataclasses
import io
import os
from pathlib import Path

from PIL import Image

from tests.console.browser import assert_accessible

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "look"
WRITE = os.environ.get("LOOK_UPDATE_DOCS") == "1"
WIDE, PHONE = 1280, 375
# Full-page shots, cut off below this height: a long list says what it is in its first screens.
MAX_HEIGHT = {WIDE: 1100, PHONE: 1800}


@dataclasses.dataclass
class Walk:
    """The browser page of the walk, and the pages it has stopped at."""
    page: object
    shots: list[str] = dataclasses.field(default_factory=list)

    def stop(self, name: str) -> None:
        """Look at the page as it is: axe-core, nothing wider than a phone, no table cut off at 1280 or 375 px,
        and (when asked) photographs."""
        page = self.page
        assert_accessible(page)
        self.shots.append(name)
        number = len(self.shots)
        assert _cut_off_tables(page) == [], (name, WIDE)
        page.set_viewport_size({"width": PHONE, "height": 800})
        try:
            assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE, (name, _too_wide(page))
            assert _cut_off_tables(page) == [], (name, PHONE)
            if WRITE:
                for width in (WIDE, PHONE):
                    page.set_viewport_size({"width": width, "height": 800})
                    _photograph(page, DOCS / f"first-hour-{number:02d}-{name}-{width}.png", MAX_HEIGHT[width])
        finally:
            page.set_viewport_size({"width": WIDE, "height": 800})


def _too_wide(page) -> list[str]:
    """The outermost elements that reach past the screen's right edge (a table's scrolling box holds its own)."""
    return page.evaluate("""width => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > width && !e.closest('.notify-table-scroll')
                     && e.parentElement.getBoundingClientRect().right <= width)
        .map(e => e.outerHTML.slice(0, 120))""", PHONE)


def _cut_off_tables(page) -> list[str]:
    """Tables wider than the box they are shown in: a column that needs scrolling sideways to be seen."""
    return page.evaluate("""() => [...document.querySelectorAll('.notify-table-scroll, table')]
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
