"""Sends through the official Node client (notifications-node-client 8.4)."""
from __future__ import annotations

from tests.conftest import status_of, wait_for
from tests.contract.node_client import node_call, requires_node
from tests.factories import create_key, create_sample_template

pytestmark = requires_node


def test_send_sms_with_a_test_key_reaches_delivered(service, live_server, worker):
    template = create_sample_template(service=service, body="Hallo ((naam))")
    key = create_key(service=service, key_type="test")
    status, data = node_call(live_server, key, "sendSms", str(template.id), "06 12345678",
                             {"personalisation": {"naam": "Joost"}, "reference": "node-1"})
    assert status == 201
    assert data["content"] == {"body": "Hallo Joost", "from_number": "Notify"}
    assert data["reference"] == "node-1"
    wait_for(lambda: status_of(data["id"]) == "delivered")


def test_send_email(service, live_server):
    template = create_sample_template(service=service, template_type="email", subject="Over ((x))", body="Body ((x))")
    status, data = node_call(live_server, create_key(service=service), "sendEmail", str(template.id),
                             "burger@example.nl", {"personalisation": {"x": "y"}})
    assert status == 201
    assert data["content"]["subject"] == "Over y" and data["content"]["body"] == "Body y"


def test_errors_reach_node_users_in_the_spec_shape(service, live_server):
    template = create_sample_template(service=service, body="Hi ((name))")
    key = create_key(service=service)
    status, data = node_call(live_server, key, "sendSms", str(template.id), "0201234567",
                             {"personalisation": {"name": "a"}})
    assert (status, data) == (400, {"status_code": 400, "errors": [
        {"error": "ValidationError", "message": "phone_number Not a NL mobile number"}]})
    status, data = node_call(live_server, key, "sendSms", str(template.id), "0612345678", {})
    assert (status, data["errors"]) == (400, [{"error": "BadRequestError", "message": "Missing personalisation: name"}])


def test_preview_and_template_reads(service, live_server):
    template = create_sample_template(service=service, template_type="email", subject="S ((a))", body="B ((a))")
    key = create_key(service=service)
    status, data = node_call(live_server, key, "previewTemplateById", str(template.id), {"a": "1"})
    assert status == 200 and data["body"] == "B 1" and data["subject"] == "S 1" and "<p" in data["html"]
    status, data = node_call(live_server, key, "getTemplateByIdAndVersion", str(template.id), 1)
    assert status == 200 and data["version"] == 1
    status, data = node_call(live_server, key, "getAllTemplates", "email")
    assert status == 200 and [t["id"] for t in data["templates"]] == [str(template.id)]
    status, data = node_call(live_server, key, "getTemplateById", "6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11")
    assert (status, data["errors"]) == (404, [{"error": "NoResultFound", "message": "No Result Found"}])


def test_email_responses_carry_sanitised_content(service, live_server):
    template = create_sample_template(service=service, template_type="email", subject="S", body="((a)) ((b))")
    key = create_key(service=service)
    status, data = node_call(live_server, key, "sendEmail", str(template.id), "burger@example.nl",
                             {"personalisation": {"a": "*1*", "b": "2"}})
    assert (status, data["sanitised_content"]) == (201, {})
    status, data = node_call(live_server, key, "sendEmail", str(template.id), "burger@example.nl",
                             {"personalisation": {"a": "*1*", "b": "2"}, "sanitiseContentFor": ["a", "b"]})
    assert (status, data["sanitised_content"]) == (201, {"a": {"sanitised": "\\*1\\*", "unsanitised": "*1*"}})
