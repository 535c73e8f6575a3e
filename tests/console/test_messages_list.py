"""The messages list: search by recipient (normalised as the API normalises it) or reference, filters by
channel, status, date and key type, retention, paging newest first."""
from __future__ import annotations

import datetime
import re
import zoneinfo

import pytest

from models.db import utcnow
from models.notification import Notification
from models.service import Service
from tests.console.service_pages import signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_notification, create_service


@pytest.fixture
def viewer(console_app, service):
    member = create_console_user(service=service, permissions=["view_activity"])
    return signed_in_client(console_app, member.user)


def _found(client, service, query: str = "") -> list[str]:
    """The ids of the messages the list shows, in its order."""
    response = client.get(f"/services/{service.id}/notifications?{query}")
    assert response.status_code == 200
    return re.findall(r'/notifications/([0-9a-f-]{36})"', response.get_data(as_text=True))


@pytest.fixture
def messages(service):
    now = utcnow()

    def make(minutes_ago: int, **fields):
        return str(create_notification(service=service, created_at=now - datetime.timedelta(minutes=minutes_ago),
                                       **fields).id)

    return {
        "sms": make(1, to="06 12345678", normalised_to="+31612345678", reference="afspraak-1", status="delivered"),
        "email": make(2, notification_type="email", to="Jan@Example.nl", normalised_to="Jan@Example.nl",
                      status="permanent-failure"),
        "letter": make(3, notification_type="letter", to="A. Person\nDorpsstraat 1\n1234 AB  AMSTERDAM",
                       normalised_to="a.persondorpsstraat11234abamsterdam", status="delivered"),
        "failed": make(4, to="0611111111", normalised_to="+31611111111", status="technical-failure",
                       reference="afspraak-2"),
        "old": make(60 * 24 * 3, to="0687654321", normalised_to="+31687654321"),
        "test": make(5, key_type="test"),
        "expired": make(60 * 24 * 8),
    }


def test_the_list_shows_live_messages_inside_retention_newest_first(viewer, service, messages):
    assert _found(viewer, service) == [messages[k] for k in ("sms", "email", "letter", "failed", "old")]
    assert _found(viewer, service, "key_type=test") == [messages["test"]]


def test_search_by_recipient_as_the_api_normalises_it_or_by_reference(viewer, service, messages):
    assert _found(viewer, service, "search=%2B31+6+1234+5678") == [messages["sms"]]
    assert _found(viewer, service, "search=0612345678") == [messages["sms"]]
    assert _found(viewer, service, "search=jan%40example.NL") == [messages["email"]]
    assert _found(viewer, service, "search=a.+person+dorpsstraat+1+1234ab+amsterdam") == [messages["letter"]]
    assert _found(viewer, service, "search=afspraak-2") == [messages["failed"]]
    assert _found(viewer, service, "search=afspraak") == []  # references match whole


def test_filters_by_channel_status_and_date(viewer, service, messages):
    assert _found(viewer, service, "channel=email") == [messages["email"]]
    assert _found(viewer, service, "status=failed") == [messages["email"], messages["failed"]]
    assert _found(viewer, service, "status=received") == [messages["letter"]]  # letters only, as the API
    assert _found(viewer, service, "status=delivered&channel=sms") == [messages["sms"]]
    # The console's dates are the service's own days: near midnight, its date and UTC's differ.
    made = Notification.get_by_id(messages["old"]).created_at.replace(tzinfo=datetime.UTC)
    day = made.astimezone(zoneinfo.ZoneInfo(service.time_zone)).date().isoformat()
    assert _found(viewer, service, f"date_from={day}&date_to={day}") == [messages["old"]]


def test_a_shorter_retention_hides_older_messages(viewer, service, messages):
    Service.update(sms_retention_days=2).where(Service.id == service.id).execute()
    assert messages["old"] not in _found(viewer, service)


def test_bad_dates_are_refused_in_dutch(viewer, service, messages):
    page = viewer.get(f"/services/{service.id}/notifications?date_from=2026-11-20&date_to=2026-11-10")
    assert "De einddatum moet op of na de begindatum liggen" in page.get_data(as_text=True)
    for query, error in (("date_from=gisteren", "Ongeldige datum."), ("status=nonsense", "Ongeldige keuze.")):
        page = viewer.get(f"/services/{service.id}/notifications?{query}")
        assert page.status_code == 200 and error in page.get_data(as_text=True)
        assert _found(viewer, service, query) == []


def test_pages_of_fifty_newest_first(viewer, service):
    now = utcnow()
    made = [str(create_notification(service=service, created_at=now - datetime.timedelta(seconds=n)).id)
            for n in range(55)]
    html = viewer.get(f"/services/{service.id}/notifications?channel=sms").get_data(as_text=True)
    first = re.findall(r'/notifications/([0-9a-f-]{36})"', html)
    assert first == made[:50]
    older = re.search(r'href="([^"]+)" rel="next"|rel="next" href="([^"]+)"', html)
    link = (older.group(1) or older.group(2)).replace("&amp;", "&")
    assert "channel=sms" in link
    second = re.findall(r'/notifications/([0-9a-f-]{36})"', viewer.get(link).get_data(as_text=True))
    assert second == made[50:]


def test_another_services_list_is_not_found(viewer):
    assert viewer.get(f"/services/{create_service().id}/notifications").status_code == 404
