"""In a real browser, with real workers: send one text message and one email from a template and see
them delivered; a bad number is refused with the API's exact text; a received text is answered from
its conversation. axe-core checks every page on the way."""
from __future__ import annotations

import datetime
import re

from config import get_settings
from models.db import utcnow
from models.notification import Notification, ReceivedText
from tests.console.browser import assert_accessible
from tests.factories import create_sample_template


def _sent_id(page, service) -> str:
    page.wait_for_url(re.compile(rf"/services/{service.id}/notifications/[0-9a-f-]{{36}}$"))
    return page.url.rsplit("/", 1)[1]


def _watch_delivered(page) -> None:
    """The message page fetches its status again while it may change: it reaches delivered unreloaded."""
    page.wait_for_function("() => document.querySelector('.notify-message-status').textContent === 'Afgeleverd'",
                           timeout=20000)
    assert_accessible(page)


def test_send_one_text_message_and_see_it_delivered(signed_in_member, service, service_member, real_providers, worker):
    page, (_, gateway) = signed_in_member, real_providers
    create_sample_template(service=service, name="Afspraak", body="Beste ((naam)), uw afspraak is op ((dag)).")
    page.goto(f"/services/{service.id}")
    page.click("nav.notify-service-nav >> text=Bericht versturen")
    assert_accessible(page)
    page.click("a:text-is('Afspraak')")
    page.fill("#phone_number", "06 1234 56")
    page.fill("#placeholder_0", "Anna")
    page.fill("#placeholder_1", "vrijdag")
    page.click("button[value=preview]")
    # The console's words, without the API's field name (the form keeps what was typed).
    assert page.inner_text("#phone_number-error-1") == "Het nummer heeft te weinig cijfers"
    assert page.input_value("#placeholder_0") == "Anna"
    assert_accessible(page)
    page.fill("#phone_number", "06 12345678")
    with page.expect_navigation():
        page.click("button[value=preview]")
    assert page.inner_text("[data-testid=message-body]") == "Beste Anna, uw afspraak is op vrijdag."
    assert_accessible(page)
    page.click("button[value=send]")
    notification_id = _sent_id(page, service)
    [message] = gateway.wait_for_messages(1)
    assert ((message.payload["to"], message.payload["body"])
            == ("+31612345678", "Beste Anna, uw afspraak is op vrijdag."))
    assert page.inner_text(".notify-message-status") != "Afgeleverd"
    gateway.send_receipt(message.payload["callback_url"], get_settings().provider_webhook_token, message.id,
                         "delivered")
    _watch_delivered(page)
    stored = Notification.get_by_id(notification_id)
    assert (stored.key_type, stored.created_by_user_id) == ("live", service_member.user.id)


def test_send_one_email_to_myself_and_see_it_delivered(signed_in_member, service, service_member, real_providers,
                                                       worker):
    page, (smtp, _) = signed_in_member, real_providers
    template = create_sample_template(service=service, template_type="email", name="Welkom",
                                      subject="Welkom ((naam))", body="Fijn dat u er bent, ((naam)).")
    page.goto(f"/services/{service.id}/send/{template.id}/one")
    page.click("text=Naar mijn eigen adres versturen")
    assert page.input_value("#email_address") == service_member.email_address
    page.fill("#placeholder_0", "Anna")
    page.click("button[value=preview]")
    email = page.frame_locator("iframe.notify-email-preview")
    assert "Fijn dat u er bent, Anna." in email.locator("body").inner_text()
    assert_accessible(page)
    # From the keyboard: Playwright's click, right after axe-core has probed the sandboxed preview
    # frame, was seen to land before the page settled and submit nothing.
    page.focus("button[value=send]")
    page.keyboard.press("Enter")
    _sent_id(page, service)
    _watch_delivered(page)
    [received] = [m for m in smtp.messages if service_member.email_address in m.rcpt_tos]
    assert received.message["Subject"] == "Welkom Anna"


def test_reply_to_a_received_text_in_its_conversation(signed_in_member, service, real_providers, worker):
    page, (_, gateway) = signed_in_member, real_providers
    service.permissions = [*service.permissions, "inbound_sms"]
    service.save()
    create_sample_template(service=service, name="Bevestiging", body="Uw afspraak is verzet naar ((dag)).")
    ReceivedText.create(service=service, notify_number="3197010000", user_number="31612345678",
                        content="Kan mijn afspraak later?", created_at=utcnow() - datetime.timedelta(minutes=3))
    page.goto(f"/services/{service.id}")
    page.click("nav.notify-service-nav >> text=Ontvangen sms-berichten")
    assert_accessible(page)
    page.click("text=06 12345678")
    assert "Kan mijn afspraak later?" in page.inner_text("ol.notify-conversation")
    assert_accessible(page)
    conversation = page.url
    page.click("text=Antwoorden")
    assert_accessible(page)
    page.click("text=Bevestiging")
    assert "06 12345678" in page.inner_text("main")
    page.fill("#placeholder_0", "maandag")
    page.click("button[value=preview]")
    assert_accessible(page)
    page.click("button[value=send]")
    page.wait_for_url(conversation)
    messages = page.locator("ol.notify-conversation > li").all_inner_texts()
    assert [m.splitlines()[-1] for m in messages] == ["Kan mijn afspraak later?", "Uw afspraak is verzet naar maandag."]
    [message] = gateway.wait_for_messages(1)
    assert message.payload["to"] == "+31612345678"
