"""The service pages in a real browser, each checked with axe-core: make a service, make a key and
use it with the official Python client against the API, change every setting, manage the team and
guest list, ask to go live and have a platform admin approve, revoke the key."""
from __future__ import annotations

import pytest
from notifications_python_client.errors import HTTPError
from notifications_python_client.notifications import NotificationsAPIClient
from playwright.sync_api import expect

from core.templates import add_template
from models.api_key import ApiKey
from models.audit import AuditEvent
from models.go_live import GoLiveRequest
from models.service import LetterContact, ReplyToAddress, Service, ServiceCallback, SmsSender
from models.user import SERVICE_PERMISSIONS, ServiceUser
from tests.console.browser import assert_accessible, sign_in
from tests.console.users import create_console_user


def _submit(page, label: str) -> None:
    page.locator("main").get_by_role("button", name=label, exact=True).click()
    # The click returns once the form's navigation has started; what a test then reads of the page's
    # look (is_visible) needs its stylesheets in.
    page.wait_for_load_state("load")


def _open(page, path: str) -> None:
    response = page.goto(path)
    assert response.status == 200, path
    assert_accessible(page)


@pytest.fixture
def member(service):
    """A member of a trial-mode `service` who may do everything there."""
    Service.update(trial_mode=True).where(Service.id == service.id).execute()
    return create_console_user(service=service, permissions=list(SERVICE_PERMISSIONS), name="Ann Member")


def test_make_a_service_and_a_key_use_it_with_the_python_client_then_revoke_it(page, live_server, make_user):
    user = make_user(email_address="ann@example.gov.nl")
    sign_in(page, user)
    _open(page, "/services/new")
    _submit(page, "Dienst toevoegen")
    assert "Vul een naam voor de dienst in" in page.inner_text("main")  # the error summary, in Dutch
    assert_accessible(page)
    page.fill("#name", "Belastingloket")
    _submit(page, "Dienst toevoegen")
    page.wait_for_url("**/services/*")
    assert page.inner_text("h1") == "Belastingloket"
    assert_accessible(page)
    service = Service.get(Service.name == "Belastingloket")
    assert service.trial_mode is True
    assert ServiceUser.get(ServiceUser.service == service).permissions == list(SERVICE_PERMISSIONS)

    _open(page, f"/services/{service.id}/api-keys")
    page.get_by_role("link", name="Een API-sleutel maken").click()
    assert_accessible(page)
    page.fill("#name", "website")
    page.check("#key_type-1")  # team and guest list
    _submit(page, "Doorgaan")
    key = page.inner_text("#api-key").strip()
    expect(page.locator("#copy-key")).to_be_visible()  # JavaScript on, once its deferred script ran
    assert_accessible(page)
    assert key.startswith(f"website-{service.id}-") and len(key) == len("website-") + 36 + 1 + 36

    template = add_template(str(service.id), template_type="email", name="hi", subject="Hi", body="Hello ((name))")
    client = NotificationsAPIClient(key, base_url=live_server)
    sent = client.send_email_notification(email_address="ann@example.gov.nl", template_id=str(template.template.id),
                                          personalisation={"name": "Ann"})  # a member is on the team
    assert sent["content"]["body"] == "Hello Ann"
    with pytest.raises(HTTPError) as refused:
        client.send_email_notification(email_address="stranger@example.nl", template_id=str(template.template.id),
                                       personalisation={"name": "X"})
    assert refused.value.message[0]["message"] == "Cannot send to this recipient using a team-only API key."

    page.goto(f"/services/{service.id}/api-keys")
    row = page.locator("tr", has_text="website")
    assert "ann@example.gov.nl" in row.inner_text() and "Nooit" not in row.inner_text()  # creator, last used
    row.get_by_role("link", name="Intrekken").click()
    assert_accessible(page)
    _submit(page, "Deze sleutel intrekken")
    page.wait_for_url(f"**/services/{service.id}/api-keys")
    assert "Ingetrokken" in page.locator("tr", has_text="website").inner_text()
    assert_accessible(page)
    with pytest.raises(HTTPError) as revoked:
        client.get_all_templates()
    assert revoked.value.status_code == 403
    assert revoked.value.message[0]["message"] == "Invalid token: API key revoked"


def test_change_every_setting(page, service, member):
    sign_in(page, member)
    base = f"/services/{service.id}/service-settings"
    _open(page, base)

    _open(page, f"{base}/name")
    page.fill("#name", "Vergunningen")
    _submit(page, "Opslaan")
    page.wait_for_url(f"**{base}")
    assert Service.get_by_id(service.id).name == "Vergunningen"

    for kind, value, second, edited, model, field in (
            ("sms-senders", "Gemeente", "Gemeente2", "Gem oud", SmsSender, "sms_sender"),
            ("reply-to-addresses", "loket@example.gov.nl", "post@example.gov.nl", "oud@example.gov.nl",
             ReplyToAddress, "email_address"),
            ("letter-contacts", "Gemeente\nPostbus 1", "Gemeente\nPostbus 2", "Gemeente\nPostbus 3 (oud)",
             LetterContact, "contact_block")):
        _open(page, f"{base}/{kind}")
        page.locator("main").get_by_role("link", name="Toevoegen").click()
        assert_accessible(page)
        page.fill("#value", value)
        _submit(page, "Opslaan")
        page.wait_for_url(f"**{base}/{kind}")
        _open(page, f"{base}/{kind}/add")
        page.fill("#value", second)
        page.check("#is_default")
        _submit(page, "Opslaan")
        page.wait_for_url(f"**{base}/{kind}")
        assert_accessible(page)
        rows = list(model.select().where(model.service == service).order_by(model.created_at))
        assert [r.is_default for r in rows] == [False, True]
        page.locator(".notify-sender-list li").first.get_by_role("link").click()
        assert_accessible(page)
        page.fill("#value", edited)
        page.check("#is_default")
        _submit(page, "Opslaan")
        page.wait_for_url(f"**{base}/{kind}")
        first = model.get_by_id(rows[0].id)
        assert first.is_default and getattr(first, field) == edited

    _open(page, f"{base}/permissions")
    page.check("#permissions-2")  # letters
    page.uncheck("#permissions-3")  # international text messages
    _submit(page, "Opslaan")
    page.wait_for_url(f"**{base}")
    assert Service.get_by_id(service.id).permissions == ["email", "sms", "letter"]

    _open(page, f"/services/{service.id}/service-settings/send-files-by-email")
    page.fill("#contact", "https://example.gov.nl/contact")
    _submit(page, "Opslaan")
    page.wait_for_url(f"**{base}")
    assert Service.get_by_id(service.id).file_download_contact == "https://example.gov.nl/contact"

    _open(page, f"{base}/data-retention")
    page.fill("#sms", "0")
    _submit(page, "Opslaan")
    assert "Vul een aantal dagen van 1 tot en met 3650 in" in page.inner_text("main")
    assert_accessible(page)
    page.fill("#sms", "30")
    _submit(page, "Opslaan")
    page.wait_for_url(f"**{base}")
    assert Service.get_by_id(service.id).sms_retention_days == 30

    _open(page, f"{base}/callbacks/delivery-status")
    page.fill("#url", "http://example.gov.nl/callback")
    page.fill("#bearer_token", "a-secret-token")
    _submit(page, "Opslaan")
    assert "Vul een URL in die met https:// begint" in page.inner_text("main")  # refused by the shared rule
    assert_accessible(page)
    page.fill("#url", "https://example.gov.nl/callback")
    page.fill("#bearer_token", "a-secret-token")
    _submit(page, "Opslaan")
    page.wait_for_url(f"**{base}/callbacks/delivery-status")
    assert ServiceCallback.get(ServiceCallback.service == service).url == "https://example.gov.nl/callback"
    assert "Geen pogingen in de laatste 7 dagen." in page.inner_text("main")
    _open(page, f"{base}/callbacks/inbound-sms")

    assert page.goto(f"{base}/limits").status == 403  # platform admins only

    _open(page, base)
    summary = page.inner_text("main")
    assert "Vergunningen" in summary and "post@example.gov.nl" not in summary and "oud@example.gov.nl" in summary
    assert "30 dagen" in summary and "https://example.gov.nl/callback" in summary

    _open(page, f"/services/{service.id}/history")
    history = page.inner_text("main")
    assert "Instellingen gewijzigd" in history and "Callback voor afleverberichten ingesteld" in history
    assert "a-secret-token" not in history and member.email_address in history
    actions = {e.action for e in AuditEvent.select().where(AuditEvent.service_id == service.id)}
    assert {"service.update", "sms_sender.add", "sms_sender.update", "reply_to_address.update",
            "letter_contact.update", "callback.delivery-status.set"} <= actions
    actors = {e.actor_name for e in AuditEvent.select().where(AuditEvent.service_id == service.id)}
    assert actors == {member.email_address}


def test_team_and_guest_list(page, service, member):
    colleague = create_console_user(service=service, permissions=["view_activity"], email_address="bob@example.gov.nl",
                                    name="Bob Colleague")
    sign_in(page, member)
    team = f"/services/{service.id}/users"
    _open(page, team)
    page.get_by_role("link", name="Een teamlid uitnodigen").click()
    assert_accessible(page)
    page.fill("#email_address", "carol@example.gov.nl")
    page.check("#permissions-4")  # manage API keys
    _submit(page, "Uitnodiging per e-mail versturen")
    page.wait_for_url(f"**{team}")
    assert "carol@example.gov.nl" in page.inner_text("main")
    assert_accessible(page)

    _open(page, f"{team}/{colleague.id}/edit")
    page.check("#permissions-1")  # send messages
    _submit(page, "Opslaan")
    page.wait_for_url(f"**{team}")
    assert ServiceUser.get(ServiceUser.user == colleague.user).permissions == ["view_activity", "send_messages"]

    _open(page, f"{team}/{member.id}/edit")
    page.uncheck("#permissions-3")  # the only one who may manage the team cannot give that up
    _submit(page, "Opslaan")
    assert "Een dienst heeft minstens één lid nodig dat instellingen en team kan beheren" in page.inner_text("main")
    assert_accessible(page)

    _open(page, f"{team}/{colleague.id}/remove")
    _submit(page, "Dit teamlid verwijderen")
    page.wait_for_url(f"**{team}")
    assert page.inner_text(".notify-flashes") == "bob@example.gov.nl uit het team verwijderd"
    assert "bob@example.gov.nl" not in page.inner_text("main table")

    guests = f"/services/{service.id}/guest-list"
    _open(page, guests)
    for recipient in ("gast@example.gov.nl", "+31 6 12345678"):
        page.fill("#recipient", recipient)
        _submit(page, "Aan de gastenlijst toevoegen")
        page.wait_for_url(f"**{guests}")
    assert "06 12345678 aan de gastenlijst toegevoegd" in page.inner_text(".notify-flashes")
    assert "06 12345678" in page.inner_text("main ul.utrecht-unordered-list")  # as every page writes a number
    assert_accessible(page)
    page.get_by_role("button", name="Verwijderen gast@example.gov.nl").click()
    page.wait_for_url(f"**{guests}")
    assert "gast@example.gov.nl" not in page.inner_text("main")
    actions = [e.action for e in AuditEvent.select().where(AuditEvent.service_id == service.id)
               .order_by(AuditEvent.created_at)]
    assert actions == ["member.invite", "member.permissions", "member.remove", "guest_list.add", "guest_list.add",
                       "guest_list.remove"]


def test_request_and_approve_going_live(page, browser, console_server, service, member, platform_admin):
    create_console_user(service=service, permissions=["view_activity"], email_address="bob@example.gov.nl")
    sign_in(page, member)
    go_live = f"/services/{service.id}/service-settings/request-to-go-live"
    _open(page, go_live)
    checklist = page.locator("main li").all_inner_texts()
    # Each item not in place links to where it is done.
    assert [item for item in checklist if ": nog niet" in item] == [
        "Een antwoordadres voor e-mail: nog niet. Een antwoordadres toevoegen",
        "Een sjabloon met een voorbeeld van wat u gaat versturen: nog niet. Een sjabloon maken"]
    assert page.locator("main li[data-item=reply_to_address] a").get_attribute("href") == (
        f"/services/{service.id}/service-settings/reply-to-addresses/add?next={go_live}")  # and back here
    _submit(page, "Live gaan aanvragen")
    assert "Voeg een antwoordadres voor e-mail toe voordat u aanvraagt om live te gaan" in page.inner_text("main")
    assert_accessible(page)
    ReplyToAddress.create(service=service, email_address="loket@example.gov.nl", is_default=True)
    add_template(str(service.id), template_type="sms", name="hi", body="Hallo")
    page.goto(go_live)
    _submit(page, "Live gaan aanvragen")
    page.wait_for_url(f"**{go_live}")
    assert "Een platformbeheerder beslist" in page.inner_text("main")
    assert_accessible(page)

    admin_page = browser.new_context(base_url=console_server).new_page()
    sign_in(admin_page, platform_admin)
    _open(admin_page, "/platform-admin/go-live-requests")
    admin_page.get_by_role("link", name=service.name).click()
    assert_accessible(admin_page)
    _open(admin_page, f"/services/{service.id}/service-settings/limits")
    admin_page.fill("#rate_limit", "600")
    admin_page.fill("#sms_daily_limit", "1000")
    _submit(admin_page, "Opslaan")
    admin_page.wait_for_url(f"**/services/{service.id}/service-settings")
    assert (Service.get_by_id(service.id).rate_limit, Service.get_by_id(service.id).sms_daily_limit) == (600, 1000)

    admin_page.goto(f"/platform-admin/services/{service.id}/go-live")
    _submit(admin_page, "Goedkeuren: de dienst live zetten")
    admin_page.wait_for_url("**/platform-admin/go-live-requests")
    assert "Er wachten geen aanvragen." in admin_page.inner_text("main")
    admin_page.context.close()
    assert Service.get_by_id(service.id).trial_mode is False
    assert GoLiveRequest.get(GoLiveRequest.service == service).status == "approved"
    _open(page, go_live)
    assert "Uw dienst is live." in page.inner_text("main")


def test_the_key_page_works_without_javascript(browser, console_server, service, member):
    page = browser.new_context(base_url=console_server, java_script_enabled=False).new_page()
    sign_in(page, member)
    page.goto(f"/services/{service.id}/api-keys/create")
    page.fill("#name", "zonder js")
    page.check("#key_type-2")
    _submit(page, "Doorgaan")
    assert page.inner_text("#api-key").startswith(f"zonder js-{service.id}-")
    assert not page.locator("#copy-key").is_visible()  # the copy button needs JavaScript
    assert ApiKey.get(ApiKey.name == "zonder js").key_type == "test"
    page.context.close()
