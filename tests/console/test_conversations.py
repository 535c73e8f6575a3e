"""Received text messages in the console: one line per number, newest first; a conversation shows the
texts received and the sms sent to that number by time, within retention; a reply is a live send."""
from __future__ import annotations

import datetime
import html
import re

from models.db import utcnow
from models.notification import Notification, ReceivedText
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_notification, create_sample_template, create_service

INBOUND = ["email", "sms", "letter", "international_sms", "inbound_sms"]


def _received(service, user_number: str, content: str, minutes_ago: float) -> ReceivedText:
    return ReceivedText.create(service=service, notify_number="3197010000", user_number=user_number,
                               content=content, created_at=utcnow() - datetime.timedelta(minutes=minutes_ago))


def _text(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))))


def test_the_inbox_lists_each_number_once_newest_first_within_7_days(console_app):
    service = create_service(permissions=INBOUND)
    _received(service, "31611111111", "first of one", 30)
    _received(service, "31622222222", "from two", 20)
    _received(service, "31611111111", "latest of one", 10)
    _received(service, "31633333333", "too old", 8 * 24 * 60)
    member = create_console_user(service=service, permissions=["view_activity"])
    page = _text(signed_in_client(console_app, member.user).get(f"/services/{service.id}/conversations"))
    # Each number written as every page writes one.
    assert "06 11111111 latest of one" in page and "first of one" not in page and "too old" not in page
    assert page.index("06 11111111") < page.index("06 22222222")


def test_a_conversation_interleaves_received_and_sent_texts_by_time(console_app):
    service = create_service(permissions=INBOUND)
    latest = _received(service, "31612345678", "Can I change my appointment?", 30)
    create_notification(service=service, to="+31612345678", body="Yes: reply with a new date",
                        created_at=utcnow() - datetime.timedelta(minutes=20), status="delivered")
    _received(service, "31612345678", "Friday please", 10)
    create_notification(service=service, to="+31612345678", key_type="test", body="a test key's send")
    create_notification(service=service, to="+31699999999", body="to someone else")
    create_notification(service=service, to="+31612345678", body="past retention",
                        created_at=utcnow() - datetime.timedelta(days=service.retention_days("sms") + 1))
    member = create_console_user(service=service, permissions=["view_activity"])
    page = _text(signed_in_client(console_app, member.user).get(f"/services/{service.id}/conversations/{latest.id}"))
    assert re.search(r"Can I change my appointment\?.*Yes: reply with a new date.*Friday please", page)
    assert "Verstuurd (Afgeleverd)" in page
    for absent in ("a test key's send", "to someone else", "past retention", "Reply"):
        assert absent not in page


def test_without_inbound_sms_or_for_another_service_it_is_not_found(console_app):
    service = create_service()
    text = _received(create_service(permissions=INBOUND), "31612345678", "hi", 1)
    member = create_console_user(service=service, permissions=["view_activity", "send_messages"])
    client = signed_in_client(console_app, member.user)
    assert client.get(f"/services/{service.id}/conversations").status_code == 404
    service.permissions = INBOUND
    service.save()
    assert client.get(f"/services/{service.id}/conversations").status_code == 200
    assert client.get(f"/services/{service.id}/conversations/{text.id}").status_code == 404


def test_a_reply_from_an_sms_template_is_sent_to_the_number_and_shown_in_the_conversation(console_app):
    service = create_service(permissions=INBOUND)
    text = _received(service, "31612345678", "When is it?", 5)
    template = create_sample_template(service=service, name="Appointment", body="Your appointment is on ((day))")
    create_sample_template(service=service, template_type="email", name="An email", subject="s", body="b")
    member = create_console_user(service=service, permissions=["view_activity", "send_messages"])
    client = signed_in_client(console_app, member.user)
    base = f"/services/{service.id}/conversations/{text.id}"
    choose = _text(client.get(f"{base}/reply"))
    assert "Appointment" in choose and "An email" not in choose
    reply = f"{base}/reply/{template.id}"
    sent = client.post(reply, data={"csrf_token": csrf_token(client, reply), "placeholder_0": "Friday",
                                    "action": "send"})
    assert sent.status_code == 302 and sent.headers["Location"] == base
    stored = Notification.get()
    assert (stored.normalised_to, stored.key_type, stored.created_by_user_id) == (
        "+31612345678", "live", member.user.id)
    assert re.search(r"When is it\?.*Your appointment is on Friday", _text(client.get(base)))
