"""API keys with a last day and their rotation, in a real browser with axe-core: the key made with an
expiry, the warning on the keys page and the dashboard, a rotation whose old key keeps working for the
chosen overlap, both keys tried with the official Python client."""
from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

import pytest
from babel.dates import format_date
from notifications_python_client.errors import HTTPError
from notifications_python_client.notifications import NotificationsAPIClient

from models.api_key import ApiKey
from models.db import utcnow
from models.user import SERVICE_PERMISSIONS
from tests.console.browser import assert_accessible, sign_in
from tests.console.users import create_console_user


def _submit(page, label: str) -> None:
    page.locator("main").get_by_role("button", name=label, exact=True).click()


@pytest.fixture
def member(service):
    return create_console_user(service=service, permissions=list(SERVICE_PERMISSIONS), name="Ann Member")


def test_a_key_with_a_last_day_is_warned_of_and_rotated_with_an_overlap(page, service, member, live_server):
    sign_in(page, member)
    page.goto(f"/services/{service.id}/api-keys/create")
    page.fill("#name", "website")
    page.check("#key_type-0")
    page.fill("#last_day", "2020-01-01")
    _submit(page, "Doorgaan")
    assert "Vul de datum van vandaag of een datum in de toekomst in" in page.inner_text(".notify-error-summary")
    assert_accessible(page)

    last_day = (datetime.date.today() + datetime.timedelta(days=10)).isoformat()
    page.fill("#last_day", last_day)
    _submit(page, "Doorgaan")
    old_key = page.inner_text("#api-key").strip()
    midnight = datetime.datetime.combine(datetime.date.today() + datetime.timedelta(days=11), datetime.time(),
                                         ZoneInfo("Europe/Amsterdam"))
    assert f"werkt tot {format_date(midnight, 'd MMM y', locale='nl')} 00:00 {midnight.tzname()}" \
        in page.inner_text("main")
    assert_accessible(page)
    stored = ApiKey.get(ApiKey.name == "website")
    assert stored.expires_at is not None

    page.goto(f"/services/{service.id}/api-keys")
    warning = page.inner_text(".notify-key-expiry")
    assert "Een API-sleutel verloopt binnenkort" in warning and "‘website’ werkt niet meer vanaf" in warning
    assert_accessible(page)
    page.goto(f"/services/{service.id}/dashboard")
    assert "‘website’ werkt niet meer vanaf" in page.inner_text(".notify-key-expiry")
    assert_accessible(page)

    page.locator(".notify-key-expiry").get_by_role("link", name="Vervangen").click()
    assert_accessible(page)
    page.check("#overlap-2")  # 1 day
    _submit(page, "Deze sleutel vervangen")
    new_key = page.inner_text("#api-key").strip()
    assert new_key != old_key and new_key.startswith(f"website-{service.id}-")
    assert "De oude sleutel blijft werken tot" in page.inner_text("#old-key-expiry")
    assert_accessible(page)

    old_client = NotificationsAPIClient(old_key, base_url=live_server)
    new_client = NotificationsAPIClient(new_key, base_url=live_server)
    assert old_client.get_all_templates() == {"templates": []}  # the overlap: both work
    assert new_client.get_all_templates() == {"templates": []}
    old = ApiKey.get_by_id(stored.id)
    assert abs(old.expires_at - (utcnow() + datetime.timedelta(days=1))) < datetime.timedelta(minutes=1)

    page.goto(f"/services/{service.id}/api-keys")
    assert page.locator(".notify-key-expiry li").count() == 1  # the old key, until tomorrow; not the new one
    ApiKey.update(expires_at=utcnow() - datetime.timedelta(seconds=1)).where(ApiKey.id == old.id).execute()
    with pytest.raises(HTTPError) as refused:
        old_client.get_all_templates()
    assert (refused.value.status_code, refused.value.message[0]["message"]) == (403, "Invalid token: API key revoked")
    assert new_client.get_all_templates() == {"templates": []}

    page.goto(f"/services/{service.id}/api-keys")
    rows = page.locator("tbody tr")
    assert rows.count() == 2 and "Verlopen" in page.locator("tbody tr").nth(1).inner_text()
    assert page.locator(".notify-key-expiry").count() == 0
    assert_accessible(page)
    page.goto(f"/services/{service.id}/api-keys/{old.id}/rotate")
    assert "Deze sleutel is ingetrokken of verlopen" in page.inner_text("main")
    assert_accessible(page)
