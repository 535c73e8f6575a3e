"""Send one text or email with alternatives (issue 44): the form offers an email, then a letter, from the
service's templates; the preview lists them; the send records them as the API's `fallback` would."""
from __future__ import annotations

from models.notification import Notification
from tests.console.service_pages import csrf_token, page_text, send_one_url, signed_in_client
from tests.console.users import create_console_user
from tests.factories import chain_of, create_sample_template, create_service


def test_a_text_offers_an_email_then_a_letter_and_an_email_only_a_letter(console_app, service, sender, templates):
    client = signed_in_client(console_app, sender.user)
    text_form = client.get(send_one_url(service, templates["sms"])).get_data(as_text=True)
    assert 'name="fallback_email_template"' in text_form and 'name="fallback_letter_template"' in text_form
    assert text_form.index("fallback_email_template") < text_form.index("fallback_letter_template")
    assert "Afspraak per mail" in text_form and "Afspraakbrief" in text_form
    email_form = client.get(send_one_url(service, templates["email"])).get_data(as_text=True)
    assert 'name="fallback_email_template"' not in email_form and 'name="fallback_letter_template"' in email_form
    letter_form = client.get(send_one_url(service, templates["letter"])).get_data(as_text=True)
    assert "fallback_" not in letter_form


def test_a_text_sent_with_both_alternatives_carries_them_as_the_apis_fallback(console_app, service, sender,
                                                                            templates):
    client = signed_in_client(console_app, sender.user)
    url = send_one_url(service, templates["sms"])
    fields = {"csrf_token": csrf_token(client, url), "phone_number": "06 12345678", "placeholder_0": "Anna",
              "fallback_email_template": str(templates["email"].id), "fallback_email_address": "anna@example.nl",
              "fallback_letter_template": str(templates["letter"].id), "fallback_address_line_1": "A. Jansen",
              "fallback_address_line_2": "Kerkstraat 1", "fallback_address_line_3": "1234 AB Utrecht"}
    preview = page_text(client.post(url, data={**fields, "action": "preview"}))
    assert "Als het niet aankomt" in preview
    assert "dan de e-mail Afspraak per mail naar anna@example.nl" in preview
    assert "dan de brief Afspraakbrief naar A. Jansen, Kerkstraat 1, 1234 AB Utrecht" in preview
    client.post(url, data={**fields, "action": "send"})
    stored = chain_of(Notification.get().id)
    assert stored.fallback == [  # as core stores the API's: each personalisation merged over the first's
        {"type": "email", "template_id": str(templates["email"].id), "email_address": "anna@example.nl",
         "personalisation": {"naam": "Anna"}},
        {"type": "letter", "template_id": str(templates["letter"].id),
         "personalisation": {"naam": "Anna", "address_line_1": "A. Jansen", "address_line_2": "Kerkstraat 1",
                             "address_line_3": "1234 AB Utrecht"}}]


def test_a_refused_alternative_is_shown_by_its_fields_and_nothing_is_sent(console_app, service, sender,
                                                                         templates):
    client = signed_in_client(console_app, sender.user)
    url = send_one_url(service, templates["sms"])
    fields = {"csrf_token": csrf_token(client, url), "phone_number": "06 12345678", "placeholder_0": "Anna",
              "fallback_email_template": str(templates["email"].id), "fallback_email_address": "geen-adres"}
    for action in ("preview", "send"):  # the preview refuses what the send would
        page = client.post(url, data={**fields, "action": action}).get_data(as_text=True)
        assert 'id="fallback_email_address-error-1"' in page and "Vul een geldig e-mailadres in" in page
    assert Notification.select().count() == 0


def test_no_alternative_chosen_sends_without_fallback(console_app, service, sender, templates):
    client = signed_in_client(console_app, sender.user)
    url = send_one_url(service, templates["sms"])
    client.post(url, data={"csrf_token": csrf_token(client, url), "phone_number": "06 12345678",
                           "placeholder_0": "Anna", "fallback_email_address": "anna@example.nl",
                           "action": "send"})
    assert chain_of(Notification.get().id).fallback is None


def test_a_trial_services_letter_alternative_is_refused_beside_its_template(console_app):
    service = create_service(trial_mode=True)
    email = create_sample_template(service=service, template_type="email", subject="Afspraak", body="Hallo ((naam))")
    letter = create_sample_template(service=service, template_type="letter", name="Brief", body="Beste ((naam))")
    member = create_console_user(service=service, permissions=["send_messages"])
    client = signed_in_client(console_app, member.user)
    url = send_one_url(service, email)
    page = client.post(url, data={
        "csrf_token": csrf_token(client, url), "email_address": member.email_address, "placeholder_0": "Anna",
        "fallback_letter_template": str(letter.id), "fallback_address_line_1": "A. Jansen",
        "fallback_address_line_2": "Kerkstraat 1", "fallback_address_line_3": "1234 AB Utrecht",
        "action": "preview"}).get_data(as_text=True)
    assert 'id="fallback_letter_template-error-1">In proefmodus kan deze dienst geen brieven versturen' in page
