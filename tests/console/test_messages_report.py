"""The messages report (CSV): streamed at once when short, built by a worker when long (with a progress
page), and in either case the messages the v2 API lists, written as the console's list shows them: its column
names and status words in the page's language, times on the service's clock as its pages write them, a phone
number written one way, an address on one line as entered."""
from __future__ import annotations

import csv
import dataclasses
import datetime
import io
import re
from zoneinfo import ZoneInfo

import pytest

import config
from models.message_report import MessageReport
from models.notification import Notification
from pipeline.infrastructure.storage import report_storage
from pipeline.stages import message_report
from tests.conftest import wait_for
from tests.console.browser import assert_accessible
from tests.console.service_pages import amsterdam, signed_in_client
from tests.console.users import create_console_user
from tests.factories import auth_headers, create_key, create_sample_template

ADDRESS = {"address_line_1": "A. Jansen", "address_line_2": "Dorpsstraat 1", "address_line_3": "1234 AB Amsterdam"}
HEADER = ["Ontvanger", "Referentie", "Sjabloon", "Kanaal", "Verstuurd door", "Spreadsheet", "Status",
          "Geaccepteerd op", "API-sleutel", "Bericht-ID"]
CHANNELS = {"sms": "Sms", "email": "E-mail", "letter": "Brief"}
# The words of each message's own page for (channel, status).
STATUSES = {("sms", "created"): "Geaccepteerd", ("email", "created"): "Geaccepteerd",
            ("letter", "created"): "Geaccepteerd", ("sms", "sending"): "Bezig met versturen",
            ("email", "sending"): "Bezig met versturen", ("sms", "delivered"): "Afgeleverd",
            ("email", "delivered"): "Afgeleverd", ("letter", "sending"): "Aan de drukker gegeven",
            ("letter", "delivered"): "Gedrukt en gepost"}


def _send_through_the_api(client, service) -> str:
    """An sms, an email and a letter sent with a live key named "Balie"; returns the key."""
    key = create_key(service=service, name="Balie")
    sms = create_sample_template(service=service, name="Sms-herinnering", body="Hoi ((name))")
    email = create_sample_template(service=service, template_type="email", name="Mail-bevestiging",
                                   body="Beste ((name))", subject="Bevestiging")
    letter = create_sample_template(service=service, template_type="letter", name="Brief", body="Beste ((name))")
    for path, body in (
        ("sms", {"template_id": str(sms.id), "phone_number": "06 1234 5678", "reference": "r-sms"}),
        ("email", {"template_id": str(email.id), "email_address": "jan@example.nl", "reference": "r-mail"}),
        ("letter", {"template_id": str(letter.id), "reference": "r-brief"}),
    ):
        body["personalisation"] = {"name": "Jan", **(ADDRESS if path == "letter" else {})}
        assert client.post(f"/v2/notifications/{path}", json=body, headers=auth_headers(key)).status_code == 201
    return key


def _as_the_console_shows(client, key) -> dict[str, list[str]]:
    """What the report's row of each notification the v2 API lists must hold, newest first."""
    api = client.get("/v2/notifications", headers=auth_headers(key)).get_json()["notifications"]
    names = {"sms": "Sms-herinnering", "email": "Mail-bevestiging", "letter": "Brief"}
    recipients = {"sms": "06 12345678", "email": "jan@example.nl",
                  "letter": "A. Jansen, Dorpsstraat 1, 1234 AB AMSTERDAM"}  # the printed lines, single-spaced
    expected = {}
    for n in api:
        status = Notification.get_by_id(n["id"]).status
        accepted = datetime.datetime.fromisoformat(n["created_at"]).replace(tzinfo=None)
        expected[n["id"]] = [recipients[n["type"]], n["reference"] or "", names[n["type"]], CHANNELS[n["type"]], "",
                             "", STATUSES[n["type"], status], amsterdam(accepted), "Balie", n["id"]]
    return expected


def _rows(text: str) -> list[list[str]]:
    assert text.startswith("\ufeff")  # a byte order mark: Excel reads the file as UTF-8
    return list(csv.reader(io.StringIO(text[1:], newline="")))


@pytest.fixture
def viewer(console_app, service):
    return signed_in_client(console_app, create_console_user(service=service, permissions=["view_activity"]).user)


@pytest.fixture
def background_above(monkeypatch):
    def set_threshold(rows: int) -> None:
        monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(),
                                                                     message_report_background_rows=rows))
    return set_threshold


def test_a_short_report_is_streamed_in_the_consoles_words(viewer, client, service):
    key = _send_through_the_api(client, service)
    response = viewer.get(f"/services/{service.id}/notifications.csv")
    assert response.status_code == 200 and response.headers["Content-Type"] == "text/csv; charset=utf-8"
    # Named by the moment on the service's clock, as its pages show times.
    name = re.fullmatch(rf'attachment; filename="berichten-{service.id}-(\d{{4}}-\d\d-\d\d-\d{{4}})\.csv"',
                        response.headers["Content-Disposition"]).group(1)
    local = datetime.datetime.now(ZoneInfo("Europe/Amsterdam")).replace(tzinfo=None)
    assert abs(datetime.datetime.strptime(name, "%Y-%m-%d-%H%M") - local) < datetime.timedelta(minutes=2)
    header, *rows = _rows(response.get_data(as_text=True))
    assert header == HEADER
    expected = _as_the_console_shows(client, key)
    assert {row[-1]: row for row in rows} == expected
    assert [row[-1] for row in rows] == list(expected)  # newest first, as the API lists them
    filtered = _rows(viewer.get(f"/services/{service.id}/notifications.csv?channel=letter").get_data(as_text=True))
    assert [row[3] for row in filtered[1:]] == ["Brief"]
    assert filtered[1][0] == "A. Jansen, Dorpsstraat 1, 1234 AB AMSTERDAM"


def test_the_report_follows_the_consoles_language_also_when_a_worker_builds_it(viewer, client, service,
                                                                                background_above):
    _send_through_the_api(client, service)
    with viewer.session_transaction() as session:
        session["lang"] = "en"
    english = _rows(viewer.get(f"/services/{service.id}/notifications.csv").get_data(as_text=True))
    assert english[0] == ["Recipient", "Reference", "Template", "Channel", "Sent by", "Spreadsheet", "Status",
                          "Accepted at", "API key", "Message ID"]
    assert {row[3] for row in english[1:]} == {"Text message", "Email", "Letter"}
    background_above(1)
    location = viewer.get(f"/services/{service.id}/notifications.csv").headers["Location"]
    assert MessageReport.get().language == "en"
    assert message_report.build_report(MessageReport.get().id, report_storage()) == "ready"
    download = viewer.get(f"{location}/download")
    assert download.headers["Content-Disposition"].startswith(f'attachment; filename="messages-{service.id}-')
    assert _rows(download.get_data(as_text=True))[0] == english[0]


def test_formula_cells_come_out_as_text_in_both_kinds_of_report(viewer, client, service, background_above):
    # What services type: references, template and key names.
    key = create_key(service=service, name="@SUM(1+1)")
    template = create_sample_template(service=service, name="+cmd|' /C calc'!A0", body="Hoi")
    expected = {}
    for reference, escaped in (('=HYPERLINK("http://x.example")', '\u200b=HYPERLINK("http://x.example")'),
                               ("-2+3", "\u200b-2+3"), ("-42", "-42"), ("-", "-"), ("+31612345678", "+31612345678")):
        sent = client.post("/v2/notifications/sms", headers=auth_headers(key), json={
            "template_id": str(template.id), "phone_number": "+32 470 12 34 56", "reference": reference})
        assert sent.status_code == 201
        # A formula behind a mark no reader sees; a plain number (a phone number, a negative amount) and a lone
        # sign evaluate to themselves: left as they are. A Belgian number in international format starts with +.
        expected[sent.get_json()["id"]] = ["\u200b+32 470 12 34 56", escaped, "\u200b+cmd|' /C calc'!A0",
                                           "\u200b@SUM(1+1)"]

    def cells(text: str) -> dict[str, list[str]]:
        return {row[-1]: [row[0], row[1], row[2], row[8]] for row in _rows(text)[1:]}

    assert cells(viewer.get(f"/services/{service.id}/notifications.csv").get_data(as_text=True)) == expected
    background_above(1)
    location = viewer.get(f"/services/{service.id}/notifications.csv").headers["Location"]
    assert message_report.build_report(MessageReport.get().id, report_storage()) == "ready"
    assert cells(viewer.get(f"{location}/download").get_data(as_text=True)) == expected


def test_a_long_report_is_built_in_the_background_with_its_progress(viewer, client, service, background_above):
    expected = _as_the_console_shows(client, _send_through_the_api(client, service))
    background_above(2)
    response = viewer.get(f"/services/{service.id}/notifications.csv?key_type=live")
    assert response.status_code == 302
    report = MessageReport.get()
    assert response.headers["Location"] == f"/services/{service.id}/notifications/reports/{report.id}"
    page = viewer.get(response.headers["Location"]).get_data(as_text=True)
    assert "De berichten worden geteld…" in page and 'data-ready="false"' in page
    assert viewer.get(f"{response.headers['Location']}/download").status_code == 404  # not ready yet

    _send_through_the_api(client, service)  # sent after the report was asked for: not in it
    assert message_report.build_report(report.id, report_storage()) == "ready"
    assert message_report.build_report(report.id, report_storage()) is None  # a redelivery finds it done
    page = viewer.get(response.headers["Location"]).get_data(as_text=True)
    assert "Het overzicht is klaar: 3 berichten." in page
    download = viewer.get(f"{response.headers['Location']}/download")
    header, *rows = _rows(download.get_data(as_text=True))
    assert {row[-1]: row for row in rows} == expected


def test_another_services_report_is_not_found(console_app, viewer, client, service, background_above):
    _send_through_the_api(client, service)
    background_above(1)
    location = viewer.get(f"/services/{service.id}/notifications.csv").headers["Location"]
    from tests.factories import create_service

    other = create_service()
    outsider = signed_in_client(console_app, create_console_user(service=other, permissions=["view_activity"]).user)
    report_id = location.rsplit("/", 1)[-1]
    for path in (f"/services/{other.id}/notifications/reports/{report_id}",
                 f"/services/{other.id}/notifications/reports/{report_id}/download",
                 f"/services/{other.id}/notifications/reports/not-an-id"):
        assert outsider.get(path).status_code == 404, path


def test_search_then_download_in_the_browser_and_compare_with_the_api(signed_in_member, service, client, worker,
                                                                      background_above):
    page = signed_in_member
    key = _send_through_the_api(client, service)
    # The worker delivers the sms and the email (simulated provider); the letter waits for the printer.
    wait_for(lambda: {row[6] for row in _as_the_console_shows(client, key).values()} == {"Afgeleverd", "Geaccepteerd"})
    expected = _as_the_console_shows(client, key)
    page.goto(f"/services/{service.id}")
    page.get_by_role("link", name="Berichten").first.click()
    page.get_by_label("Ontvanger of referentie").fill("06 12345678")
    page.get_by_label("Kanaal").select_option("sms")
    page.get_by_role("button", name="Zoeken").click()
    assert page.locator("table.notify-messages tbody tr").count() == 1
    cells = page.locator("table.notify-messages tbody tr td")
    assert cells.nth(1).inner_text() == "r-sms"
    assert_accessible(page)

    with page.expect_download() as streamed:
        page.get_by_role("link", name="Download deze berichten (CSV)").click()
    rows = _rows(open(streamed.value.path(), encoding="utf-8", newline="").read())[1:]
    assert [row[-1] for row in rows] == [n for n, row in expected.items() if row[3] == "Sms"]
    assert rows == [expected[rows[0][-1]]]
    # The page and the file say the same: the number, the status, the time.
    assert [cells.nth(i).inner_text() for i in (0, 5, 6)] == [rows[0][0], rows[0][6], rows[0][7]]

    background_above(2)  # the whole list, built by the worker, with the progress page
    page.goto(f"/services/{service.id}/notifications")
    page.get_by_role("link", name="Download deze berichten (CSV)").click()
    page.get_by_role("heading", name="Overzicht van berichten").wait_for()
    assert_accessible(page)
    page.get_by_role("link", name="Download het overzicht (CSV)").wait_for(timeout=30000)
    assert page.get_by_text("Het overzicht is klaar: 3 berichten.").count() == 1
    assert_accessible(page)
    with page.expect_download() as built:
        page.get_by_role("link", name="Download het overzicht (CSV)").click()
    header, *rows = _rows(open(built.value.path(), encoding="utf-8", newline="").read())
    assert header == HEADER
    assert {row[-1]: row for row in rows} == expected


def test_reports_are_deleted_with_their_files_after_a_day(viewer, client, service, background_above):
    from models.db import utcnow
    from workers.periodic import SCHEDULE
    from workers.reports import purge_message_reports

    _send_through_the_api(client, service)
    background_above(1)
    locations = [viewer.get(f"/services/{service.id}/notifications.csv").headers["Location"] for _ in range(2)]
    for report in MessageReport.select():
        message_report.build_report(report.id, report_storage())
    old, new = (MessageReport.get(MessageReport.id == location.rsplit("/", 1)[-1]) for location in locations)
    MessageReport.update(created_at=utcnow() - message_report.KEPT_FOR).where(MessageReport.id == old.id).execute()
    assert report_storage().exists(message_report.report_key(old))

    purge_message_reports.fn()
    assert [r.id for r in MessageReport.select()] == [new.id]
    assert not report_storage().exists(message_report.report_key(old))
    assert viewer.get(f"{locations[0]}/download").status_code == 404
    assert viewer.get(f"{locations[1]}/download").status_code == 200
    assert any(name == "purge-message-reports" and actor is purge_message_reports for name, _, actor in SCHEDULE)
