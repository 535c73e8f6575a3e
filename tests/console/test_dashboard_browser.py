"""The dashboard and the usage page in a real browser, in Dutch and in English, each checked with axe-core."""
from __future__ import annotations

import datetime

from models.db import utcnow
from models.job import IN_PROGRESS, Job
from models.notification import Notification, ReceivedText
from models.service import Service
from pipeline.stages.daily_rollup import roll_up
from tests.console.browser import assert_accessible
from tests.factories import create_notification


def _cells(page, channel: str) -> list[str]:
    return [cell.strip() for cell in page.locator(f'tr[data-channel="{channel}"] td').all_inner_texts()]


def test_the_dashboard_and_usage_page_show_real_figures_in_dutch_and_english(signed_in_member, service):
    page, now = signed_in_member, utcnow()
    Service.update(permissions=[*service.permissions, "inbound_sms"]).where(Service.id == service.id).execute()
    Notification.insert_many([
        {"service": service.id, "key_type": "live", "notification_type": "sms", "to": "+31612345678",
         "status": "delivered" if n >= 6 else "permanent-failure", "billable_units": 1, "rate_multiplier": 1,
         "created_at": now} for n in range(1240)]).execute()
    yesterday = now - datetime.timedelta(days=1)
    for status in ("delivered", "delivered", "sending"):
        create_notification(service=service, notification_type="letter", status=status, billable_units=2,
                            created_at=yesterday)
    roll_up(now=now)  # yesterday's letters come from the rollup
    Job.create(service=service, template_id=service.id, template_version=1, original_file_name="leden.csv",
               notification_count=2000, status=IN_PROGRESS, rows_processed=1500)
    create_notification(service=service, notification_type="email", to="later@example.nl",
                        scheduled_for=now + datetime.timedelta(days=2))
    ReceivedText.create(service=service, notify_number="1234", user_number="+31633333333", content="Stop")

    page.goto(f"/services/{service.id}")
    page.get_by_role("navigation", name="Menu van de dienst").get_by_role("link", name="Dashboard").click()
    page.wait_for_url(f"**/services/{service.id}/dashboard")
    assert page.inner_text("h1") == "Dashboard"
    assert _cells(page, "sms") == ["0", "1.234", "6", "0,5%"]
    assert _cells(page, "letter") == ["1", "2", "0", "0,0%"]
    assert _cells(page, "email") == ["1", "0", "0", "0,0%"]
    main = page.inner_text("main")
    assert "1.500 van 2.000" in main and "later@example.nl" in main and "06 33333333" in main
    assert_accessible(page)
    page.screenshot(path="/tmp/dash-dashboard-nl.png", full_page=True)

    page.get_by_role("link", name="English").click()
    page.wait_for_url(f"**/services/{service.id}/dashboard")
    assert _cells(page, "sms") == ["0", "1,234", "6", "0.5%"]
    assert "1,500 of 2,000" in page.inner_text("main")
    assert_accessible(page)

    page.get_by_role("link", name="Usage and cost per month").click()
    page.wait_for_url(f"**/services/{service.id}/usage")
    month = page.locator(f'tr[data-month="{now:%Y-%m}"]')
    assert month.locator("th").inner_text() == f"{now:%B %Y}"
    # Emails (one scheduled, not sent yet), texts, fragments, letters (with the printer: billed), sheets.
    assert [c.strip() for c in month.locator("td").all_inner_texts()][:5] == (
        ["0", "1,240", "1,240", "3", "6"] if yesterday.month == now.month else ["0", "1,240", "1,240", "0", "0"])
    assert_accessible(page)
    page.screenshot(path="/tmp/dash-usage-en.png", full_page=True)

    page.get_by_role("link", name="Nederlands").click()
    page.wait_for_url(f"**/services/{service.id}/usage")
    assert page.inner_text("h1") == f"Gebruik in {now.year}"
    assert [c.strip() for c in month.locator("td").all_inner_texts()][1] == "1.240"
    assert_accessible(page)
