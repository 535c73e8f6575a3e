"""Hosted one-click unsubscribe: our link goes into the email's headers, the recipient's POST reaches the
service as a callback and in its report. Real SMTP relay, real worker, real HTTP receiver."""
from __future__ import annotations

import csv
import io
import time

import pytest
import requests
from notifications_python_client.notifications import NotificationsAPIClient

from models.notification_event import NotificationEvent
from tests.admin_helpers import admin_headers
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_sample_template, create_service
from tests.test_callbacks import assert_signed, receiver, register  # noqa: F401  (receiver: a fixture)

ONE_CLICK = {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.fixture
def service(client):
    service = create_service()
    response = client.patch(f"/admin/services/{service.id}", json={"hosted_unsubscribe": True}, headers=admin_headers())
    assert response.status_code == 200 and response.get_json()["hosted_unsubscribe"] is True
    return service


def send(service, live_server, **options) -> str:
    template = create_sample_template(service=service, template_type="email", body="Hello ((name))")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    return api.send_email_notification("someone@example.nl", str(template.id), {"name": "x"}, reference="news-1",
                                       **options)["id"]


def test_a_recipients_unsubscribe_post_reaches_the_service(client, service, receiver, live_server, worker,
                                                          real_providers):
    smtp, _ = real_providers
    register(service, receiver, "unsubscribe")
    notification_id = send(service, live_server)
    [received] = smtp.wait_for_messages(1)
    link = received.message["List-Unsubscribe"]
    assert link.startswith(f"<{live_server}/unsubscribe/{notification_id}/") and link.endswith(">")
    assert received.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    wait_for(lambda: status_of(notification_id) == "delivered")

    url = link[1:-1]
    answer = requests.post(url, data="List-Unsubscribe=One-Click", headers=ONE_CLICK, timeout=10)
    assert answer.status_code == 200 and "is doorgegeven aan" in answer.text  # the service's language: Dutch
    [callback] = receiver.wait_for(1)
    event = NotificationEvent.get(NotificationEvent.notification_id == notification_id)
    assert callback.json == {
        "notification_id": notification_id, "unsubscribe_request_id": str(event.id), "reference": "news-1",
        "to": "someone@example.nl", "template_id": callback.json["template_id"], "template_version": 1,
        "unsubscribe_request_date": callback.json["unsubscribe_request_date"],
    }
    assert_signed(callback)

    assert requests.post(url, data="List-Unsubscribe=One-Click", headers=ONE_CLICK, timeout=10).status_code == 200
    time.sleep(0.5)
    assert len(receiver.requests) == 1  # asked twice, reported once

    report = client.get(f"/admin/services/{service.id}/unsubscribe-requests.csv", headers=admin_headers())
    assert report.status_code == 200 and report.mimetype == "text/csv"
    assert "attachment" in report.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(report.get_data(as_text=True))))
    assert [(r["email_address"], r["notification_id"], r["reference"]) for r in rows] == \
        [("someone@example.nl", notification_id, "news-1")]


def test_the_services_own_url_wins_and_no_setting_means_no_header(client, service, live_server, worker,
                                                                  real_providers):
    smtp, _ = real_providers
    send(service, live_server, one_click_unsubscribe_url="https://news.example.nl/unsubscribe?u=1")
    plain = create_service(name="Plain")
    send(plain, live_server)
    messages = {m.message["From"].addresses[0].display_name: m.message for m in smtp.wait_for_messages(2)}
    assert messages[service.name]["List-Unsubscribe"] == "<https://news.example.nl/unsubscribe?u=1>"
    assert messages["Plain"]["List-Unsubscribe"] is None


def test_a_wrong_token_finds_nothing_and_a_get_only_asks(client, service):
    from pipeline.stages.unsubscribe import token_for
    from tests.factories import create_notification

    notification = create_notification(service=service, notification_type="email", status="delivered")
    wrong = client.post(f"/unsubscribe/{notification.id}/{token_for('another')}")
    assert wrong.status_code == 404
    assert wrong.get_json() == {"status_code": 404,
                                "errors": [{"error": "NoResultFound", "message": "No result found"}]}
    assert client.post(f"/unsubscribe/not-an-id/{token_for('not-an-id')}").status_code == 404
    page = client.get(f"/unsubscribe/{notification.id}/{token_for(str(notification.id))}")
    assert page.status_code == 200 and '<form method="post">' in page.get_data(as_text=True)
    assert NotificationEvent.select().count() == 0  # a GET (a link scanner, say) records nothing
    assert client.post(f"/unsubscribe/{notification.id}/{token_for(str(notification.id))}").status_code == 200
    assert NotificationEvent.select().count() == 1


def test_the_report_writes_formula_cells_as_text(client, service):
    from pipeline.stages.unsubscribe import token_for
    from tests.factories import create_notification

    notification = create_notification(service=service, notification_type="email", status="delivered",
                                       to="-2+3@example.nl", reference="=HYPERLINK(\"http://x.example\")")
    assert client.post(f"/unsubscribe/{notification.id}/{token_for(str(notification.id))}").status_code == 200
    report = client.get(f"/admin/services/{service.id}/unsubscribe-requests.csv", headers=admin_headers())
    [row] = csv.DictReader(io.StringIO(report.get_data(as_text=True)))
    assert (row["email_address"], row["notification_id"], row["reference"]) == \
        ("\u200b-2+3@example.nl", str(notification.id), "\u200b=HYPERLINK(\"http://x.example\")")  # csv_output
