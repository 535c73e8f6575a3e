"""A service made in the console starts with example templates (one per channel, in the maker's language,
made by core's rules for services and templates); the admin API starts one empty. Its page sends a test
text to yourself in one form; the send page of a service without templates links to making one."""
from __future__ import annotations

import pytest

from core.account_settings import set_mobile_number
from core.templates import create_service_with, current_versions
from models.audit import AuditEvent
from models.notification import Notification
from models.service import Service
from pipeline.domain.errors import ValidationError
from tests.admin_helpers import admin_headers, post_service
from tests.console.service_pages import csrf_token, page_text, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_service

EXAMPLES = {
    "nl": [("sms", "Voorbeeld-sms", None,
            "Beste ((naam)), dit is een test-sms. U past de tekst aan onder Sjablonen."),
           ("email", "Voorbeeld-e-mail", "Uw afspraak op ((datum))",
            "Beste ((naam)),\n\nUw afspraak is op ((datum)).\n\n"
            "Dit is een voorbeeld: pas dit sjabloon aan of verwijder het onder Sjablonen."),
           ("letter", "Voorbeeldbrief", "Uw afspraak op ((datum))",
            "Beste ((naam)),\n\nUw afspraak is op ((datum)). Neem deze brief mee naar de afspraak.\n\n"
            "Dit is een voorbeeld: pas dit sjabloon aan of verwijder het onder Sjablonen.")],
    "en": [("sms", "Example text message", None,
            "Hello ((name)), this is a test text message. Change its words under Templates."),
           ("email", "Example email", "Your appointment on ((date))",
            "Hello ((name)),\n\nYour appointment is on ((date)).\n\n"
            "This is an example: change this template or delete it under Templates."),
           ("letter", "Example letter", "Your appointment on ((date))",
            "Dear ((name)),\n\nYour appointment is on ((date)). Please bring this letter with you.\n\n"
            "This is an example: change this template or delete it under Templates.")],
}


@pytest.mark.parametrize("language", ["nl", "en"])
def test_a_new_service_starts_with_an_example_template_per_channel_in_the_makers_language(console_app, language):
    user = create_console_user(email_address="ann@example.gov.nl", name="Ann")
    client = signed_in_client(console_app, user.user)
    client.get(f"/language/{language}?next=/services")
    form = client.get("/services/new").get_data(as_text=True)
    assert 'id="examples" name="examples" value="y" checked' in form  # on unless declined
    client.post("/services/new", data={"csrf_token": csrf_token(client), "name": "Loket", "examples": "y"})
    service = Service.get(Service.name == "Loket")
    made = current_versions(str(service.id))
    assert [(v.template.template_type, v.name, v.subject, v.body) for v in made] == EXAMPLES[language]
    assert {v.created_by for v in made} == {"Ann"}
    # Made by the rule that makes every template: in the history as the maker's, as any other.
    events = AuditEvent.select().where(AuditEvent.service_id == service.id).order_by(AuditEvent.created_at)
    assert [(e.action, e.actor_name) for e in events] == [
        ("service.create", "ann@example.gov.nl"), *[("template.create", "ann@example.gov.nl")] * 3,
        ("member.add", "ann@example.gov.nl")]


def test_declined_the_service_starts_without_templates(console_app):
    client = signed_in_client(console_app, create_console_user().user)
    client.post("/services/new", data={"csrf_token": csrf_token(client), "name": "Loket"})  # the box unticked
    assert current_versions(str(Service.get(Service.name == "Loket").id)) == []


def test_the_admin_api_starts_a_service_without_templates(client):
    service = post_service(client)
    listed = client.get(f"/admin/services/{service['id']}/templates", headers=admin_headers())
    assert listed.status_code == 200 and listed.get_json()["templates"] == []


def test_a_template_the_rules_refuse_makes_no_service_either():
    with pytest.raises(ValidationError):
        create_service_with("Loket", [{"template_type": "email", "name": "Zonder onderwerp", "body": "Hoi"}])
    assert Service.get_or_none(Service.name == "Loket") is None


def _trial_service_with_examples(console_app, mobile_number: str | None):
    user = create_console_user()
    if mobile_number:
        set_mobile_number(user.user, mobile_number)
    client = signed_in_client(console_app, user.user)
    client.post("/services/new", data={"csrf_token": csrf_token(client), "name": "Loket", "examples": "y"})
    return client, Service.get(Service.name == "Loket")


def test_the_service_page_sends_a_test_text_to_yourself_in_one_form(console_app):
    client, service = _trial_service_with_examples(console_app, "+31612345678")
    page = client.get(f"/services/{service.id}")
    text = page_text(page)
    assert "Uzelf een test-sms sturen" in text and "Beste ((naam)), dit is een test-sms." in text
    html = page.get_data(as_text=True)
    sms = next(v for v in current_versions(str(service.id)) if v.template.template_type == "sms")
    assert f'action="/services/{service.id}/send/{sms.template.id}/one"' in html
    token = html.split('name="send_token" value="', 1)[1].split('"', 1)[0]
    sent = client.post(f"/services/{service.id}/send/{sms.template.id}/one", data={
        "csrf_token": csrf_token(client, f"/services/{service.id}"), "phone_number": "+31612345678",
        "send_token": token, "placeholder_0": "Ann", "action": "send"})
    stored = Notification.get()
    assert sent.status_code == 302 and sent.headers["Location"] == f"/services/{service.id}/notifications/{stored.id}"
    assert (stored.normalised_to, stored.body) == (
        "+31612345678", "Beste Ann, dit is een test-sms. U past de tekst aan onder Sjablonen.")


def test_without_a_mobile_number_the_service_page_links_to_adding_one(console_app):
    client, service = _trial_service_with_examples(console_app, None)
    html = client.get(f"/services/{service.id}").get_data(as_text=True)
    assert f'href="/account/mobile?next=/services/{service.id}">Uw mobiele nummer toevoegen</a>' in html
    assert 'name="send_token"' not in html


def test_a_live_service_a_member_who_may_not_send_or_a_platform_admin_of_no_team_is_offered_no_test(console_app):
    live = create_service(trial_mode=False)
    create_service_with("Proef", [{"template_type": "sms", "name": "Hallo", "body": "Hallo"}])
    trial = Service.get(Service.name == "Proef")
    for service, permissions in ((live, ["view_activity", "send_messages"]), (trial, ["view_activity"])):
        user = create_console_user(service=service, permissions=permissions)
        set_mobile_number(user.user, "+31612345678")
        client = signed_in_client(console_app, user.user)
        assert "Uzelf een test-sms sturen" not in page_text(client.get(f"/services/{service.id}"))
    admin = create_console_user(platform_admin=True)
    set_mobile_number(admin.user, "+31612345678")
    page = signed_in_client(console_app, admin.user).get(f"/services/{trial.id}")
    assert page.status_code == 200 and "Uzelf een test-sms sturen" not in page_text(page)


def test_the_send_page_without_templates_links_to_making_one(console_app):
    service = create_service()
    manager = create_console_user(service=service, permissions=["send_messages", "manage_templates"])
    html = signed_in_client(console_app, manager.user).get(f"/services/{service.id}/send").get_data(as_text=True)
    assert "Deze dienst heeft nog geen sjablonen: elk bericht wordt vanuit een sjabloon verstuurd." in html
    assert f'<a class="utrecht-link" href="/services/{service.id}/templates/new">Een sjabloon maken</a>' in html
    sender = create_console_user(service=service, permissions=["send_messages"])
    text = page_text(signed_in_client(console_app, sender.user).get(f"/services/{service.id}/send"))
    assert "Vraag een teamlid dat sjablonen mag beheren om er een te maken." in text
