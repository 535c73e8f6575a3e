"""Service forms without a browser: what a refusal of the shared rules looks like on the page, and
who the history names for a change made in the console."""
from __future__ import annotations

from models.audit import AuditEvent
from models.service import Service
from models.user import SERVICE_PERMISSIONS, ServiceUser
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_service


def test_a_new_service_makes_its_creator_a_member_and_is_recorded_as_theirs(console_app):
    user = create_console_user(email_address="ann@example.gov.nl")
    client = signed_in_client(console_app, user.user)
    response = client.post("/services/new", data={"csrf_token": csrf_token(client), "name": "Loket"})
    service = Service.get(Service.name == "Loket")
    assert response.status_code == 302 and response.headers["Location"] == f"/services/{service.id}"
    assert service.trial_mode is True
    assert ServiceUser.get(ServiceUser.service == service).permissions == list(SERVICE_PERMISSIONS)
    events = AuditEvent.select().where(AuditEvent.service_id == service.id).order_by(AuditEvent.created_at)
    assert [(e.action, e.actor_kind, e.actor_name) for e in events] == [
        ("service.create", "user", "ann@example.gov.nl"), ("member.add", "user", "ann@example.gov.nl")]


def test_a_refusal_is_shown_in_dutch_and_changes_nothing(console_app):
    create_service(name="Loket")
    user = create_console_user()
    client = signed_in_client(console_app, user.user)
    response = client.post("/services/new", data={"csrf_token": csrf_token(client), "name": "loket"})
    assert response.status_code == 200
    assert "Er is al een dienst met de naam loket" in response.get_data(as_text=True)
    assert Service.select().count() == 1 and ServiceUser.select().count() == 0


def test_the_guest_list_refuses_a_number_in_dutch(console_app):
    service = create_service(name="Loket")
    member = create_console_user(service=service, permissions=["manage_service"])
    client = signed_in_client(console_app, member.user)
    response = client.post(f"/services/{service.id}/guest-list",
                           data={"csrf_token": csrf_token(client), "recipient": "+31 6 123"})
    assert "Het nummer heeft te weinig cijfers" in response.get_data(as_text=True)
