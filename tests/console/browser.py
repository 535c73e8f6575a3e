"""Helpers of the console's browser tests: the accessibility check and signing in through the pages."""
from __future__ import annotations

import json
from pathlib import Path

from tests.console.users import ConsoleUser, totp_now

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def assert_accessible(page) -> None:
    """Run axe-core on the page as it is now; fail listing every WCAG 2.1 A/AA violation."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", AXE_TAGS)
    violations = [{"id": v["id"], "help": v["help"], "nodes": [n["html"][:200] for n in v["nodes"]]}
                  for v in result["violations"]]
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
