"""A spreadsheet's columns in Dutch or English: the names a file may head them with, shown in the page's
language; every missing column named at once; an example file per template to download; the first
message previewed as its recipient will see it; a letter's address under its Dutch names."""
from __future__ import annotations

import csv
import io
import re

import openpyxl

from core.senders import add_setting
from models.job import PENDING, Job
from models.notification import Notification
from models.user import SERVICE_PERMISSIONS
from pipeline.stages.jobs import lifecycle, rows
from pipeline.stages.jobs.spreadsheet import read_sheet
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.test_jobs_pages import _cells, _upload
from tests.console.users import create_console_user
from tests.factories import create_sample_template, create_service
from tests.jobs.helpers import csv_file, phone


def _client(console_app, service, language="nl", **account):
    member = create_console_user(service=service, permissions=list(SERVICE_PERMISSIONS))
    if account:
        type(member.user).update(**account).where(type(member.user).id == member.user.id).execute()
    client = signed_in_client(console_app, member.user)
    with client.session_transaction() as session:
        session["lang"] = language
    return client, member


def _header(html: str, table_id: str) -> list[str]:
    table = re.search(rf'<table[^>]*id="{table_id}".*?</thead>', html, re.S).group(0)
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<th[^>]*>(.*?)</th>", table, re.S)]


def test_the_recipient_column_in_either_language_is_shown_in_the_pages_language(console_app):
    service = create_service()
    template = create_sample_template(service=service, body="Hoi ((naam))")
    for language, heading in (("nl", "telefoonnummer"), ("en", "phone number")):
        client, _member = _client(console_app, service, language)
        upload_page = client.get(f"/services/{service.id}/send/{template.id}/upload").get_data(as_text=True)
        assert re.findall(r"<li><code>([^<]+)</code></li>", upload_page) == [heading, "naam"]
        for header in (["Mobiel", "naam"], ["mobile number", "naam"], ["Telefoonnummer", "naam"]):
            check_url = _upload(client, service, template, csv_file(header, [[phone(1), "Jan"]])).headers["Location"]
            assert _header(client.get(check_url).get_data(as_text=True), "preview") == ["Row" if language == "en"
                                                                                        else "Rij", heading, "naam"]


def test_every_missing_column_of_a_letter_file_is_named_in_dutch(console_app):
    service = create_service()
    template = create_sample_template(service=service, template_type="letter", body="Beste ((naam)), ((kenmerk))")
    client, _member = _client(console_app, service)
    html = _upload(client, service, template, csv_file(["adresregel 1", "naam"], [["J. Jansen", "Jan"]]))
    assert [cells[2] for cells in _cells(html.get_data(as_text=True), "problems")] == [
        "Het bestand heeft geen kolom “adresregel 2”", "Het bestand heeft geen kolom “adresregel 3”",
        "Het bestand heeft geen kolom “kenmerk”"]


def test_a_letter_file_with_dutch_address_columns_fills_a_template_written_in_dutch(console_app):
    service = create_service()
    template = create_sample_template(service=service, template_type="letter", name="Aanslag",
                                      body="Beste ((naam)) van ((adresregel_2)),")
    client, _member = _client(console_app, service)
    upload_page = client.get(f"/services/{service.id}/send/{template.id}/upload").get_data(as_text=True)
    needed = re.search(r'<ul class="utrecht-unordered-list" id="columns">(.*?)</ul>', upload_page, re.S).group(1)
    assert [re.sub(r"<[^>]+>", "", item) for item in re.findall(r"<li>(.*?)</li>", needed)] == [
        "adresregel 1", "adresregel 2", "adresregel 3 (of in plaats daarvan een kolom postcode)",
        "naam"]  # ((adresregel_2)) is the address's line
    data = csv_file(["Adresregel 1", "adresregel_2", "Postcode", "naam"],
                    [["J. Jansen", "Dorpsstraat 1", "1234 AB Amsterdam", "Jan"]])
    response = _upload(client, service, template, data)
    assert response.status_code == 302, response.get_data(as_text=True)
    html = client.get(response.headers["Location"]).get_data(as_text=True)
    assert _cells(html, "preview") == [["2", "J. Jansen", "Dorpsstraat 1", "", "Jan"]]
    first = re.search(r'<dl class="notify-summary">.*?</dl>\s*<div class="notify-message-preview"[^>]*>(.*?)</div>',
                      html, re.S)
    assert "J. Jansen<br>Dorpsstraat 1<br>1234 AB  AMSTERDAM" in first.group(0)
    assert first.group(1) == "Beste Jan van Dorpsstraat 1,"
    client.post(response.headers["Location"], data={"csrf_token": csrf_token(client, response.headers["Location"]),
                                                    "when": "now"})
    job = Job.get()
    if job.status == PENDING:
        assert lifecycle.start_job(job.id)
    rows.create_chunk(job.id, 0, lambda new: None, lambda: None)
    letter = Notification.get(Notification.service == service)
    assert letter.personalisation == {"address_line_1": "J. Jansen", "address_line_2": "Dorpsstraat 1",
                                      "Postcode": "1234 AB Amsterdam", "naam": "Jan"}
    assert letter.body == "Beste Jan van Dorpsstraat 1,"


def test_the_first_message_is_shown_as_the_recipient_sees_it(console_app):
    service = create_service()
    text = create_sample_template(service=service, body="Hallo ((naam)),\n\nUw afspraak is morgen.")
    client, _member = _client(console_app, service)
    check_url = _upload(client, service, text, csv_file(["telefoonnummer", "naam"], [[phone(3), "Jan"]])).headers[
        "Location"]
    html = client.get(check_url).get_data(as_text=True)
    assert "<pre" not in html
    assert ('<div class="notify-message-preview" data-testid="message-body">Hallo Jan,\n\nUw afspraak is morgen.'
            '</div>') in html
    assert "<dt>Aan</dt>\n  <dd>0612000003</dd>" in html
    email = create_sample_template(service=service, template_type="email", subject="Afspraak ((naam))",
                                   body="Hallo ((naam))")
    check_url = _upload(client, service, email, csv_file(["e-mailadres", "naam"], [["jan@example.nl", "Jan"]])).headers[
        "Location"]
    response = client.get(check_url)
    html = response.get_data(as_text=True)
    assert "<dd>Afspraak Jan</dd>" in html
    frame = re.search(r'<iframe class="notify-email-preview" title="De e-mail zoals die verstuurd wordt" sandbox '
                      r'srcdoc="([^"]+)"', html)
    assert "Hallo Jan" in frame.group(1)
    assert "style-src 'self' 'unsafe-inline'" in response.headers["Content-Security-Policy"]  # the email's styles


def test_an_example_file_per_template_in_csv_and_xlsx(console_app):
    service = create_service()
    email = create_sample_template(service=service, template_type="email", name="Afspraak bevestigd!",
                                   subject="Afspraak", body="Hallo ((naam)), tot ((datum)).")
    letter = create_sample_template(service=service, template_type="letter", body="Beste ((naam))")
    client, member = _client(console_app, service)
    chooser = client.get(f"/services/{service.id}/jobs/new").get_data(as_text=True)  # the send-a-spreadsheet page
    assert f'href="/services/{service.id}/send/{email.id}/example.csv" download>CSV-bestand</a>' in chooser
    assert f'href="/services/{service.id}/send/{letter.id}/example.xlsx" download>Excel-bestand (XLSX)</a>' in chooser
    upload_page = client.get(f"/services/{service.id}/send/{email.id}/upload").get_data(as_text=True)
    csv_link = re.search(r'<a class="utrecht-link" id="example-csv" href="([^"]+)" download>CSV-bestand</a>',
                         upload_page).group(1)
    xlsx_link = re.search(r'id="example-xlsx" href="([^"]+)" download>Excel-bestand \(XLSX\)</a>', upload_page).group(1)

    response = client.get(csv_link)
    assert response.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert response.headers["Content-Disposition"] == 'attachment; filename="voorbeeld-afspraak-bevestigd.csv"'
    assert response.data.startswith(b"\xef\xbb\xbf")  # a byte order mark: Excel reads the file as UTF-8
    # A row to yourself, each placeholder holding its own name: what arrives reads as the example it is.
    assert list(csv.reader(io.StringIO(response.data.decode("utf-8-sig")))) == [
        ["e-mailadres", "naam", "datum"], [member.email_address, "naam", "datum"]]

    response = client.get(xlsx_link)
    assert response.headers["Content-Disposition"] == 'attachment; filename="voorbeeld-afspraak-bevestigd.xlsx"'
    sheet = openpyxl.load_workbook(io.BytesIO(response.data)).active
    assert [[cell.value for cell in row] for row in sheet.iter_rows()] == [
        ["e-mailadres", "naam", "datum"], [member.email_address, "naam", "datum"]]
    assert read_sheet("example.xlsx", response.data).header == ["e-mailadres", "naam", "datum"]
    # Uploaded as it came, the example is a file the upload takes.
    assert _upload(client, service, email, response.data, name="example.xlsx").status_code == 302

    with client.session_transaction() as session:
        session["lang"] = "en"
    english = client.get(f"/services/{service.id}/send/{letter.id}/example.csv")
    assert english.headers["Content-Disposition"] == 'attachment; filename="example-sample.csv"'
    # The service has no address of its own: the letter's example goes to a town that does not exist.
    assert list(csv.reader(io.StringIO(english.data.decode("utf-8-sig")))) == [
        ["address line 1", "address line 2", "address line 3", "naam"],
        ["A. de Vries", "Voorbeeldstraat 1", "1234 AB Voorbeeldstad", "naam"]]
    assert _upload(client, service, letter, english.data, name="example.csv").status_code == 302
    assert client.get(f"/services/{service.id}/send/{letter.id}/example.ods").status_code == 404


def test_a_letters_example_row_goes_to_the_services_own_address_when_it_has_one(console_app):
    service = create_service()
    letter = create_sample_template(service=service, template_type="letter", body="Beste ((naam))")
    client, _member = _client(console_app, service)
    add_setting("letter-contacts", str(service.id), value="Gemeente Voorbeeld\nTel. 14 020", is_default=True)
    example = client.get(f"/services/{service.id}/send/{letter.id}/example.csv").data.decode("utf-8-sig")
    assert list(csv.reader(io.StringIO(example)))[1][:3] == ["A. de Vries", "Voorbeeldstraat 1",
                                                             "1234 AB Voorbeeldstad"]  # a contact block, no address
    add_setting("letter-contacts", str(service.id), value="Gemeente Voorbeeld\nPostbus 1\n1000 AA Amsterdam",
                is_default=True)
    example = client.get(f"/services/{service.id}/send/{letter.id}/example.csv")
    assert list(csv.reader(io.StringIO(example.data.decode("utf-8-sig")))) == [
        ["adresregel 1", "adresregel 2", "adresregel 3", "naam"],
        ["Gemeente Voorbeeld", "Postbus 1", "1000 AA Amsterdam", "naam"]]  # a letter sent as it is comes back
    assert _upload(client, service, letter, example.data, name="voorbeeld.csv").status_code == 302


def test_the_example_row_holds_a_mobile_number_only_when_the_account_has_one(console_app):
    service = create_service()
    text = create_sample_template(service=service, body="Hoi ((naam))")
    client, _member = _client(console_app, service)
    assert client.get(f"/services/{service.id}/send/{text.id}/example.csv").data.decode("utf-8-sig") == (
        "telefoonnummer,naam\r\n")
    client, _member = _client(console_app, service, mobile_number="+31612345678")
    assert client.get(f"/services/{service.id}/send/{text.id}/example.csv").data.decode("utf-8-sig") == (
        "telefoonnummer,naam\r\n06 12345678,naam\r\n")  # the number as every page writes it


def test_the_letter_page_names_exactly_what_the_upload_takes(console_app):
    """The page lists the columns from the list the upload checks against: adresregel 3 or, in its place, a
    postcode column; and says an address has 3 to 7 lines, which each row's address is held to."""
    service = create_service()
    letter = create_sample_template(service=service, template_type="letter", body="Beste ((naam))")
    client, _member = _client(console_app, service)
    page = client.get(f"/services/{service.id}/send/{letter.id}/upload").get_data(as_text=True)
    needed = re.search(r'<ul class="utrecht-unordered-list" id="columns">(.*?)</ul>', page, re.S).group(1)
    assert [re.sub(r"<[^>]+>", "", item) for item in re.findall(r"<li>(.*?)</li>", needed)] == [
        "adresregel 1", "adresregel 2", "adresregel 3 (of in plaats daarvan een kolom postcode)", "naam"]
    lines = re.search(r'<p class="utrecht-paragraph" id="address-lines">(.*?)</p>', page).group(1)
    lines = re.sub(r"<[^>]+>", "", lines)
    assert lines == ("Vul in elke rij de eerste drie adresregels in (een kolom postcode mag de derde vervangen). Een "
                     "langer adres gaat verder in de kolommen tot en met adresregel 7: hoogstens 7 regels. De laatste "
                     "ingevulde regel is de postcode en plaats, of een land.")
    address = ["J. Jansen", "Dorpsstraat 1", "1234 AB Amsterdam"]
    for header in (["adresregel 1", "adresregel 2", "adresregel 3", "naam"],
                   ["adresregel 1", "adresregel 2", "postcode", "naam"]):
        assert _upload(client, service, letter, csv_file(header, [[*address, "Jan"]])).status_code == 302, header
    four = ["adresregel 1", "adresregel 2", "adresregel 3", "adresregel 4", "naam"]
    taken = _upload(client, service, letter, csv_file(four, [["J. Jansen", "p/a Gemeente", "Dorpsstraat 1",
                                                               "1234 AB Amsterdam", "Jan"]]))
    assert taken.status_code == 302
    refused = _upload(client, service, letter, csv_file(["adresregel 1", "adresregel 2", "naam"],
                                                        [["J. Jansen", "1234 AB Amsterdam", "Jan"]]))
    assert [cells[2] for cells in _cells(refused.get_data(as_text=True), "problems")] == [
        "Het bestand heeft geen kolom “adresregel 3”"]
    short = _upload(client, service, letter, csv_file(four[:3] + ["naam"], [["J. Jansen", "", "1234 AB Amsterdam",
                                                                             "Jan"]]))
    assert [cells[2] for cells in _cells(short.get_data(as_text=True), "problems")] == [
        "Vul “adresregel 2” in", "Een adres heeft minstens 3 regels nodig"]


def test_the_preview_counts_its_rows_in_the_singular_or_the_plural(console_app):
    service = create_service()
    template = create_sample_template(service=service, body="Hoi ((naam))")
    client, _member = _client(console_app, service)
    two = "De eerste rijen van het bestand (2 rijen in totaal)"
    one_row, two_rows = [[phone(1), "Jan"]], [[phone(1), "Jan"], [phone(2), "Piet"]]
    for lines, caption in ((one_row, "Het bestand heeft 1 rij"), (two_rows, two)):
        check_url = _upload(client, service, template, csv_file(["telefoonnummer", "naam"], lines)).headers["Location"]
        html = client.get(check_url).get_data(as_text=True)
        assert re.search(r'<table[^>]*id="preview".*?<caption[^>]*>(.*?)</caption>', html, re.S).group(1) == caption
