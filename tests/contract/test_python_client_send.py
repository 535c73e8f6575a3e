"""Sends and authentication errors through the official Python client, as a user sees them."""
from __future__ import annotations

import uuid

import pytest
from notifications_python_client import authentication
from notifications_python_client.errors import HTTPError
from notifications_python_client.notifications import NotificationsAPIClient

from models.service import TeamMember
from tests.factories import create_key, create_sample_template, create_service


def _raised(call) -> tuple[int, list]:
    with pytest.raises(HTTPError) as exc:
        call()
    return exc.value.status_code, exc.value.message


def test_each_key_type_sends(service, live_server):
    template = create_sample_template(service=service, body="Hi")
    TeamMember.create(service=service, mobile_number="+31611111111")
    for key_type in ("live", "team", "test"):
        key = create_key(service=service, key_type=key_type, name=key_type)
        api = NotificationsAPIClient(key, base_url=live_server)
        response = api.send_sms_notification("0611111111", str(template.id), reference=key_type)
        assert response["reference"] == key_type and response["content"]["body"] == "Hi"


def test_unknown_key(service, live_server):
    fake = f"name-{service.id}-{uuid.uuid4()}"
    api = NotificationsAPIClient(fake, base_url=live_server)
    assert _raised(api.get_all_templates) == (403, [{"error": "AuthError",
                                                     "message": "Invalid token: API key not found"}])


def test_skewed_clock(service, live_server, monkeypatch):
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    real = authentication.epoch_seconds
    monkeypatch.setattr(authentication, "epoch_seconds", lambda: real() - 120)
    assert _raised(api.get_all_templates) == (403, [
        {"error": "AuthError", "message": "Error: Your system clock must be accurate to within 30 seconds"}])


def test_trial_mode_and_team_key_errors(live_server):
    service = create_service(trial_mode=True)
    template = create_sample_template(service=service, template_type="email", subject="s", body="b")
    live = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    team = NotificationsAPIClient(create_key(service=service, key_type="team", name="team"), base_url=live_server)
    assert _raised(lambda: live.send_email_notification("x@example.nl", str(template.id))) == (400, [{
        "error": "BadRequestError",
        "message": "Cannot send to this recipient when service is in trial mode - see https://admin.example.nl/trial-mode"}])
    assert _raised(lambda: team.send_email_notification("x@example.nl", str(template.id))) == (400, [{
        "error": "BadRequestError", "message": "Cannot send to this recipient using a team-only API key."}])


def test_validation_errors(service, live_server):
    template = create_sample_template(service=service, body="Hi ((name))")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    assert _raised(lambda: api.send_sms_notification("0612", str(template.id), {"name": "a"})) == (400, [
        {"error": "ValidationError", "message": "phone_number Not enough digits"}])
    assert _raised(lambda: api.send_sms_notification("0612345678", "not-a-uuid")) == (400, [
        {"error": "ValidationError", "message": "template_id is not a valid UUID"}])
    assert _raised(lambda: api.send_sms_notification("0612345678", str(template.id), reference="r" * 1001)) == (400, [
        {"error": "ValidationError", "message": f"reference {'r' * 1001} is too long"}])


def test_email_responses_carry_sanitised_content(service, live_server):
    template = create_sample_template(service=service, template_type="email", subject="S", body="((a)) ((b))")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    plain = api.send_email_notification("burger@example.nl", str(template.id), personalisation={"a": "*1*", "b": "2"})
    assert plain["sanitised_content"] == {}
    sanitised = api.send_email_notification("burger@example.nl", str(template.id),
                                            personalisation={"a": "*1*", "b": "2"}, sanitise_content_for=["a", "b"])
    assert sanitised["sanitised_content"] == {"a": {"sanitised": "\\*1\\*", "unsanitised": "*1*"}}
    assert sanitised["content"]["body"] == "\\*1\\* 2"
    sms = create_sample_template(service=service, body="Hi")
    assert "sanitised_content" not in api.send_sms_notification("0611111111", str(sms.id))
