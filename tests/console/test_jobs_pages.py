"""Bulk sending pages without a browser: every problem of a file shown at once with its row and
column, the check page's preview, sending now or scheduling, the job page and cancelling."""
from __future__ import annotations

import datetime
import io
import re

from models.job import CANCELLED, PENDING, SCHEDULED, Job
from models.service import GuestListEntry
from models.user import SERVICE_PERMISSIONS
from pipeline.infrastructure import daily_limits
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_sample_template, create_service
from tests.jobs.helpers import csv_file, phone, sms_rows


def _client(console_app, service, permissions=SERVICE_PERMISSIONS):
    member = create_console_user(service=service, permissions=list(permissions))
    return signed_in_client(console_app, member.user)


def _upload(client, service, template, data: bytes, name: str = "people.csv"):
    url = f"/services/{service.id}/send/{template.id}/upload"
    return client.post(url, data={"csrf_token": csrf_token(client, url), "file": (io.BytesIO(data), name)},
                       content_type="multipart/form-data")


def _cells(html: str, table_id: str) -> list[list[str]]:
    table = re.search(rf'<table[^>]*id="{table_id}".*?</table>', html, re.S).group(0)
    body = table.split("<tbody", 1)[1]
    return [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


def test_every_problem_of_the_file_is_shown_with_its_row_and_column_and_nothing_is_sent(console_app):
    service = create_service()
    template = create_sample_template(service=service, body="Hello ((name)), your code is ((code))")
    rows = [[phone(0), "Ann", "1"], ["06123", "Bob", "2"], [phone(2), "", "3"], ["+31 6 12 34 56 78 9", "Eve", ""]]
    response = _upload(_client(console_app, service), service, template,
                       csv_file(["Phone Number", "Name", "code"], rows))
    html = response.get_data(as_text=True)
    assert response.status_code == 400
    assert _cells(html, "problems") == [
        ["3", "Phone Number", "Het nummer heeft te weinig cijfers"],  # in the page's words, no API field name
        ["4", "Name", "Vul een waarde in voor: name"],
        ["5", "Phone Number", "Het nummer heeft te veel cijfers"],
        ["5", "code", "Vul een waarde in voor: code"],
    ]
    assert _cells(html, "preview")[:2] == [["2", "0612000000", "Ann", "1"], ["3", "06123", "Bob", "2"]]
    assert Job.select().count() == 0


def test_every_missing_column_and_a_file_that_is_not_a_spreadsheet_are_refused_in_dutch(console_app):
    service = create_service()
    template = create_sample_template(service=service)  # "Hello ((name))"
    client = _client(console_app, service)
    html = _upload(client, service, template, csv_file(["email address"], [["a@example.nl"]])).get_data(as_text=True)
    assert _cells(html, "problems") == [["hele bestand", "", "Het bestand heeft geen kolom “telefoonnummer”"],
                                        ["hele bestand", "", "Het bestand heeft geen kolom “name”"]]
    with client.session_transaction() as session:
        session["lang"] = "en"
    html = _upload(client, service, template, csv_file(["email address"], [["a@example.nl"]])).get_data(as_text=True)
    assert _cells(html, "problems") == [["whole file", "", "The file has no column called “phone number”"],
                                        ["whole file", "", "The file has no column called “name”"]]
    with client.session_transaction() as session:
        session["lang"] = "nl"
    html = _upload(client, service, template, b"\x00\x01", name="people.xlsx").get_data(as_text=True)
    assert "Het bestand kan niet als spreadsheet gelezen worden" in html
    html = _upload(client, service, template, b"hello", name="people.txt").get_data(as_text=True)
    assert "Het bestand moet een CSV-, XLSX- of ODS-spreadsheet zijn" in html


def test_a_trial_service_may_send_only_to_its_team_and_guest_list(console_app):
    service = create_service(trial_mode=True)
    GuestListEntry.create(service=service, recipient="+31612000000", recipient_type="mobile")
    GuestListEntry.create(service=service, recipient="+31612000150", recipient_type="mobile")
    template = create_sample_template(service=service)
    html = _upload(_client(console_app, service), service, template, sms_rows(200)).get_data(as_text=True)
    # One line for the kind of problem, naming the rows it affects (rows 2 and 152 are on the guest list).
    assert _cells(html, "problems") == [["3–151, 153–201", "Phone number", "In proefmodus verstuurt deze dienst "
                                         "alleen naar het eigen team en de gastenlijst. Het team is het e-mailadres "
                                         "en het bevestigde mobiele nummer op het account van elk teamlid. Wat "
                                         "proefmodus betekent Uw mobiele nummer aan uw account toevoegen"]]
    assert '<a class="utrecht-link" href="/trial-mode">Wat proefmodus betekent</a>' in html


def test_a_file_over_todays_limit_is_refused_as_a_whole(console_app):
    service = create_service(sms_daily_limit=10)
    daily_limits.reserve(service.id, {"sms": 4}, {"sms": 10})
    template = create_sample_template(service=service)
    response = _upload(_client(console_app, service), service, template, sms_rows(7))
    assert response.status_code == 400
    assert ("Het bestand heeft 7 rijen, maar de dienst kan vandaag nog maar 6 sms-berichten sturen "
            "(de daglimiet is 10). Er is niets verstuurd.") in response.get_data(as_text=True)


def test_a_good_file_is_checked_previewed_and_sent_now(console_app):
    service = create_service()
    template = create_sample_template(service=service, body="Hello ((name))")
    client = _client(console_app, service)
    response = _upload(client, service, template, sms_rows(12))
    assert response.status_code == 302
    check_url = response.headers["Location"]
    html = client.get(check_url).get_data(as_text=True)
    assert "12 berichten versturen" in html and "Hello Person 0" in html
    assert _cells(html, "preview")[0] == ["2", "0612000000", "Person 0"]
    response = client.post(check_url, data={"csrf_token": csrf_token(client, check_url), "when": "now"})
    job = Job.get()
    assert response.headers["Location"] == f"/services/{service.id}/jobs/{job.id}"
    assert (job.status, job.notification_count, job.original_file_name) == (PENDING, 12, "people.csv")
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "people.csv" in html and "0 / 12" in html
    assert client.get(check_url).status_code == 404  # an upload is sent once


def test_a_scheduled_job_is_cancelled_from_its_page(console_app):
    service = create_service()
    template = create_sample_template(service=service)
    client = _client(console_app, service)
    check_url = _upload(client, service, template, sms_rows(3)).headers["Location"]
    slot = (datetime.datetime.utcnow() + datetime.timedelta(days=2)).strftime("%Y-%m-%dT%H:00")
    scheduled = client.post(check_url, data={"csrf_token": csrf_token(client, check_url), "when": slot})
    job_url = scheduled.headers["Location"]
    job = Job.get()
    assert job.status == SCHEDULED and job.scheduled_for == datetime.datetime.fromisoformat(slot)
    assert "Ingepland" in client.get(job_url).get_data(as_text=True)
    client.post(f"{job_url}/cancel", data={"csrf_token": csrf_token(client, job_url)})
    assert Job.get().status == CANCELLED
    html = client.get(job_url).get_data(as_text=True)
    assert "Geannuleerd" in html and "Deze taak annuleren" not in html


def test_a_member_who_may_not_send_cannot_upload(console_app):
    service = create_service()
    template = create_sample_template(service=service)
    client = _client(console_app, service, permissions=["view_activity"])
    assert client.get(f"/services/{service.id}/send/{template.id}/upload").status_code == 403
    assert client.get(f"/services/{service.id}/jobs").status_code == 200


def test_a_letter_file_is_previewed_with_its_address_columns(console_app):
    service = create_service()
    template = create_sample_template(service=service, template_type="letter", name="Bill", body="Dear ((name))")
    client = _client(console_app, service)
    assert "Bill" in client.get(f"/services/{service.id}/jobs/new").get_data(as_text=True)
    data = csv_file(["address line 1", "address line 2", "address line 3", "name"],
                    [["J. Jansen", "Dorpsstraat 1", "1234 AB  Amsterdam", "Jan"]])
    check_url = _upload(client, service, template, data).headers["Location"]
    html = client.get(check_url).get_data(as_text=True)
    assert _cells(html, "preview") == [["2", "J. Jansen", "Dorpsstraat 1", "1234 AB  Amsterdam", "Jan"]]
    assert "Dear Jan" in html


def test_uploading_without_a_file_asks_for_one(console_app):
    service = create_service()
    template = create_sample_template(service=service)
    client = _client(console_app, service)
    url = f"/services/{service.id}/send/{template.id}/upload"
    html = client.post(url, data={"csrf_token": csrf_token(client, url)},
                       content_type="multipart/form-data").get_data(as_text=True)
    assert "Kies een bestand om te uploaden" in html
