"""The "API integration" page in a real browser with axe-core: messages sent with the official Python
client appear with their status and key (the console's own sends and bulk jobs do not), and the
callback attempts the pipeline made to the service's receiver with their answers."""
from __future__ import annotations

import datetime
import re

from notifications_python_client.notifications import NotificationsAPIClient

from core.api_integration import latest_api_messages
from models.callback_attempt import CallbackAttempt
from models.notification import Notification
from models.user import SERVICE_PERMISSIONS
from tests.conftest import wait_for
from tests.console.browser import assert_accessible, sign_in
from tests.console.users import create_console_user
from tests.factories import create_key, create_notification, create_sample_template, create_service
from tests.test_callbacks import Receiver, register


def test_the_page_shows_api_messages_and_callback_attempts(page, live_server, worker):
    service = create_service(permissions=["sms", "email"])
    member = create_console_user(service=service, permissions=list(SERVICE_PERMISSIONS))
    receiver = Receiver()
    try:
        register(service, receiver)
        receiver.fail_first, receiver.fail_status = 1, 503
        template = create_sample_template(service=service, body="Hi ((name))")
        api = NotificationsAPIClient(create_key(service=service, key_type="test", name="backend"),
                                     base_url=live_server)
        sent = api.send_sms_notification("0612345678", str(template.id), {"name": "x"}, reference="order-17")
        create_notification(service=service, template=template, to="+31611111111", created_by_user_id=member.user.id)
        wait_for(lambda: CallbackAttempt.select().where(CallbackAttempt.status_code == 200).count() == 1)
    finally:
        receiver.close()

    sign_in(page, member)
    page.goto(f"/services/{service.id}")
    page.locator(".notify-service-nav").get_by_role("link", name="API-koppeling").click()
    assert page.inner_text("h1") == "API-koppeling"
    rows = page.locator("#api-messages tbody tr")
    assert rows.count() == 1  # the console's own send is not an API message
    cells = rows.first.locator("td").all_inner_texts()
    assert cells[1].startswith("06 12345678") and cells[2] == "order-17" and cells[3] == "backend (Test)"
    assert cells[4] == "Afgeleverd\nIn de API: delivered"  # the API's word marked as such, beside the Dutch
    attempts = page.locator("#attempts-delivery-status tbody tr")
    assert attempts.count() == 2
    assert [attempts.nth(i).locator("td").nth(3).inner_text() for i in range(2)] == [
        "HTTP 200", "HTTP 503 – mislukt"]
    assert [attempts.nth(i).locator("td").nth(2).inner_text() for i in range(2)] == ["2", "1"]
    assert "Geen pogingen in de laatste 7 dagen." in page.inner_text("main")  # no received-texts callback
    assert_accessible(page)
    rows.first.get_by_role("link").click()
    page.wait_for_url(re.compile(rf".*/notifications/{sent['id']}$"))


def test_the_latest_api_messages_of_every_key_type_merge_newest_first():
    service = create_service()
    base = datetime.datetime(2026, 11, 20, 12, 0)
    for minute, key_type in enumerate(["live", "team", "test", "live", "test"]):
        create_notification(service=service, key_type=key_type, api_key_id=service.id, reference=str(minute),
                            created_at=base + datetime.timedelta(minutes=minute))
    create_notification(service=service, job_id=service.id, job_row_number=0, reference="job",
                        created_at=base + datetime.timedelta(hours=1))
    latest = latest_api_messages(str(service.id), 4)
    assert [m.notification.reference for m in latest] == ["4", "3", "2", "1"]
    assert [m.key_name for m in latest] == ["", "", "", ""]  # no key of that id: its name is unknown
    assert Notification.select().count() == 6


def test_the_page_needs_the_api_keys_permission(page):
    service = create_service()
    member = create_console_user(service=service, permissions=["view_activity"])
    sign_in(page, member)
    assert page.goto(f"/services/{service.id}/api-integration").status == 403
