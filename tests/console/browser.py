"""Helpers of the console's browser tests: the accessibility check and signing in through the pages."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.console.users import ConsoleUser, totp_now

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def assert_accessible(page, *, rules: tuple[str, ...] = ()) -> None:
    """Run axe-core on the page once it has loaded; fail listing every WCAG 2.1 A/AA violation, and every
    violation of the best-practice `rules` named (such as landmark-unique: no two regions with one name)."""
    # A click that navigates returns before the new page's stylesheets are in; axe run on a half-styled
    # page reports contrast the user never sees (the header's logo on an unstyled band, once in CI).
    page.wait_for_load_state("load")
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol, not added as a <script>: the console's CSP runs
        # only its own files, and a test must not need it loosened.
        page.evaluate(AXE.read_text() + "\n;undefined")
    result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS)
    violations = result["violations"]
    if rules:
        violations += page.evaluate("rules => axe.run(document, {runOnly: {type: 'rule', values: rules}})",
                                    list(rules))["violations"]
    violations = [{"id": v["id"], "help": v["help"], "nodes": [n["html"][:200] for n in v["nodes"]]}
                  for v in violations]
    assert violations == [], f"{page.url}: {json.dumps(violations, indent=2)}"


def sign_in(page, user: ConsoleUser) -> None:
    """Sign in through the pages: email and password, then the TOTP code of this moment."""
    page.goto("/sign-in")
    page.fill("#email_address", user.email_address)
    page.fill("#password", user.password)
    page.click("main button[type=submit]")
    page.wait_for_url("**/two-factor")
    page.fill("#code", totp_now(user))
    page.click("main form button[type=submit]")
    page.wait_for_url("**/services")


def emails_to(smtp, address: str, count: int = 1, timeout: float = 15.0) -> list[str]:
    """The plain-text bodies of the first `count` emails that reached the test SMTP server for address."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        found = [m for m in smtp.messages if address in m.rcpt_tos]
        if len(found) >= count:
            return [m.message.get_body(preferencelist=("plain",)).get_content() for m in found]
        if time.monotonic() > deadline:
            raise AssertionError(f"{len(found)} emails to {address}, expected {count}")
        time.sleep(0.05)


def code_in(text: str) -> str:
    import re

    return re.search(r"\b(\d{6})\b", text).group(1)


def path_of_link(text: str, kind: str) -> str:
    """The path of the first console link of a kind (invitation, reset-password) in an email:
    the links name ADMIN_URL, the tests open them on the test server."""
    import re

    return re.search(rf"https?://[^/\s]+(/{kind}/[A-Za-z0-9_\-]+)", text).group(1)


def downloaded_rows(link) -> list[list[str]]:
    """Click a link (a Playwright locator) that downloads a CSV file; its rows (the console's files start with
    a byte order mark, which is not part of the first cell)."""
    with link.page.expect_download() as download:
        link.click()
    with open(download.value.path(), encoding="utf-8-sig", newline="") as file:
        return list(csv.reader(file))
