"""A member of service A cannot see or change service B by editing URLs, on every service page;
roles and platform-admin pages are enforced on the server."""
from __future__ import annotations

import pytest

from models.api_key import ApiKey, create_api_key
from models.audit import AuditEvent
from models.service import GuestListEntry, Service, ServiceCallback, SmsSender, add_service_setting
from models.user import SERVICE_PERMISSIONS, Invitation, ServiceUser
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_service


@pytest.fixture
def world(console_app):
    mine, theirs = create_service(name="Mine", trial_mode=True), create_service(name="Theirs", trial_mode=True)
    member = create_console_user(service=mine, permissions=list(SERVICE_PERMISSIONS))
    other = create_console_user(service=theirs, permissions=list(SERVICE_PERMISSIONS))
    key = create_api_key(theirs, name="theirs", key_type="live")[0]
    sender = add_service_setting(SmsSender, theirs, is_default=False, sms_sender="Theirs")
    guest = GuestListEntry.create(service=theirs, recipient="guest@example.nl", recipient_type="email")
    client = signed_in_client(console_app, member.user)
    return {"mine": mine, "theirs": theirs, "other": other, "key": key, "sender": sender, "guest": guest,
            "client": client, "member": member}


def _their_pages(w) -> list[str]:
    b, m = f"/services/{w['theirs'].id}", w["other"].id
    return [b, f"{b}/api-keys", f"{b}/api-keys/create", f"{b}/api-keys/{w['key'].id}/revoke", f"{b}/users",
            f"{b}/users/invite", f"{b}/users/{m}/edit", f"{b}/users/{m}/remove", f"{b}/guest-list",
            f"{b}/service-settings", f"{b}/service-settings/name", f"{b}/service-settings/permissions",
            f"{b}/service-settings/send-files-by-email", f"{b}/service-settings/data-retention",
            f"{b}/service-settings/limits", f"{b}/service-settings/sms-senders",
            f"{b}/service-settings/sms-senders/add", f"{b}/service-settings/sms-senders/{w['sender'].id}/edit",
            f"{b}/service-settings/callbacks/delivery-status", f"{b}/service-settings/request-to-go-live",
            f"{b}/history", f"{b}/delivery-events", f"{b}/delivery-events/unsubscribe-requests.csv",
            f"{b}/service-settings/appearance", f"{b}/service-settings/appearance/email-preview",
            f"{b}/service-settings/appearance/letter-preview.pdf"]


def test_every_page_of_another_service_is_not_found(world):
    for path in _their_pages(world):
        assert world["client"].get(path).status_code == 404, path


def test_rows_of_another_service_are_not_found_under_my_service(world):
    a, client = f"/services/{world['mine'].id}", world["client"]
    for path in (f"{a}/api-keys/{world['key'].id}/revoke", f"{a}/users/{world['other'].id}/edit",
                 f"{a}/users/{world['other'].id}/remove",
                 f"{a}/service-settings/sms-senders/{world['sender'].id}/edit"):
        assert client.get(path).status_code == 404, path
        posted = client.post(path, data={"csrf_token": csrf_token(client), "value": "Mine", "permissions": []})
        assert posted.status_code == 404, path
    removed = client.post(f"{a}/guest-list/{world['guest'].id}/remove", data={"csrf_token": csrf_token(client)})
    assert removed.status_code == 404


def _snapshot(w) -> tuple:
    theirs = Service.get_by_id(w["theirs"].id)
    return (theirs.name, theirs.trial_mode, theirs.permissions, theirs.file_download_contact, theirs.rate_limit,
            theirs.email_retention_days,
            [(k.name, k.revoked_at) for k in ApiKey.select().where(ApiKey.service == theirs)],
            [m.permissions for m in ServiceUser.select().where(ServiceUser.service == theirs)],
            [g.recipient for g in GuestListEntry.select().where(GuestListEntry.service == theirs)],
            [s.sms_sender for s in SmsSender.select().where(SmsSender.service == theirs)],
            ServiceCallback.select().where(ServiceCallback.service == theirs).count(),
            Invitation.select().where(Invitation.service == theirs).count(),
            AuditEvent.select().where(AuditEvent.service_id == theirs.id).count())


def test_no_form_can_change_another_service(world):
    client, before = world["client"], _snapshot(world)
    b, m = f"/services/{world['theirs'].id}", world["other"].id
    forms = {
        f"{b}/api-keys/create": {"name": "mine now", "key_type": "live"},
        f"{b}/api-keys/{world['key'].id}/revoke": {},
        f"{b}/users/invite": {"email_address": "intruder@example.nl", "permissions": ["manage_service"]},
        f"{b}/users/{m}/edit": {"permissions": ["view_activity"]},
        f"{b}/users/{m}/remove": {},
        f"{b}/guest-list": {"recipient": "intruder@example.nl"},
        f"{b}/guest-list/{world['guest'].id}/remove": {},
        f"{b}/service-settings/name": {"name": "Taken over"},
        f"{b}/service-settings/permissions": {"permissions": ["letter"]},
        f"{b}/service-settings/send-files-by-email": {"contact": "intruder@example.nl"},
        f"{b}/service-settings/data-retention": {"email": "1", "sms": "1", "letter": "1"},
        f"{b}/service-settings/limits": {"rate_limit": "1"},
        f"{b}/service-settings/sms-senders/add": {"value": "Intruder"},
        f"{b}/service-settings/sms-senders/{world['sender'].id}/edit": {"value": "Intruder"},
        f"{b}/service-settings/callbacks/delivery-status": {"url": "https://evil.example/cb",
                                                             "bearer_token": "0123456789ab"},
        f"{b}/service-settings/callbacks/delivery-status/remove": {},
        f"{b}/service-settings/request-to-go-live": {},
    }
    for path, data in forms.items():
        assert client.post(path, data={"csrf_token": csrf_token(client), **data}).status_code == 404, path
    assert _snapshot(world) == before


def test_only_platform_admins_decide_go_live_and_limits(world):
    client, mine = world["client"], f"/services/{world['mine'].id}"
    assert client.get("/platform-admin/go-live-requests").status_code == 403
    for path in (f"/platform-admin/services/{world['mine'].id}/go-live",
                 f"/platform-admin/services/{world['theirs'].id}/go-live"):
        assert client.get(path).status_code == 403
        assert client.post(path + "/approve", data={"csrf_token": csrf_token(client)}).status_code == 403
        assert client.post(path + "/reject", data={"csrf_token": csrf_token(client), "reason": "no"}).status_code == 403
    assert client.get(f"{mine}/service-settings/limits").status_code == 403
    limits = client.post(f"{mine}/service-settings/limits", data={
        "csrf_token": csrf_token(client), "rate_limit": "1", "sms_daily_limit": "1", "email_daily_limit": "1",
        "letter_daily_limit": "1", "international_sms_daily_limit": "1"})
    assert limits.status_code == 403
    assert Service.get_by_id(world["mine"].id).rate_limit == 3000
    assert Service.get_by_id(world["theirs"].id).trial_mode


def test_a_role_opens_only_its_pages(console_app, world):
    viewer = create_console_user(service=world["mine"], permissions=["view_activity"])
    client, a = signed_in_client(console_app, viewer.user), f"/services/{world['mine'].id}"
    assert client.get(a).status_code == 200
    for path in (f"{a}/api-keys", f"{a}/api-keys/create", f"{a}/users", f"{a}/guest-list", f"{a}/service-settings",
                 f"{a}/service-settings/send-files-by-email", f"{a}/service-settings/request-to-go-live",
                 f"{a}/history"):
        assert client.get(path).status_code == 403, path
    token = csrf_token(client)
    created = client.post(f"{a}/api-keys/create", data={"csrf_token": token, "name": "k", "key_type": "live"})
    assert created.status_code == 403
    assert client.post(f"{a}/service-settings/name", data={"csrf_token": token, "name": "Renamed"}).status_code == 403
    assert ApiKey.select().where(ApiKey.service == world["mine"]).count() == 0
    assert Service.get_by_id(world["mine"].id).name == "Mine"


def test_signed_out_visitors_are_sent_to_sign_in(console_app, world):
    client = console_app.test_client()
    response = client.get(f"/services/{world['mine'].id}/api-keys")
    assert response.status_code == 302 and "/sign-in" in response.headers["Location"]
