"""Going live: the checklist, a request, a platform admin's decision, and the email to the team."""
from __future__ import annotations

from core.go_live import approve_go_live, request_go_live
from models.audit import Actor, acting_as
from models.notification import Notification
from models.platform import PLATFORM_SERVICE_ID
from models.service import Service
from tests.admin_helpers import admin_headers, errors, post_service
from tests.conftest import wait_for
from workers.platform_email import send_platform_email


def _ready(client, sid: str, *, member: str = "colleague@example.nl") -> None:
    """Everything the checklist asks for."""
    client.post(f"/admin/services/{sid}/reply-to-addresses", json={"email_address": "help@example.nl"},
                headers=admin_headers())
    client.post(f"/admin/services/{sid}/templates", json={"type": "sms", "name": "hi", "body": "Hello"},
                headers=admin_headers())
    client.post(f"/admin/services/{sid}/users", json={"email_address": member}, headers=admin_headers())


def _platform_emails() -> list[tuple[str, str]]:
    rows = Notification.select().where(Notification.service == PLATFORM_SERVICE_ID).order_by(Notification.to)
    return [(row.to, row.subject) for row in rows]


def test_the_checklist_lists_what_is_missing(client):
    sid = post_service(client, name="Tax office")["id"]
    status = client.get(f"/admin/services/{sid}/go-live", headers=admin_headers()).get_json()
    assert status == {"trial_mode": True, "request": None,
                      "checklist": {"reply_to_address": False, "template": False, "team_member": False}}
    response = client.post(f"/admin/services/{sid}/go-live/request", headers=admin_headers())
    assert errors(response) == (400, [
        ("BadRequestError", "Add a reply-to email address before requesting to go live"),
        ("BadRequestError", "Add a template before requesting to go live"),
        ("BadRequestError", "Add a team member other than you before requesting to go live"),
    ])


def test_the_requester_is_not_the_other_team_member(client):
    sid = post_service(client, name="Tax office")["id"]
    _ready(client, sid, member="ann@example.nl")
    with acting_as(Actor("user", "1", "ann@example.nl")):
        from core.go_live import go_live_status

        assert go_live_status(sid).checklist["team_member"] is False
    with acting_as(Actor("user", "2", "bob@example.nl")):
        assert request_go_live(sid, send_email=send_platform_email).requested_by_name == "bob@example.nl"


def test_request_then_approve_tells_the_team(client, worker):
    sid = post_service(client, name="Tax office")["id"]
    _ready(client, sid)
    with acting_as(Actor("user", "7", "requester@example.nl")):
        request_go_live(sid, send_email=send_platform_email)
    again = client.post(f"/admin/services/{sid}/go-live/request", headers=admin_headers())
    assert errors(again) == (400, [("BadRequestError", "Going live has already been requested for this service")])
    approved = client.post(f"/admin/services/{sid}/go-live/approve", headers=admin_headers())
    assert approved.status_code == 200
    body = approved.get_json()
    assert body["trial_mode"] is False and body["request"]["status"] == "approved"
    assert body["request"]["decided_by"] == "notify-admin" and body["request"]["requested_by"] == "requester@example.nl"
    assert Service.get_by_id(sid).trial_mode is False
    # Told through the platform's own pipeline: the emails go out and are delivered.
    assert _platform_emails() == [("colleague@example.nl", "Tax office is live"),
                                  ("requester@example.nl", "Tax office is live")]
    body_text = Notification.get(Notification.to == "colleague@example.nl").body
    assert "Tax office is nu live: de dienst kan berichten naar iedereen sturen." in body_text  # no page: Dutch
    wait_for(lambda: all(n.status == "delivered" for n in Notification.select().where(
        Notification.service == PLATFORM_SERVICE_ID)))
    history = client.get(f"/admin/services/{sid}/history", headers=admin_headers()).get_json()["events"]
    assert [(e["action"], e["actor"]["name"]) for e in history[:2]] == [
        ("go_live.approve", "notify-admin"), ("go_live.request", "requester@example.nl")]
    live = client.post(f"/admin/services/{sid}/go-live/approve", headers=admin_headers())
    assert errors(live) == (400, [("BadRequestError", "Service is already live")])


def test_reject_with_a_reason(client):
    sid = post_service(client, name="Tax office")["id"]
    _ready(client, sid)
    assert client.post(f"/admin/services/{sid}/go-live/request", headers=admin_headers()).status_code == 201
    blank = client.post(f"/admin/services/{sid}/go-live/reject", json={"reason": " "}, headers=admin_headers())
    assert errors(blank) == (400, [("ValidationError", "reason cannot be blank")])
    rejected = client.post(f"/admin/services/{sid}/go-live/reject", json={"reason": "Templates are empty"},
                           headers=admin_headers()).get_json()
    assert rejected["trial_mode"] is True
    assert (rejected["request"]["status"], rejected["request"]["reason"]) == ("rejected", "Templates are empty")
    assert _platform_emails() == [("colleague@example.nl", "Tax office kan nog niet live")]
    assert "is afgewezen: Templates are empty" in Notification.get(Notification.to == "colleague@example.nl").body
    nothing = client.post(f"/admin/services/{sid}/go-live/reject", json={"reason": "x"}, headers=admin_headers())
    assert errors(nothing) == (400, [("BadRequestError", "There is no request to go live waiting for a decision")])
    # A new request may follow a rejection.
    assert client.post(f"/admin/services/{sid}/go-live/request", headers=admin_headers()).status_code == 201


def test_a_platform_admin_may_take_a_service_live_without_a_request(client):
    sid = post_service(client, name="Tax office")["id"]
    sent = []
    status = approve_go_live(sid, send_email=lambda key, to, values: sent.append(to))
    assert status.trial_mode is False and status.request is None and sent == []


def test_console_members_count_as_the_team_and_are_told(client):
    from tests.console.users import create_console_user

    sid = post_service(client, name="Tax office")["id"]
    client.post(f"/admin/services/{sid}/reply-to-addresses", json={"email_address": "help@example.nl"},
                headers=admin_headers())
    client.post(f"/admin/services/{sid}/templates", json={"type": "sms", "name": "hi", "body": "Hello"},
                headers=admin_headers())
    service = Service.get_by_id(sid)
    ann = create_console_user(service=service, permissions=["manage_service"], email_address="ann@example.nl")
    with acting_as(Actor("user", ann.id, "ann@example.nl")):
        from core.go_live import go_live_status

        assert go_live_status(sid).checklist["team_member"] is False  # only herself
    create_console_user(service=service, permissions=["view_activity"], email_address="bob@example.nl")
    with acting_as(Actor("user", ann.id, "ann@example.nl")):
        request_go_live(sid, send_email=send_platform_email)
    client.post(f"/admin/services/{sid}/go-live/approve", headers=admin_headers())
    assert _platform_emails() == [("ann@example.nl", "Tax office is live"), ("bob@example.nl", "Tax office is live")]
