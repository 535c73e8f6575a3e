"""Going live in two steps: the organisation's admin approves first (with the team's answers), then the
platform admin; a service of a body with no admin goes straight to the platform admin."""
from __future__ import annotations

from config import get_settings
from models.audit import AuditEvent
from models.notification import Notification
from models.platform import PLATFORM_SERVICE_ID
from tests.admin_helpers import admin_headers, errors, post_service
from tests.console.users import create_console_user


def _ready(client, sid: str) -> None:
    client.post(f"/admin/services/{sid}/reply-to-addresses", json={"email_address": "help@example.nl"},
                headers=admin_headers())
    client.post(f"/admin/services/{sid}/templates", json={"type": "sms", "name": "hi", "body": "Hello"},
                headers=admin_headers())
    client.post(f"/admin/services/{sid}/users", json={"email_address": "colleague@example.nl"},
                headers=admin_headers())


def _organisation_with(client, sid: str, *, admin: str | None) -> str:
    org = client.post("/admin/organisations", json={"name": "Gemeente Utrecht", "kind": "gemeente"},
                      headers=admin_headers()).get_json()
    if admin is not None:
        client.post(f"/admin/organisations/{org['id']}/members", json={"email_address": admin, "role": "admin"},
                    headers=admin_headers())
    client.post(f"/admin/organisations/{org['id']}/services", json={"service_id": sid}, headers=admin_headers())
    return org["id"]


def _service_of_organisation(client):  # noqa: ANN202 (the service's and organisation's ids, its admin and member)
    """A service ready to go live, of an organisation with an admin and a member."""
    sid = post_service(client, name="Parkeren")["id"]
    _ready(client, sid)
    admin, member = create_console_user(name="Org admin"), create_console_user()
    org_id = _organisation_with(client, sid, admin=admin.email_address)
    client.post(f"/admin/organisations/{org_id}/members", json={"email_address": member.email_address,
                                                                "role": "member"}, headers=admin_headers())
    return sid, org_id, admin, member


ANSWERS = {"expected_volumes": {"email": 5000, "sms": 200}, "recipients": "Inwoners met een parkeervergunning"}


def test_the_organisation_admin_approves_first_then_the_platform_admin(client):
    sid, org_id, admin, member = _service_of_organisation(client)

    without = client.post(f"/admin/services/{sid}/go-live/request", json={}, headers=admin_headers())
    assert errors(without) == (400, [("BadRequestError",
                                      "Say how many messages you expect per channel and who receives them")])
    asked = client.post(f"/admin/services/{sid}/go-live/request", json=ANSWERS, headers=admin_headers()).get_json()
    assert (asked["expected_volumes"], asked["recipients"], asked["awaits_organisation"]) == (
        {"email": 5000, "sms": 200}, "Inwoners met een parkeervergunning", True)

    early = client.post(f"/admin/services/{sid}/go-live/approve", headers=admin_headers())
    assert errors(early) == (400, [("BadRequestError", "The organisation's admin has not approved this request yet")])
    approve = f"/admin/services/{sid}/go-live/organisation-approve"
    by_member = client.post(approve, query_string={"on_behalf_of": member.id}, headers=admin_headers())
    assert by_member.status_code == 403
    approved = client.post(approve, query_string={"on_behalf_of": admin.id}, headers=admin_headers()).get_json()
    request = approved["request"]
    assert (approved["trial_mode"], request["status"], request["awaits_organisation"],
            request["organisation_approved_by"]) == (True, "pending", False, admin.email_address)

    live = client.post(f"/admin/services/{sid}/go-live/approve", headers=admin_headers()).get_json()
    assert (live["trial_mode"], live["request"]["status"]) == (False, "approved")
    # Nothing waits for the organisation any more: its admin is told so, as the platform admin would be.
    again = client.post(approve, query_string={"on_behalf_of": admin.id}, headers=admin_headers())
    assert errors(again) == (400, [("BadRequestError",
                                    "There is no request to go live waiting for the organisation's approval")])
    events = AuditEvent.select().where(AuditEvent.service_id == sid).order_by(AuditEvent.created_at)
    steps = [(e.action, e.actor_name) for e in events if e.action.startswith("go_live")]
    assert steps == [("go_live.request", "notify-admin"), ("go_live.organisation_approve", admin.email_address),
                     ("go_live.approve", "notify-admin")]


def test_a_service_of_a_body_without_an_admin_goes_straight_to_the_platform_admin(client):
    sid = post_service(client, name="Parkeren")["id"]
    _ready(client, sid)
    _organisation_with(client, sid, admin=None)
    asked = client.post(f"/admin/services/{sid}/go-live/request", headers=admin_headers()).get_json()
    assert asked["awaits_organisation"] is False
    nothing = client.post(f"/admin/services/{sid}/go-live/organisation-approve", headers=admin_headers())
    assert errors(nothing) == (400, [("BadRequestError",
                                      "There is no request to go live waiting for the organisation's approval")])
    live = client.post(f"/admin/services/{sid}/go-live/approve", headers=admin_headers()).get_json()
    assert live["trial_mode"] is False


def test_a_request_is_turned_down_on_behalf_of_a_console_user(client):
    sid = post_service(client, name="Parkeren")["id"]
    _ready(client, sid)
    admin, member = create_console_user(name="Org admin"), create_console_user()
    outsider, platform = create_console_user(), create_console_user(platform_admin=True)
    org_id = _organisation_with(client, sid, admin=admin.email_address)
    client.post(f"/admin/organisations/{org_id}/members", json={"email_address": member.email_address,
                                                                "role": "member"}, headers=admin_headers())
    client.post(f"/admin/services/{sid}/go-live/request", json=ANSWERS, headers=admin_headers())
    reject = f"/admin/services/{sid}/go-live/reject"
    reason = {"reason": "Wie zijn de ontvangers precies?"}

    def as_(user, body=None):
        return client.post(reject, json=body or reason, query_string={"on_behalf_of": user.id},
                           headers=admin_headers())

    assert as_(outsider).status_code == 404  # not a member: the organisation is not revealed
    assert errors(as_(member)) == (403, [("BadRequestError",
                                          "Only an admin of the organisation or a platform admin can do this")])
    malformed = client.post(reject, json=reason, query_string={"on_behalf_of": "nobody"}, headers=admin_headers())
    assert malformed.status_code == 400
    rejected = as_(admin).get_json()
    assert (rejected["trial_mode"], rejected["request"]["status"], rejected["request"]["decided_by"],
            rejected["request"]["reason"]) == (True, "rejected", admin.email_address, reason["reason"])

    # Once the organisation has approved, the decision is the platform admin's.
    client.post(f"/admin/services/{sid}/go-live/request", json=ANSWERS, headers=admin_headers())
    client.post(f"/admin/services/{sid}/go-live/organisation-approve", query_string={"on_behalf_of": admin.id},
                headers=admin_headers())
    assert errors(as_(admin)) == (400, [("BadRequestError",
                                         "There is no request to go live waiting for the organisation's approval")])
    by_platform = as_(platform, {"reason": "Nog niet"}).get_json()
    assert (by_platform["request"]["status"], by_platform["request"]["decided_by"]) == (
        "rejected", platform.email_address)
    events = AuditEvent.select().where(AuditEvent.service_id == sid).order_by(AuditEvent.created_at)
    steps = [(e.action, e.actor_name) for e in events if e.action.startswith("go_live")]
    assert steps == [("go_live.request", "notify-admin"), ("go_live.reject", admin.email_address),
                     ("go_live.request", "notify-admin"), ("go_live.organisation_approve", admin.email_address),
                     ("go_live.reject", platform.email_address)]


def _platform_emails() -> list[tuple[str, str, str]]:
    rows = Notification.select().where(Notification.service == PLATFORM_SERVICE_ID).order_by(Notification.created_at)
    return [(row.to, row.subject, row.body) for row in rows]


def test_the_organisations_admins_hear_a_request_waits_and_the_team_hears_they_approved(client):
    sid, org_id, admin, member = _service_of_organisation(client)
    client.post(f"/admin/services/{sid}/go-live/request", json=ANSWERS, headers=admin_headers())
    [(to, subject, body)] = _platform_emails()
    # Sent through the admin API, by no page: in Dutch, the platform's language.
    assert (to, subject) == (admin.email_address, "Parkeren wacht op uw goedkeuring")
    assert f"{get_settings().admin_url}/organisations/{org_id}/go-live/{sid}" in body
    assert "Als beheerder van Gemeente Utrecht beslist u eerst" in body

    client.post(f"/admin/services/{sid}/go-live/organisation-approve", query_string={"on_behalf_of": admin.id},
                headers=admin_headers())
    told = [(to, subject) for to, subject, _ in _platform_emails()[1:]]
    assert told == [("colleague@example.nl", "Gemeente Utrecht heeft Parkeren goedgekeurd")]
