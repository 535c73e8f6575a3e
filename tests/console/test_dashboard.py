"""The dashboard and the usage page: their figures are what the API reports, read from today's
notifications and from the daily rollup alike; formatted as the reader's language writes numbers."""
from __future__ import annotations

import datetime
import re
from collections import Counter

from notifications_python_client.notifications import NotificationsAPIClient

from models.daily_rollup import RolledUpDay
from models.db import utcnow
from models.job import IN_PROGRESS, SCHEDULED, Job
from models.notification import Notification, ReceivedText
from pipeline.stages import daily_rollup
from tests.conftest import wait_for
from tests.console.service_pages import signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_key, create_notification, create_sample_template, create_service, set_chain

# The API's statuses (as its clients read them) in the dashboard's groups, written out here on their own.
API_GROUPS = {"created": "sending", "sending": "sending", "pending": "sending", "accepted": "sending",
              "pending-virus-check": "sending", "delivered": "delivered", "sent": "delivered",
              "received": "delivered", "returned-letter": "delivered", "permanent-failure": "failed",
              "temporary-failure": "failed", "technical-failure": "failed", "validation-failed": "failed",
              "virus-scan-failed": "failed"}
FINAL = {"delivered", "sent", "received", "permanent-failure", "temporary-failure", "technical-failure"}
CELL = re.compile(r'data-group="([a-z-]+)">(?:<a [^>]*>)?([^<]*)<')


def shown(client, service) -> dict[str, dict[str, str]]:
    """Each channel's row of the dashboard's table: group -> the text shown."""
    html = client.get(f"/services/{service.id}/dashboard").get_data(as_text=True)
    rows = re.findall(r'<tr class="utrecht-table__row" data-channel="(\w+)">(.*?)</tr>', html, re.S)
    return {channel: dict(CELL.findall(row)) for channel, row in rows}


def api_counts(api: NotificationsAPIClient) -> Counter:
    counts: Counter = Counter()
    for notification in api.get_all_notifications_iterator():
        counts[(notification["type"], API_GROUPS[notification["status"]])] += 1
    return counts


def as_shown(counts: Counter) -> dict[str, dict[str, str]]:
    return {channel: {group: str(counts[(channel, group)]) for group in ("sending", "delivered", "failed")}
            for channel in ("email", "sms", "letter")}


def without_rates(table: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    return {channel: {g: v for g, v in row.items() if g != "failure-rate"} for channel, row in table.items()}


def test_the_dashboard_shows_what_the_api_reports_from_todays_rows_and_from_the_rollup(console_app, live_server,
                                                                                          worker):
    service = create_service(trial_mode=False)
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    sms = create_sample_template(service=service, body="Hallo ((name))")
    email = create_sample_template(service=service, template_type="email", subject="Hallo", body="Hoi")
    sent = [api.send_sms_notification("0612345678", str(sms.id), {"name": n})["id"] for n in ("a", "b", "c")]
    sent += [api.send_email_notification(to, str(email.id))["id"]
             for to in ("a@example.nl", "perm-fail@example.nl", "temp-fail@example.nl", "b@example.nl")]
    create_notification(service=service, key_type="test", status="delivered")  # never on the dashboard
    wait_for(lambda: Notification.select().where(Notification.id.in_(sent)
                                                 & Notification.status.in_(FINAL)).count() == len(sent))
    expected = as_shown(api_counts(api))
    assert expected["email"] == {"sending": "0", "delivered": "2", "failed": "2"}
    assert expected["sms"] == {"sending": "0", "delivered": "3", "failed": "0"}

    member = create_console_user(service=service, permissions=["view_activity"])
    client = signed_in_client(console_app, member.user)
    with client.session_transaction() as session:
        session["lang"] = "en"
    table = shown(client, service)
    assert without_rates(table) == expected
    assert table["email"]["failure-rate"] == "50.0%" and table["sms"]["failure-rate"] == "0.0%"
    # The failed figure opens the messages list filtered to those messages.
    html = client.get(f"/services/{service.id}/dashboard").get_data(as_text=True)
    failed_link = re.search(r'data-channel="email">.*?data-group="failed"><a class="utrecht-link" href="([^"]+)"',
                            html, re.S).group(1).replace("&amp;", "&")
    listed = client.get(failed_link).get_data(as_text=True)
    assert "perm-fail@example.nl" in listed and "temp-fail@example.nl" in listed and "b@example.nl" not in listed

    # The same sends made yesterday: a closed day, read from the rollup once it has run.
    yesterday = utcnow() - datetime.timedelta(days=1)
    Notification.update(created_at=yesterday).execute()
    daily_rollup.roll_up()
    assert RolledUpDay.select().where(RolledUpDay.service == service.id,
                                      RolledUpDay.day == yesterday.date()).exists()
    assert as_shown(api_counts(api)) == expected
    assert without_rates(shown(client, service)) == expected


def test_numbers_are_written_as_the_language_writes_them(console_app):
    service = create_service()
    now = utcnow()
    rows = [{"service": service.id, "key_type": "live", "notification_type": "sms", "to": "+31612345678",
             "status": "delivered" if n >= 6 else "permanent-failure", "created_at": now} for n in range(1240)]
    Notification.insert_many(rows).execute()
    member = create_console_user(service=service, permissions=["view_activity"])
    client = signed_in_client(console_app, member.user)
    assert shown(client, service)["sms"] == {"sending": "0", "delivered": "1.234", "failed": "6",
                                             "failure-rate": "0,5%"}
    with client.session_transaction() as session:
        session["lang"] = "en"
    assert shown(client, service)["sms"] == {"sending": "0", "delivered": "1,234", "failed": "6",
                                             "failure-rate": "0.5%"}


def test_jobs_scheduled_sends_and_received_texts(console_app):
    service = create_service()
    member = create_console_user(service=service, permissions=["view_activity"])
    client = signed_in_client(console_app, member.user)
    now = utcnow()
    Job.create(service=service, template_id=service.id, template_version=1, original_file_name="leden.csv",
               notification_count=1000, status=IN_PROGRESS, rows_processed=250)
    Job.create(service=service, template_id=service.id, template_version=1, original_file_name="later.xlsx",
               notification_count=3, status=SCHEDULED, scheduled_for=datetime.datetime(2030, 1, 2, 9, 30))
    create_notification(service=service, to="+31611111111", scheduled_for=now + datetime.timedelta(hours=5))
    create_notification(service=service, to="+31622222222", scheduled_for=now - datetime.timedelta(hours=1),
                        status="delivered")
    ReceivedText.create(service=service, notify_number="1234", user_number="+31633333333", content="Ja, graag")

    page = client.get(f"/services/{service.id}/dashboard").get_data(as_text=True)
    assert "leden.csv" in page and "250 van 1.000" in page
    assert "1 bericht is ingepland." in page and "06 11111111" in page and "06 22222222" not in page
    assert "later.xlsx" in page and "2 jan 2030 10:30 CET" in page
    assert "Ja, graag" not in page and "Ontvangen sms-berichten" not in page  # no inbound_sms permission

    service.permissions = [*service.permissions, "inbound_sms"]
    service.save()
    page = client.get(f"/services/{service.id}/dashboard").get_data(as_text=True)
    assert "Ontvangen sms-berichten" in page and "Ja, graag" in page and "06 33333333" in page


def test_an_empty_dashboard_says_so(console_app):
    service = create_service(permissions=["sms", "inbound_sms"])
    member = create_console_user(service=service, permissions=["view_activity"])
    client = signed_in_client(console_app, member.user)
    page = client.get(f"/services/{service.id}/dashboard").get_data(as_text=True)
    for text in ("Er zijn geen bulkverzendingen bezig.", "Er is niets ingepland.", "Nog geen sms-berichten ontvangen."):
        assert text in page


def test_the_usage_page_shows_each_month_of_the_year(console_app):
    service = create_service()
    now = utcnow()
    create_notification(service=service, status="delivered", billable_units=2, rate_multiplier=1, created_at=now)
    create_notification(service=service, notification_type="letter", status="delivered", billable_units=2,
                        postage="second", created_at=now)
    member = create_console_user(service=service, permissions=["view_activity"])
    client = signed_in_client(console_app, member.user)
    page = client.get(f"/services/{service.id}/usage").get_data(as_text=True)
    row = re.search(rf'data-month="{now:%Y-%m}">(.*?)</tr>', page, re.S).group(1)
    cells = re.findall(r'notify-number">([^<]*)<', row)
    # emails, texts, fragments, letters, sheets, cost: 2 fragments at 0.0227 and a letter of 2 sheets, 0.73: 0.7754;
    # then how many fell back
    assert cells == ["0", "1", "2", "1", "2", "€\xa00,78", "0"]
    assert len(re.findall(r'<tr class="utrecht-table__row" data-month="\d{4}-\d\d">', page)) == now.month
    assert client.get(f"/services/{service.id}/usage?year={now.year}").status_code == 200
    for bad in ("1999", "abc", str(now.year + 1)):
        assert client.get(f"/services/{service.id}/usage?year={bad}").status_code == 404


def test_the_usage_page_counts_each_message_of_a_chain_as_itself_and_how_many_fell_back(console_app):
    service = create_service()
    now = utcnow()
    text = create_notification(service=service, status="permanent-failure", billable_units=1, rate_multiplier=1,
                               created_at=now)
    email = create_notification(service=service, notification_type="email", status="delivered", billable_units=0,
                                fallback_for=text.id, created_at=now)
    set_chain(text.id, fallback_sent_as=email.id)
    create_notification(service=service, status="permanent-failure", key_type="test", created_at=now,
                        fallback_sent_as=email.id)  # a test key's messages are never counted
    member = create_console_user(service=service, permissions=["view_activity"])
    page = signed_in_client(console_app, member.user).get(f"/services/{service.id}/usage").get_data(as_text=True)
    row = re.search(rf'data-month="{now:%Y-%m}">(.*?)</tr>', page, re.S).group(1)
    cells = re.findall(r'notify-number">([^<]*)<', row)
    assert (cells[0], cells[1], cells[-1]) == ("1", "1", "1")  # the email, the text, and one fell back
    total = re.search(r'data-month="total">(.*?)</tr>', page, re.S).group(1)
    assert re.findall(r'notify-number">([^<]*)<', total)[-1] == "1"


def test_another_services_pages_are_not_found_and_view_activity_is_required(console_app):
    mine, theirs = create_service(name="Mine"), create_service(name="Theirs")
    member = create_console_user(service=mine, permissions=["view_activity"])
    client = signed_in_client(console_app, member.user)
    for page in ("dashboard", "usage"):
        assert client.get(f"/services/{theirs.id}/{page}").status_code == 404
        assert client.get(f"/services/{mine.id}/{page}").status_code == 200
    sender = signed_in_client(console_app, create_console_user(service=mine, permissions=["send_messages"]).user)
    for page in ("dashboard", "usage"):
        assert sender.get(f"/services/{mine.id}/{page}").status_code == 403
