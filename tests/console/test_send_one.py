"""Send one message from the console: the form asks for the recipient and each placeholder, previews
what the pipeline renders, and sends through the API's own checks as a live send by the user."""
from __future__ import annotations

import html
import re

from models.notification import Notification
from models.service import TeamMember
from tests.console.service_pages import csrf_token, page_text, send_one_url, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_sample_template, create_service

REFUSED = "In proefmodus verstuurt deze dienst alleen naar het eigen team en de gastenlijst"


def test_the_form_previews_then_sends_a_live_sms_recorded_as_the_users(console_app, service, sender):
    template = create_sample_template(service=service, body="Hello ((name)), your code is ((code))")
    client = signed_in_client(console_app, sender.user)
    form = client.get(send_one_url(service, template)).get_data(as_text=True)
    assert 'name="phone_number"' in form and ">name</label>" in form and ">code</label>" in form
    fields = {"csrf_token": csrf_token(client, send_one_url(service, template)), "phone_number": "06 12345678",
              "placeholder_0": "Anna", "placeholder_1": "1234"}
    preview = client.post(send_one_url(service, template), data={**fields, "action": "preview"})
    assert preview.status_code == 200
    assert "Hello Anna, your code is 1234" in page_text(preview) and Notification.select().count() == 0
    sent = client.post(send_one_url(service, template), data={**fields, "action": "send"})
    stored = Notification.get()
    assert sent.status_code == 302
    assert sent.headers["Location"] == f"/services/{service.id}/notifications/{stored.id}"
    assert (stored.key_type, stored.api_key_id, stored.created_by_user_id) == ("live", None, sender.user.id)
    assert (stored.normalised_to, stored.body) == ("+31612345678", "Hello Anna, your code is 1234")


def test_send_pressed_twice_on_one_preview_sends_one_message(console_app, service, sender):
    template = create_sample_template(service=service, body="Hello ((name))")
    client = signed_in_client(console_app, sender.user)
    fields = {"csrf_token": csrf_token(client, send_one_url(service, template)), "phone_number": "06 12345678",
              "placeholder_0": "Anna"}
    preview = client.post(send_one_url(service, template), data={**fields, "action": "preview"}).get_data(as_text=True)
    token = re.search(r'name="send_token" value="([^"]+)"', preview).group(1)
    first = client.post(send_one_url(service, template), data={**fields, "send_token": token, "action": "send"})
    again = client.post(send_one_url(service, template), data={**fields, "send_token": token, "action": "send"})
    assert Notification.select().count() == 1
    assert first.headers["Location"] == again.headers["Location"] == (
        f"/services/{service.id}/notifications/{Notification.get().id}")
    # A new preview is a new message.
    preview = client.post(send_one_url(service, template), data={**fields, "action": "preview"}).get_data(as_text=True)
    token = re.search(r'name="send_token" value="([^"]+)"', preview).group(1)
    client.post(send_one_url(service, template), data={**fields, "send_token": token, "action": "send"})
    assert Notification.select().count() == 2


def test_a_bad_number_and_a_missing_value_are_shown_by_their_fields_in_the_pages_words(console_app, service, sender):
    template = create_sample_template(service=service, body="Hello ((name))")
    client = signed_in_client(console_app, sender.user)
    with client.session_transaction() as session:
        session["lang"] = "en"
    response = client.post(send_one_url(service, template), data={
        "csrf_token": csrf_token(client, send_one_url(service, template)), "phone_number": "06 123",
        "placeholder_0": "", "action": "preview"})
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    number_error = re.search(r'id="phone_number-error-1">([^<]*)<', page)[1]
    assert html.unescape(number_error) == "The number has too few digits"  # no API field name
    assert Notification.select().count() == 0
    fixed = client.post(send_one_url(service, template), data={
        "csrf_token": csrf_token(client, send_one_url(service, template)), "phone_number": "0612345678",
        "placeholder_0": "", "action": "preview"}).get_data(as_text=True)
    assert html.unescape(re.search(r'id="placeholder_0-error-1">([^<]*)<', fixed)[1]) == "Fill this in"


def test_a_trial_service_refuses_a_recipient_outside_the_team_as_the_api_does(console_app):
    service = create_service(trial_mode=True)
    template = create_sample_template(service=service, body="Hi")
    user = create_console_user(service=service, permissions=["send_messages"])
    client = signed_in_client(console_app, user.user)
    for action in ("preview", "send"):  # refused before the preview, not only after it
        response = client.post(send_one_url(service, template), data={
            "csrf_token": csrf_token(client, send_one_url(service, template)), "phone_number": "0612345678",
            "action": action})
        page = response.get_data(as_text=True)
        # What is wrong, once beside the field and once in the error summary, whose link goes to the field;
        # what trial mode is and the ways on are links of their own, apart from it.
        assert f'<a class="utrecht-link" href="#phone_number">{REFUSED}</a>' in page, action
        assert page_text(response).count(REFUSED) == 2, action
        assert '<li><a class="utrecht-link" href="/trial-mode">Wat proefmodus betekent</a></li>' in page
        assert (f'<li><a class="utrecht-link" href="/account/mobile?next={send_one_url(service, template)}">'
                'Uw mobiele nummer aan uw account toevoegen</a></li>') in page
        # Not one who manages the service: the guest list and the team are another member's to change.
        assert "Vraag een teamlid dat de dienst beheert om de ontvanger op de gastenlijst" in page_text(response)
        assert "/guest-list" not in page
        assert "Controleer uw bericht" not in page
    assert Notification.select().count() == 0
    TeamMember.create(service=service, email_address=user.email_address, mobile_number="06 12345678")
    mine = client.get(send_one_url(service, template) + "?mine=1").get_data(as_text=True)
    assert 'value="06 12345678"' in mine
    client.post(send_one_url(service, template), data={
        "csrf_token": csrf_token(client, send_one_url(service, template)), "phone_number": "06 12345678",
        "action": "send"})
    assert Notification.get().normalised_to == "+31612345678"


def test_use_my_own_details_fills_in_the_users_email_address(console_app, service, sender):
    template = create_sample_template(service=service, template_type="email", subject="Hi", body="Hello")
    client = signed_in_client(console_app, sender.user)
    form = client.get(send_one_url(service, template) + "?mine=1").get_data(as_text=True)
    assert f'value="{sender.email_address}"' in form
    preview = client.post(send_one_url(service, template), data={
        "csrf_token": csrf_token(client, send_one_url(service, template)), "email_address": sender.email_address,
        "action": "preview"}).get_data(as_text=True)
    assert "<iframe" in preview and "Hello" in html.unescape(preview)


def test_a_letter_is_sent_to_the_address_lines(console_app, service, sender):
    template = create_sample_template(service=service, template_type="letter", subject="Uw aanvraag",
                                      body="Beste ((naam))")
    client = signed_in_client(console_app, sender.user)
    fields = {"csrf_token": csrf_token(client, send_one_url(service, template)), "address_line_1": "A. Jansen",
              "address_line_2": "Kerkstraat 1", "address_line_3": "1234 AB Utrecht", "placeholder_0": "Anna"}
    assert "Beste Anna" in page_text(client.post(send_one_url(service, template), data={**fields, "action": "preview"}))
    client.post(send_one_url(service, template), data={**fields, "action": "send"})
    stored = Notification.get()
    assert (stored.notification_type, stored.created_by_user_id, stored.to) == (
        "letter", sender.user.id, "A. Jansen\nKerkstraat 1\n1234 AB  UTRECHT")


def test_a_letter_written_with_the_dutch_address_names_asks_for_the_address_only(console_app, service, sender):
    template = create_sample_template(service=service, template_type="letter", subject="Aan ((adresregel_1))",
                                      body="Beste ((naam)) van ((Adresregel 2)),")
    client = signed_in_client(console_app, sender.user)
    form = client.get(send_one_url(service, template)).get_data(as_text=True)
    labels = re.findall(r'<label class="utrecht-form-label" for="([^"]+)">([^<]+)</label>', form)
    assert labels == [(f"address_line_{n}", f"Adresregel {n}") for n in range(1, 8)] + [("placeholder_0", "naam")]
    fields = {"csrf_token": csrf_token(client, send_one_url(service, template)), "address_line_1": "A. Jansen",
              "address_line_2": "Kerkstraat 1", "address_line_3": "1234 AB Utrecht", "placeholder_0": "Anna"}
    preview = page_text(client.post(send_one_url(service, template), data={**fields, "action": "preview"}))
    assert "Aan A. Jansen" in preview and "Beste Anna van Kerkstraat 1," in preview
    client.post(send_one_url(service, template), data={**fields, "action": "send"})
    stored = Notification.get()
    assert (stored.subject, stored.body) == ("Aan A. Jansen", "Beste Anna van Kerkstraat 1,")


def test_a_letter_that_repeats_its_postcode_asks_for_it_as_the_addresss_last_line(console_app, service, sender):
    template = create_sample_template(service=service, template_type="letter", subject="Uw post",
                                      body="Voor wie woont op ((postcode)).")
    client = signed_in_client(console_app, sender.user)
    form = client.get(send_one_url(service, template)).get_data(as_text=True)
    labels = re.findall(r'<label class="utrecht-form-label" for="([^"]+)">([^<]+)</label>', form)
    assert labels[-1] == ("postcode", "Postcode") and len(labels) == 8  # 7 address lines, the postcode
    fields = {"csrf_token": csrf_token(client, send_one_url(service, template)), "address_line_1": "A. Jansen",
              "address_line_2": "Kerkstraat 1", "postcode": "1234 AB Utrecht"}
    assert "Voor wie woont op 1234 AB Utrecht." in page_text(client.post(send_one_url(service, template),
                                                                    data={**fields, "action": "preview"}))
    client.post(send_one_url(service, template), data={**fields, "action": "send"})
    assert Notification.get().to == "A. Jansen\nKerkstraat 1\n1234 AB  UTRECHT"


def test_sending_needs_the_send_messages_permission(console_app, service):
    template = create_sample_template(service=service, body="Hi")
    viewer = create_console_user(service=service, permissions=["view_activity"])
    client = signed_in_client(console_app, viewer.user)
    assert client.get(send_one_url(service, template)).status_code == 403
    assert client.get(f"/services/{service.id}/send").status_code == 403
    other = create_sample_template(service=create_service(name="Other"), body="Hi")
    sender = create_console_user(service=service, permissions=["send_messages"])
    assert signed_in_client(console_app, sender.user).get(send_one_url(service, other)).status_code == 404
