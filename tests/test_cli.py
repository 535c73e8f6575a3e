"""Operator commands: the same operations as the admin API, printing JSON."""
from __future__ import annotations

import json
import uuid

import jwt
import pytest

from config import get_settings
from models.api_key import ApiKey
from models.service import Service
from models.template import find_version
from tests.admin_helpers import service_headers


@pytest.fixture
def cli(app):
    runner = app.test_cli_runner()

    def run(*args: str, ok: bool = True):
        result = runner.invoke(args=list(args))
        assert (result.exit_code == 0) is ok, (result.output, result.exception)
        return json.loads(result.stdout if ok else result.stderr)

    return run


def test_create_service_in_trial_mode(cli):
    body = cli("create-service", "--name", "Tax office")
    assert ((body["name"], body["trial_mode"], body["permissions"])
            == ("Tax office", True, ["email", "sms", "letter", "international_sms"]))
    assert Service.get_by_id(body["id"]).trial_mode is True


def test_create_live_service_with_permissions(cli):
    body = cli("create-service", "--name", "Permits", "--live", "--permissions", "email, letter")
    assert (body["trial_mode"], body["permissions"]) == (False, ["email", "letter"])


def test_errors_are_the_api_error_body(cli):
    cli("create-service", "--name", "Tax office")
    assert cli("create-service", "--name", "tax office", ok=False) == {
        "status_code": 400,
        "errors": [{"error": "BadRequestError", "message": "Service name 'tax office' already exists"}]}
    assert cli("create-service", "--name", "x", "--permissions", "fax", ok=False)["errors"] == [{
        "error": "ValidationError",
        "message": "permissions fax is not one of "
                   "[email, sms, letter, international_sms, inbound_sms, upload_document]"}]


def test_create_api_key_that_works(cli, client):
    service = cli("create-service", "--name", "Tax office")
    body = cli("create-api-key", "--service-id", service["id"], "--name", "ops", "--key-type", "team")
    assert (body["name"], body["key_type"]) == ("ops", "team")
    assert body["key"].startswith(f"ops-{service['id']}-")
    assert ApiKey.get_by_id(body["id"]).key_type == "team"
    assert client.get("/v2/templates", headers=service_headers(body["key"])).status_code == 200


def test_a_key_with_an_expiry_is_rotated_from_the_cli(cli, client):
    service = cli("create-service", "--name", "Tax office")
    old = cli("create-api-key", "--service-id", service["id"], "--name", "ops", "--key-type", "live",
              "--expires-at", "2099-01-01T00:00:00Z")
    assert old["expires_at"] == "2099-01-01T00:00:00.000000Z"
    rotated = cli("rotate-api-key", "--service-id", service["id"], "--key-id", old["id"], "--overlap-seconds", "60")
    assert rotated["old_key"]["id"] == old["id"] and rotated["new_key"]["name"] == "ops"
    for key in (old["key"], rotated["new_key"]["key"]):
        assert client.get("/v2/templates", headers=service_headers(key)).status_code == 200


def test_create_api_key_validation(cli):
    service = cli("create-service", "--name", "Tax office")
    assert cli("create-api-key", "--service-id", service["id"], "--name", "k", "--key-type", "root", ok=False)[
        "errors"] == [{"error": "ValidationError", "message": "key_type root is not one of [live, team, test]"}]
    assert cli("create-api-key", "--service-id", str(uuid.uuid4()), "--name", "k", "--key-type", "live",
               ok=False)["status_code"] == 404


def test_create_templates(cli):
    service = cli("create-service", "--name", "Tax office")
    sms = cli("create-template", "--service-id", service["id"], "--type", "sms", "--name", "Code",
              "--body", "Your code is ((code))")
    assert (sms["version"], sms["type"], sms["subject"], sms["personalisation"]) == (
        1, "sms", None, {"code": {"required": True}})
    letter = cli("create-template", "--service-id", service["id"], "--type", "letter", "--name", "Letter",
                 "--body", "Text", "--subject", "Heading", "--postage", "first")
    assert (letter["subject"], letter["postage"]) == ("Heading", "first")
    assert find_version(Service.get_by_id(service["id"]), letter["id"]).postage == "first"


def test_create_email_template_needs_a_subject(cli):
    service = cli("create-service", "--name", "Tax office")
    refused = cli("create-template", "--service-id", service["id"], "--type", "email", "--name", "E",
                  "--body", "B", ok=False)
    assert refused["errors"] == [{"error": "ValidationError", "message": "subject is a required property"}]


def test_go_live(cli):
    service = cli("create-service", "--name", "Tax office")
    body = cli("go-live", "--service-id", service["id"])
    assert body["trial_mode"] is False and body["request"] is None
    assert Service.get_by_id(service["id"]).trial_mode is False
    assert cli("go-live", "--service-id", "nope", ok=False)["errors"] == [
        {"error": "ValidationError", "message": "service_id is not a valid UUID"}]


def test_list_services(cli):
    assert cli("list-services") == {"services": []}
    first = cli("create-service", "--name", "First")
    second = cli("create-service", "--name", "Second")
    assert cli("list-services") == {"services": [first, second]}


def test_admin_token_is_accepted_by_the_admin_api(app, client):
    result = app.test_cli_runner().invoke(args=["admin-token"])
    assert result.exit_code == 0
    token = result.stdout.strip()
    settings = get_settings()
    assert jwt.decode(token, settings.admin_client_secret, algorithms=["HS256"])["iss"] == settings.admin_client_id
    assert client.get("/admin/services", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_set_appearance_and_its_refusals(cli):
    from models.appearance import EmailBrand, appearance_of
    from models.audit import AuditEvent

    service = cli("create-service", "--name", "Tax office")
    brand = EmailBrand.create(name="Gemeente")
    set_both = ("set-appearance", "--service-id", service["id"], "--language", "en", "--email-brand-id", str(brand.id))
    assert cli(*set_both) == {"language": "en", "email_brand_id": str(brand.id), "letter_brand_id": None}
    assert cli("set-appearance", "--service-id", service["id"], "--email-brand-id", "none")["email_brand_id"] is None
    assert appearance_of(service["id"]).language == "en"
    event = AuditEvent.select().where(AuditEvent.action == "service.appearance").order_by(AuditEvent.created_at).first()
    assert (event.actor_kind, event.after) == ("cli", {"language": "en", "email_brand_id": str(brand.id)})
    assert cli("set-appearance", "--service-id", service["id"], "--letter-brand-id", str(uuid.uuid4()), ok=False)[
        "errors"] == [{"error": "ValidationError", "message": "letter_brand_id is not a letter brand"}]
    assert cli("set-appearance", "--service-id", service["id"], "--language", "fr", ok=False)["errors"] == [
        {"error": "ValidationError", "message": "language fr is not one of [nl, en]"}]


def test_organisations_are_made_listed_and_their_history_shown(cli):
    made = cli("create-organisation", "--name", "Gemeente Utrecht", "--kind", "gemeente")
    assert cli("add-organisation-domain", "--organisation-id", made["id"], "--domain", "utrecht.nl")["domains"] == [
        "utrecht.nl"]
    other = cli("create-organisation", "--name", "Gemeente Zeist", "--kind", "gemeente")
    refused = cli("add-organisation-domain", "--organisation-id", other["id"], "--domain", "utrecht.nl", ok=False)
    assert refused["errors"] == [{"error": "BadRequestError",
                                  "message": "The email domain utrecht.nl already belongs to Gemeente Utrecht"}]
    listed = cli("list-organisations", "--search", "utrecht")
    assert [o["name"] for o in listed["organisations"]] == ["Gemeente Utrecht"]
    history = cli("organisation-history", "--organisation-id", made["id"])
    assert [(e["action"], e["actor"]["kind"]) for e in history["events"]] == [("domain.add", "cli"),
                                                                            ("organisation.create", "cli")]
