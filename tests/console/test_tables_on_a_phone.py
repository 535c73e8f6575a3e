"""Every table of the console on a phone (375 px) and a desktop (1280 px): a platform admin follows every link
from the dashboard of a service with something in every area (tests/console/full_service.py), and on each
page with a table the browser measures that no word of it is drawn on two lines (tests/console/word_breaks.py)
and that the page is no wider than the screen. At 375 px each row is a block of labelled values: each cell's
label is its column's header, no cell runs over the next, the table is still a table to a screen reader, and
axe-core finds nothing."""
from __future__ import annotations

import re

import pytest

import local_mailbox as mailbox
from models.job import FINISHED, SCHEDULED, Job
from models.platform import PLATFORM_SERVICE_ID
from tests.conftest import running_worker, wait_for
from tests.console.browser import assert_accessible, sign_in
from tests.console.crawl import Page, followed
from tests.console.full_service import full_service
from tests.console.word_breaks import broken_words, spilling_cells, wider_than_the_screen

PHONE, DESKTOP = {"width": 375, "height": 800}, {"width": 1280, "height": 900}
SKIP = ("/language/", "/static/", ".csv", ".pdf", ".xlsx", "/download", "/sign-out", "/preview",
        f"/services/{PLATFORM_SERVICE_ID}")
MAX_PAGES = 400

# Each body cell's label and the header of its column, per table; a cell without a label is a column whose
# header is for screen readers only (buttons that name what they do).
_LABELS = """() => [...document.querySelectorAll("main table")].map(table => ({
  id: table.id || table.caption?.textContent.trim() || "",
  card: table.classList.contains("notify-table"),
  headers: [...table.tHead.rows[0].cells].map(cell => cell.textContent.trim()),
  hidden: [...table.tHead.rows[0].cells].map(cell => !!cell.querySelector(".notify-visually-hidden")),
  rows: [...table.querySelectorAll(":scope > tbody > tr, :scope > tfoot > tr")].map(row =>
    [...row.cells].map(cell => [cell.getAttribute("data-label"), getComputedStyle(cell, "::before").content])),
}))"""


def _walk(page, start: list[str]) -> list[str]:
    """Every page reached from `start` (each shape of address once); the ones that show a table."""
    seen: set[str] = set(start)
    queue, with_tables, visited = list(start), [], 0
    while queue and visited < MAX_PAGES:
        url = queue.pop(0)
        response = page.goto(url)
        visited += 1
        assert response.status == 200, f"{url}: {response.status}"
        if page.locator("main table").count():
            with_tables.append(url)
        hrefs = page.eval_on_selector_all("a[href]", "links => links.map(link => link.getAttribute('href'))")
        queue += followed(Page(url, links=hrefs), seen, SKIP)
    assert not queue, f"more than {MAX_PAGES} pages"
    return with_tables


def _labels_match_headers(url: str, tables: list[dict]) -> list[str]:
    found = []
    for table in tables:
        if not table["card"]:
            found.append(f"{url}: table {table['id']!r} is not made by _table.html's data_table")
        for cells in table["rows"]:
            for (label, shown), header, hidden in zip(cells, table["headers"], table["hidden"], strict=True):
                if hidden:
                    continue
                if label != header or shown not in (f'"{header}"', f'"{header}" / ""'):
                    found.append(f"{url}: {table['id']!r} labels a {header!r} cell {label!r}, shows {shown}")
    return found


@pytest.mark.parametrize("language", ["nl"])
def test_every_table_reads_on_a_phone_and_a_desktop(page, tmp_path, local_mailbox, live_server, language):
    made = full_service(tmp_path)
    with running_worker():  # the invitation in the local mailbox, the spreadsheet's rows in its job's table
        wait_for(lambda: len(mailbox.messages(local_mailbox)) >= 1, timeout=120)
        wait_for(lambda: Job.select().where(Job.status.not_in([FINISHED, SCHEDULED])).count() == 0, timeout=120)
    page.set_viewport_size(PHONE)
    sign_in(page, made.admin)
    page.goto(f"/language/{language}?next=/services")
    start = [f"/services/{made.service.id}/dashboard", f"/services/{made.trial.id}", "/services", "/"]
    with_tables = _walk(page, start)
    shapes = {re.sub(r"/[0-9a-f-]{36,}", "/…", url).split("?")[0] for url in with_tables}
    assert shapes >= {
        "/services/…/dashboard", "/services/…/jobs", "/services/…/jobs/…", "/services/…/notifications",
        "/services/…/api-integration", "/services/…/delivery-events", "/services/…/history",
        "/services/…/api-keys", "/services/…/users", "/services/…/templates/…/versions", "/account",
        "/platform-admin/local-mailbox", "/platform-admin/workers", "/organisations/…",
        "/organisations/…/usage", "/services/…/usage"}, shapes
    problems = []
    for size in (PHONE, DESKTOP):
        page.set_viewport_size(size)
        for url in with_tables:
            page.goto(url)
            where = f"{url} at {size['width']} px"
            problems += [f"{where}: {word!r} is broken over lines" for word in broken_words(page)]
            problems += [f"{where}: the cell {text!r} runs out of its box" for text in spilling_cells(page)]
            if too_wide := wider_than_the_screen(page):
                problems.append(f"{where}: the page is {too_wide} px wider than the screen")
            if size is PHONE:
                problems += _labels_match_headers(where, page.evaluate(_LABELS))
                assert_accessible(page)
    assert problems == [], "\n".join(problems)


def test_a_table_on_a_phone_is_still_a_table_to_a_screen_reader(signed_in_admin):
    """Its rows stand as blocks, yet the accessibility tree keeps its rows, column headers and cells, and the
    visible labels are not read a second time (the header announces the column)."""
    page = signed_in_admin
    page.set_viewport_size(PHONE)
    page.goto("/account")
    table = page.locator("main table")
    assert table.evaluate("t => getComputedStyle(t.tBodies[0].rows[0].cells[0]).display") == "block"
    tree = table.aria_snapshot()
    assert re.search(r"- rowheader|- columnheader", tree) and "- cell" in tree, tree
    cell = page.locator("main table tbody td").first
    label = cell.get_attribute("data-label")
    assert label and cell.evaluate("c => getComputedStyle(c, '::before').display") == "block"
    # The label is drawn by the stylesheet with an empty alternative text: the cell's accessible name is its value.
    assert label not in cell.aria_snapshot(), cell.aria_snapshot()
