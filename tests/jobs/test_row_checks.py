"""Each row checked with the API's rules and words: recipients, missing personalisation, length,
international numbers; the recipient column matched like a placeholder (case, spaces, '_' and '-')."""
from __future__ import annotations

from models.template import find_version
from pipeline.stages.jobs.checking import Problem
from pipeline.stages.jobs.upload import check_upload
from tests.factories import create_sample_template, create_service
from tests.jobs.helpers import csv_file


def _check(service, template, header, rows, name="a.csv"):
    return check_upload(service, find_version(service, template.id), name, csv_file(header, rows))


def test_a_text_message_too_long_and_an_international_number_without_permission():
    service = create_service(permissions=["sms"])
    template = create_sample_template(service=service, body="((text))")
    checked = _check(service, template, ["PHONE-NUMBER", "text"],
                     [["+32 470 12 34 56", "short"], ["0612345678", "x" * 919]])
    assert checked.problems == [
        Problem(2, "PHONE-NUMBER", "Cannot send to international mobile numbers"),
        Problem(3, None, "Text messages cannot be longer than 918 characters. Your message is 919 characters."),
    ]
    assert checked.international_rows == 1


def test_an_email_file_with_a_bad_address_and_a_subject_placeholder_left_empty():
    service = create_service()
    template = create_sample_template(service=service, template_type="email", subject="For ((name))", body="Hi")
    checked = _check(service, template, ["email_address", "name"], [["ann@example", "Ann"], ["bob@example.nl", ""]])
    assert checked.problems == [Problem(2, "email_address", "email_address Not a valid email address"),
                                Problem(3, "name", "Missing personalisation: name")]


def test_letter_rows_are_checked_as_the_api_checks_an_address():
    service = create_service()
    template = create_sample_template(service=service, template_type="letter", body="Dear ((name))")
    header = ["Address line 1", "address_line_2", "ADDRESS LINE 3", "name"]
    checked = _check(service, template, header, [["J. Jansen", "Dorpsstraat 1", "1234 AB  Amsterdam", "Jan"],
                                                 ["P. Pieters", "(Kerkweg 2)", "Nowhere", "Piet"],
                                                 ["A. Smit", "", "", ""]])
    assert checked.problems == [
        Problem(3, None, "Address lines must not start with any of the following characters: @ ( ) = [ ] ” \\ / , < >"),
        Problem(3, None, "Last line of address must be a real NL postcode or another country"),
        Problem(4, None, "personalisation address_line_2 is a required property"),
        Problem(4, None, "personalisation address_line_3 is a required property"),
        Problem(4, None, "Address must be at least 3 lines"),
        Problem(4, None, "Last line of address must be a real NL postcode or another country"),
        Problem(4, "name", "Missing personalisation: name"),
    ]


def test_a_trial_service_sends_no_letters_and_a_channel_the_service_may_not_use_is_refused():
    service = create_service(trial_mode=True, permissions=["sms", "letter"])
    letter = create_sample_template(service=service, template_type="letter")
    assert [p.message for p in _check(service, letter, ["address_line_1"], [["A"]]).problems] == [
        "Cannot send letters when service is in trial mode - see https://admin.example.nl/trial-mode"]
    email = create_sample_template(service=service, template_type="email")
    assert [p.message for p in _check(service, email, ["email address"], [["a@example.nl"]]).problems] == [
        "Service is not allowed to send emails"]


def test_an_empty_file_and_a_header_without_rows():
    service = create_service()
    template = create_sample_template(service=service, body="Hi")
    assert [p.message for p in _check(service, template, ["phone number"], []).problems] == [
        "The file has no rows of recipients"]


def test_the_recipient_column_headed_in_dutch():
    service = create_service(permissions=["sms", "email"])
    text = create_sample_template(service=service, body="Hoi ((naam))")
    checked = _check(service, text, ["naam", "Telefoonnummer"], [["Jan", "0612345678"], ["Piet", "12"]])
    assert checked.recipient_column == 1 and checked.rows[0] == ["0612345678", {"naam": "Jan"}]
    assert [(p.row, p.column) for p in checked.problems] == [(3, "Telefoonnummer")]
    assert _check(service, text, ["mobiel_nummer", "naam"], [["0612345678", "Jan"]]).problems == []
    email = create_sample_template(service=service, template_type="email", subject="Uw afspraak", body="Hallo")
    assert _check(service, email, ["E-mailadres"], [["jan@example.nl"]]).problems == []
    assert [p.message for p in _check(service, email, ["emails"], [["jan@example.nl"]]).problems] == [
        "Missing column: email address"]


def test_every_missing_column_is_named_at_once_in_the_templates_order():
    service = create_service()
    text = create_sample_template(service=service, body="Hoi ((naam)), uw code is ((code)) (((Naam)))")
    assert [p.message for p in _check(service, text, ["code"], [["1"]]).problems] == [
        "Missing column: phone number", "Missing column: naam"]
    letter = create_sample_template(service=service, template_type="letter", body="Beste ((naam)) ((adresregel_2))")
    assert [p.message for p in _check(service, letter, ["adresregel 2"], [["Dorpsstraat 1"]]).problems] == [
        "Missing column: address line 1", "Missing column: address line 3", "Missing column: naam"]
    # The postcode stands for the third line, as the API's legacy address does.
    assert [p.message for p in _check(service, letter, ["Adresregel 1", "adresregel_2", "postcode"],
                                      [["J. Jansen", "Dorpsstraat 1", "1234 AB"]]).problems] == [
        "Missing column: naam"]


def test_a_letters_address_columns_in_dutch_are_the_specs_address():
    service = create_service()
    letter = create_sample_template(service=service, template_type="letter", body="Beste ((naam))")
    checked = _check(service, letter, ["ADRESREGEL 1", "adresregel-2", "Adresregel 3", "naam"],
                     [["J. Jansen", "Dorpsstraat 1", "1234 AB  Amsterdam", "Jan"], ["P. Pieters", "", "", "Piet"]])
    assert checked.rows[0][1] == {"address_line_1": "J. Jansen", "address_line_2": "Dorpsstraat 1",
                                  "address_line_3": "1234 AB  Amsterdam", "naam": "Jan"}
    assert [(p.row, p.message) for p in checked.problems][:2] == [
        (3, "personalisation address_line_2 is a required property"),
        (3, "personalisation address_line_3 is a required property")]


def test_the_recipient_column_by_any_of_its_names_in_either_language():
    service = create_service(permissions=["sms", "email"])
    text = create_sample_template(service=service, body="Hoi")
    for name in ("phone number", "Mobile", "mobiel", "Mobiele nummer", "TELEFOONNUMMER", "mobile_number"):
        assert _check(service, text, [name], [["0612345678"]]).problems == [], name
    email = create_sample_template(service=service, template_type="email", subject="Hoi", body="Hallo")
    for name in ("email address", "Email", "e-mail", "E-mailadres", "emailadres"):
        assert _check(service, email, [name], [["jan@example.nl"]]).problems == [], name


def test_an_address_line_or_postcode_the_letters_text_repeats_is_a_column_it_needs():
    service = create_service()
    letter = create_sample_template(service=service, template_type="letter", body="Uw post voor ((postcode))")
    assert [p.message for p in _check(service, letter, ["adresregel 1", "adresregel 2", "adresregel 3"],
                                      [["J. Jansen", "Dorpsstraat 1", "1234 AB  Amsterdam"]]).problems] == [
        "Missing column: postcode"]
    checked = _check(service, letter, ["adresregel 1", "adresregel 2", "postcode"],
                     [["J. Jansen", "Dorpsstraat 1", "1234 AB"]])
    assert checked.problems == [] and checked.rows[0][1]["postcode"] == "1234 AB"
    fourth = create_sample_template(service=service, template_type="letter", body="T.a.v. ((adresregel_4))")
    assert [p.message for p in _check(service, fourth, ["adresregel 1", "adresregel 2", "adresregel 3"],
                                      [["Gemeente", "Afdeling", "Postbus 1"]]).problems] == [
        "Missing column: address line 4"]
