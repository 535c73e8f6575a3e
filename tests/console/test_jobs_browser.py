"""Bulk sending in a real browser (item 8): a file with one malformed number is refused with that
row's error in the page's words; corrected, its 1,000 rows are all delivered, the job page shows the
counts and the messages list, its search and its CSV hold all of them (issue 32); a scheduled job is
cancelled; XLSX and ODS files are read. axe-core runs on every page."""
from __future__ import annotations

import datetime
import re

from models.job import CANCELLED, Job
from tests.console.browser import assert_accessible
from tests.factories import create_sample_template
from tests.jobs.helpers import csv_file, ods_file, phone, xlsx_file

ROWS = 1000
BAD_ROW = 417  # a 0-based data row: spreadsheet row 419


def _rows(bad: bool) -> list[list[str]]:
    rows = [[phone(n), f"Person {n}"] for n in range(ROWS)]
    if bad:
        rows[BAD_ROW][0] = "06 1234 567"  # a digit short
    return rows


def _upload(page, service, template, name: str, data: bytes, mime: str = "text/csv") -> None:
    page.goto(f"/services/{service.id}/send/{template.id}/upload")
    page.set_input_files("#file", files=[{"name": name, "mimeType": mime, "buffer": data}])
    page.click("main form button[type=submit]")


def test_a_bad_row_is_refused_then_1000_rows_are_all_delivered(signed_in_member, service, worker):
    page = signed_in_member
    template = create_sample_template(service=service, name="Reminder", body="Hello ((name)), see you tomorrow")
    page.goto(f"/services/{service.id}/jobs")
    assert_accessible(page)
    page.click("text=Versturen vanuit een spreadsheet")
    page.click("text=Reminder")
    assert_accessible(page)

    _upload(page, service, template, "people.csv", csv_file(["phone number", "name"], _rows(bad=True)))
    problems = page.locator("#problems tbody tr")
    assert problems.count() == 1
    assert problems.first.locator("td").all_inner_texts() == [
        str(BAD_ROW + 2), "phone number", "Het nummer heeft te weinig cijfers"]
    assert page.locator("text=Er is niets verstuurd.").is_visible()
    assert_accessible(page)
    assert Job.select().count() == 0

    _upload(page, service, template, "people.csv", csv_file(["phone number", "name"], _rows(bad=False)))
    page.wait_for_url("**/upload/*")
    assert page.locator("h1").inner_text() == "1000 berichten versturen"
    assert "Hello Person 0, see you tomorrow" in page.locator("#first-message").inner_text()
    assert_accessible(page)
    page.click("main form button:has-text('Versturen')")
    page.wait_for_url(re.compile(r".*/jobs/[0-9a-f-]{36}$"))
    assert_accessible(page)
    # The page refreshes itself while the job runs: no reload here.
    page.locator("#count-delivered", has_text=re.compile(r"^1\.?000$")).wait_for(timeout=120_000)
    assert page.locator("#count-processed").inner_text() in ("1000 / 1000", "1.000 / 1.000")
    assert page.locator("#count-failed").inner_text() == "0"
    assert page.locator("#count-sending").inner_text() == "0"
    assert page.locator("#job-status").inner_text() == "Alle berichten aangemaakt"
    assert page.locator("#job-messages tbody tr").count() == 50
    assert_accessible(page)
    page.click("#job-messages >> text=06 12000003")
    page.wait_for_url(re.compile(r".*/notifications/[0-9a-f-]{36}$"))
    assert "Hello Person 3, see you tomorrow" in page.locator("main").inner_text()

    # The spreadsheet's messages are the service's messages: in the list, its search and its CSV.
    page.get_by_role("link", name="Berichten", exact=True).click()
    page.wait_for_url("**/notifications")
    page.locator("table.notify-messages").wait_for()
    assert page.locator("table.notify-messages tbody tr").count() == 50
    assert page.get_by_role("link", name="Oudere berichten").is_visible()
    assert_accessible(page)
    page.fill("#search", phone(ROWS - 1))
    with page.expect_navigation():  # the results page, loaded whole before it is read
        page.click("main form[role=search] button")
    assert page.locator("table.notify-messages tbody tr").all_inner_texts()[0].startswith("06 12000999")
    assert page.locator("table.notify-messages tbody tr").count() == 1
    page.fill("#search", "")
    with page.expect_navigation():
        page.click("main form[role=search] button")
    report = page.request.get(page.get_by_role("link", name="Download deze berichten (CSV)").get_attribute("href"))
    lines = report.text().splitlines()
    assert len(lines) == 1 + ROWS and all("people.csv" in line for line in lines[1:])


def test_a_scheduled_job_is_cancelled_before_it_starts(signed_in_member, service):
    page = signed_in_member
    template = create_sample_template(service=service)
    _upload(page, service, template, "later.csv", csv_file(["Phone_Number", "NAME"], [[phone(1), "Ann"]]))
    page.wait_for_url("**/upload/*")
    slot = (datetime.datetime.utcnow() + datetime.timedelta(days=3)).strftime("%Y-%m-%dT%H:00")
    page.select_option("#when", slot)
    page.click("main form button:has-text('Versturen')")
    page.wait_for_url(re.compile(r".*/jobs/[0-9a-f-]{36}$"))
    assert page.locator("#job-status").inner_text() == "Ingepland"
    assert_accessible(page)
    page.click("text=Deze taak annuleren")
    page.locator("#job-status", has_text="Geannuleerd").wait_for()
    assert page.locator("text=Deze taak annuleren").count() == 0
    assert Job.get().status == CANCELLED
    page.goto(f"/services/{service.id}/jobs")
    assert "later.csv" in page.locator("main table").inner_text()
    assert_accessible(page)


def test_xlsx_and_ods_files_are_read(signed_in_member, service):
    page = signed_in_member
    template = create_sample_template(service=service, template_type="email", body="Dear ((name)), you owe ((amount))")
    rows = [["ann@example.nl", "Ann", 12], ["bob@example.nl", "Bob", 7.5]]
    for name, data, mime in [
        ("people.xlsx", xlsx_file(["Email address", "Name", "Amount"], rows),
         "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
        ("people.ods", ods_file(["Email address", "Name", "Amount"], rows),
         "application/vnd.oasis.opendocument.spreadsheet"),
    ]:
        _upload(page, service, template, name, data, mime)
        page.wait_for_url("**/upload/*")
        assert page.locator("h1").inner_text() == "2 berichten versturen"
        assert [r.locator("td").all_inner_texts() for r in page.locator("#preview tbody tr").all()] == [
            ["2", "ann@example.nl", "Ann", "12"], ["3", "bob@example.nl", "Bob", "7.5"]]
        # An email as its recipient gets it: its HTML, in a frame.
        email = page.frame_locator("#first-message iframe.notify-email-preview").locator("body")
        assert "Dear Ann, you owe 12" in email.inner_text()
        assert_accessible(page)


def test_the_example_files_are_offered_where_a_spreadsheet_is_chosen_and_uploaded(signed_in_member, service):
    page = signed_in_member
    template = create_sample_template(service=service, template_type="letter", body="Beste ((naam)), ((adresregel_2))")
    page.goto(f"/services/{service.id}/jobs/new")
    assert_accessible(page)
    page.goto(f"/services/{service.id}/send/{template.id}/upload")
    assert page.locator("#columns code").all_inner_texts() == ["adresregel 1", "adresregel 2", "adresregel 3",
                                                               "postcode", "naam"]  # or postcode for the third
    with page.expect_download() as download:
        page.click("#example-xlsx")
    assert download.value.suggested_filename == "voorbeeld-sample.xlsx"
    assert_accessible(page)
