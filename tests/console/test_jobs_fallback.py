"""A spreadsheet of texts that fall back (issue 44): the upload page offers an email and a letter
template; each row's email address and address columns are checked as those messages would be, a row
that leaves them blank gets no such alternative, and each row's notification carries its own."""
from __future__ import annotations

import csv
import io
import re

import pytest

from models.job import Job
from models.notification import Notification
from pipeline.domain.errors import kept
from pipeline.stages.jobs import lifecycle, rows
from pipeline.stages.send_checks import trial_letters_message
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.factories import chain_of, create_notification, create_sample_template, create_service, set_chain
from tests.jobs.helpers import csv_file, make_job, phone

HEADER = ["telefoonnummer", "e-mailadres", "adresregel 1", "adresregel 2", "adresregel 3", "naam"]


@pytest.fixture
def service():
    return create_service()


@pytest.fixture
def client(console_app, service):
    member = create_console_user(service=service, permissions=["send_messages", "view_activity"])
    return signed_in_client(console_app, member.user)


def _upload(client, service, template, data: bytes, **choices):
    url = f"/services/{service.id}/send/{template.id}/upload"
    return client.post(url, data={"csrf_token": csrf_token(client, url), "file": (io.BytesIO(data), "people.csv"),
                                  **choices}, content_type="multipart/form-data")


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_upload_page_offers_an_email_then_a_letter_for_texts(client, service, templates):
    html = client.get(f"/services/{service.id}/send/{templates['sms'].id}/upload").get_data(as_text=True)
    assert html.index('name="fallback_email"') < html.index('name="fallback_letter"')
    assert "Afspraak per mail" in html and "Afspraakbrief" in html
    letter_page = client.get(f"/services/{service.id}/send/{templates['letter'].id}/upload").get_data(as_text=True)
    assert "fallback_" not in letter_page


def test_rows_are_checked_for_their_alternatives_and_blank_ones_get_none(client, service, templates):
    data = csv_file(HEADER, [[phone(0), "anna@example.nl", "A. Jansen", "Kerkstraat 1", "1234 AB Utrecht", "Anna"],
                             [phone(1), "", "", "", "", "Bob"],
                             [phone(2), "geen-adres", "C. de Vries", "Dorpsweg 2", "", "Cas"]])
    choices = {"fallback_email": str(templates["email"].id), "fallback_letter": str(templates["letter"].id)}
    refused = _upload(client, service, templates["sms"], data, **choices)
    assert refused.status_code == 400 and Job.select().count() == 0
    problems = _text(refused.get_data(as_text=True))
    assert "4 e-mailadres Vul een geldig e-mailadres in" in problems
    assert "4 Een adres heeft minstens 3 regels" in problems
    good = csv_file(HEADER, [[phone(0), "anna@example.nl", "A. Jansen", "Kerkstraat 1", "1234 AB Utrecht", "Anna"],
                             [phone(1), "", "", "", "", "Bob"]])
    check_url = _upload(client, service, templates["sms"], good, **choices).headers["Location"]
    check = _text(client.get(check_url).get_data(as_text=True))
    assert "dan de e-mail Afspraak per mail: 1 rijen hebben een e-mailadres" in check
    assert "dan de brief Afspraakbrief: 1 rijen hebben een adres" in check
    client.post(check_url, data={"csrf_token": csrf_token(client, check_url), "when": "now"})
    job = Job.get()
    assert lifecycle.start_job(job.id)
    rows.create_chunk(job.id, 0, lambda new: None, lambda: None)
    anna, bob = Notification.select().where(Notification.job_id == job.id).order_by(Notification.job_row_number)
    assert chain_of(anna.id).fallback == [  # as sends/alternatives.py stores the API's: personalisation merged
        {"type": "email", "template_id": str(templates["email"].id), "email_address": "anna@example.nl",
         "personalisation": {"naam": "Anna"}},
        {"type": "letter", "template_id": str(templates["letter"].id),
         "personalisation": {"naam": "Anna", "address_line_1": "A. Jansen", "address_line_2": "Kerkstraat 1",
                             "address_line_3": "1234 AB Utrecht"}}]
    assert chain_of(bob.id).fallback is None


def test_a_chosen_alternative_needs_its_columns(client, service, templates):
    data = csv_file(["telefoonnummer", "naam"], [[phone(0), "Anna"]])
    refused = _upload(client, service, templates["sms"], data, fallback_email=str(templates["email"].id))
    assert "Het bestand heeft geen kolom “e-mailadres”" in refused.get_data(as_text=True)


def _job_that_fell_back(service, templates):
    """A finished job of three texts: row 2's fell back to an email then a letter, row 3's next message
    was refused, row 4's was delivered."""
    job = make_job(service, templates["sms"], csv_file(["telefoonnummer", "naam"],
                                                       [[phone(n), "Anna"] for n in range(3)]))
    texts = [create_notification(service=service, template=templates["sms"], to=phone(n), job_id=job.id,
                                 job_row_number=n, status=status)
             for n, status in enumerate(["permanent-failure", "permanent-failure", "delivered"])]
    letter = create_notification(service=service, template=templates["letter"], status="created",
                                 fallback_for=texts[0].id)
    email = create_notification(service=service, template=templates["email"], to="anna@example.nl",
                                status="permanent-failure", fallback_for=texts[0].id, fallback_sent_as=letter.id)
    set_chain(texts[0].id, fallback_sent_as=email.id)
    set_chain(texts[1].id, fallback_refused=[kept(trial_letters_message())])
    Job.update(rows_processed=3, status="finished").where(Job.id == job.id).execute()
    return job, email, letter


def test_the_job_report_and_page_show_each_rows_chain(client, service, templates):
    job, email, letter = _job_that_fell_back(service, templates)
    report = client.get(f"/services/{service.id}/jobs/{job.id}/report.csv").get_data(as_text=True)
    rows = list(csv.reader(io.StringIO(report.removeprefix("\ufeff"))))
    assert rows[0][10:] == ["In plaats daarvan verstuurd", "In plaats daarvan: status", "In plaats daarvan: bericht-ID",
                            "Waarom er niets meer is verstuurd"]
    assert rows[1][10:] == ["E-mail, Brief", "Geaccepteerd", str(letter.id), ""]
    # The refusal in the page's words, without the link a page would add.
    assert rows[2][10:] == ["", "", "", "In proefmodus kan deze dienst geen brieven versturen."]
    assert rows[3][10:] == ["", "", "", ""]
    page = client.get(f"/services/{service.id}/jobs/{job.id}").get_data(as_text=True)
    assert f'href="/services/{service.id}/notifications/{letter.id}"' in page
    assert "Teruggevallen 1" in _text(page)
    # Each message's status in the words its own page uses.
    assert "E-mail : Niet afgeleverd: het adres of nummer bestaat niet; Brief : Geaccepteerd" in _text(page)
    assert "(het volgende bericht is geweigerd)" in page


def test_a_trial_service_falls_back_only_to_its_team_and_never_to_a_letter(console_app):
    service = create_service(trial_mode=True)
    text = create_sample_template(service=service, body="Hallo ((naam))")
    email = create_sample_template(service=service, template_type="email", subject="Uw afspraak",
                                   body="Beste ((naam))")
    letter = create_sample_template(service=service, template_type="letter", body="Beste ((naam))")
    member = create_console_user(service=service, permissions=["send_messages"])
    client = signed_in_client(console_app, member.user)
    data = csv_file(["telefoonnummer", "e-mailadres", "adresregel 1", "adresregel 2", "adresregel 3", "naam"],
                    [[member.user.mobile_number or phone(0), "vreemde@example.nl", "A", "B", "1234 AB Utrecht", "A"]])
    refused = _text(_upload(client, service, text, data, fallback_email=str(email.id)).get_data(as_text=True))
    assert "2 e-mailadres In proefmodus verstuurt deze dienst alleen naar het eigen team" in refused
    refused = _text(_upload(client, service, text, data, fallback_letter=str(letter.id)).get_data(as_text=True))
    assert "In proefmodus kan deze dienst geen brieven" in refused
    assert Job.select().count() == 0
