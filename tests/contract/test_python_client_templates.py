"""Template reads and previews through the official Python client, as a user drives them."""
from __future__ import annotations

import jsonschema
import pytest
from notifications_python_client.errors import HTTPError
from notifications_python_client.notifications import NotificationsAPIClient

from api.v2.template.template_schemas import preview_response, template_response, templates_response
from models.service import LetterContact
from models.template import update_template
from tests.factories import create_key, create_sample_template, create_service


@pytest.fixture
def api(live_server, service):
    return NotificationsAPIClient(create_key(service=service), base_url=live_server)


def _error(exc: pytest.ExceptionInfo) -> tuple[int, list[dict]]:
    return exc.value.status_code, exc.value.message


def test_get_template_by_id(api, service):
    template = create_sample_template(service=service, template_type="email",
                                      body="Dear ((Name)), ((urgent??Please reply today.)) ((ref))")
    body = api.get_template(str(template.id))
    jsonschema.validate(body, template_response)
    assert body["id"] == str(template.id)
    assert body["type"] == "email"
    assert body["version"] == 1
    assert body["subject"] == "Subject ((name))"
    assert body["updated_at"] is None
    assert body["postage"] is None and body["letter_contact_block"] is None
    # ((name)) in the subject and ((Name)) in the body are one placeholder: the first spelling wins.
    assert body["personalisation"] == {"name": {"required": True}, "urgent": {"required": True},
                                       "ref": {"required": True}}


def test_versions_keep_their_own_fields(api, service):
    template = create_sample_template(service=service, name="first name", body="one")
    update_template(template, created_by="editor@example.nl", name="second name", body="two")
    latest = api.get_template(str(template.id))
    assert (latest["version"], latest["name"], latest["body"]) == (2, "second name", "two")
    assert latest["updated_at"] is not None and latest["updated_at"].endswith("Z")
    first = api.get_template_version(str(template.id), 1)
    assert (first["version"], first["name"], first["body"]) == (1, "first name", "one")


def test_version_reads_carry_the_versions_own_contact_block(api, service):
    LetterContact.create(service=service, contact_block="Default office", is_default=True)
    own = LetterContact.create(service=service, contact_block="Tax office\nPO Box 1")
    template = create_sample_template(service=service, template_type="letter", body="Dear ((name))")
    update_template(template, created_by="editor@example.nl", letter_contact=own)
    # The service's default applies when sending and previewing, not to what a version holds.
    first = api.get_template_version(str(template.id), 1)
    jsonschema.validate(first, template_response)
    assert (first["version"], first["letter_contact_block"]) == (1, None)
    second = api.get_template_version(str(template.id), 2)
    assert (second["version"], second["letter_contact_block"]) == (2, "Tax office\nPO Box 1")
    assert api.get_template(str(template.id))["letter_contact_block"] == "Tax office\nPO Box 1"


def test_unknown_template_and_version(api, service):
    template = create_sample_template(service=service)
    for call in (lambda: api.get_template("7f2e5b0c-0d8e-4b1e-9b7a-3c4d5e6f7a8b"),
                 lambda: api.get_template_version(str(template.id), 9)):
        with pytest.raises(HTTPError) as exc:
            call()
        assert _error(exc) == (404, [{"error": "NoResultFound", "message": "No Result Found"}])


def test_another_services_template_is_not_found(api):
    other = create_sample_template(service=create_service())
    with pytest.raises(HTTPError) as exc:
        api.get_template(str(other.id))
    assert exc.value.status_code == 404


def test_all_templates_and_type_filter(api, service):
    sms = create_sample_template(service=service, name="b sms")
    email = create_sample_template(service=service, template_type="email", name="a email")
    letter = create_sample_template(service=service, template_type="letter", name="c letter", body="Dear ((name))")
    body = api.get_all_templates()
    jsonschema.validate(body, templates_response)
    assert [t["id"] for t in body["templates"]] == [str(email.id), str(sms.id), str(letter.id)]
    assert [t["id"] for t in api.get_all_templates(template_type="sms")["templates"]] == [str(sms.id)]
    [letter_json] = api.get_all_templates(template_type="letter")["templates"]
    assert letter_json["postage"] == "second" and letter_json["subject"] == "Letter heading"


def test_bad_type_filter(api):
    with pytest.raises(HTTPError) as exc:
        api.get_all_templates(template_type="fax")
    assert _error(exc) == (400, [{"error": "ValidationError",
                                  "message": "type fax is not one of [sms, email, letter]"}])


def test_preview_email(api, service):
    template = create_sample_template(service=service, template_type="email",
                                      body="Hi ((name))\n\n* one\n* two\n\n<b>((name))</b>")
    body = api.post_template_preview(str(template.id), {"name": "<script>x</script>", "extra": "ignored"})
    jsonschema.validate(body, preview_response)
    assert body["subject"] == "Subject <script>x</script>"
    assert body["body"].startswith("Hi <script>x</script>")
    assert "<script>" not in body["html"] and "&lt;script&gt;" in body["html"]
    assert "<li" in body["html"]


def test_preview_sms_has_no_html_or_subject(api, service):
    template = create_sample_template(service=service)
    body = api.post_template_preview(str(template.id), {"name": ["a", "b", "c"]})
    assert body == {"id": str(template.id), "type": "sms", "version": 1, "body": "Hello a, b and c",
                    "subject": None, "postage": None, "html": None}


def test_preview_missing_personalisation(api, service):
    template = create_sample_template(service=service, body="((first)) ((second))")
    with pytest.raises(HTTPError) as exc:
        api.post_template_preview(str(template.id), {"first": "x"})
    assert _error(exc) == (400, [{"error": "BadRequestError", "message": "Missing personalisation: second"}])


def test_preview_unknown_template(api):
    with pytest.raises(HTTPError) as exc:
        api.post_template_preview("7f2e5b0c-0d8e-4b1e-9b7a-3c4d5e6f7a8b", {})
    assert _error(exc) == (404, [{"error": "NoResultFound", "message": "No Result Found"}])
