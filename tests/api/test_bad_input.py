"""Input that once answered 500: each now gets the spec's error shape with a 4xx and a clear message.

Bodies are sent as raw text, because a lone surrogate or 1,000 brackets is what a fuzzer sends and
what a JSON encoder in a test would refuse to write. Every test here runs on SQLite and PostgreSQL.
"""
from __future__ import annotations

import base64
import json

import pytest

from models.notification import Notification, ReceivedText
from models.service import InboundNumber, Service
from tests.admin_helpers import admin_headers
from tests.factories import auth_headers, create_sample_template, create_service
from tests.responses import error

NUL = "\\u0000"
SURROGATE = "\\ud800"
DEEP = "[" * 1000 + "]" * 1000
TOO_DEEP = (400, "BadRequestError", "Invalid JSON supplied in POST data: nested more than 64 levels deep")


def _post(client, path, text, headers):
    return client.post(path, data=text.encode(), headers={**headers, "Content-Type": "application/json"})


def _sms_body(service, reference):
    template = create_sample_template(service=service, body="Hello")
    return '{"phone_number": "+31612345678", "template_id": "%s", "reference": "%s"}' % (template.id, reference)


def _provider_headers():
    from config import get_settings

    return {"Authorization": f"Bearer {get_settings().provider_webhook_token}"}


# Nesting ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/v2/notifications/sms", "/v2/notifications/email", "/v2/notifications/letter"])
def test_json_nested_a_thousand_deep_on_sends(client, key, path):
    assert error(_post(client, path, DEEP, auth_headers(key))) == TOO_DEEP


def test_json_nested_a_thousand_deep_on_the_admin_api(client):
    assert error(_post(client, "/admin/services", '{"name": %s}' % DEEP, admin_headers())) == TOO_DEEP


@pytest.mark.parametrize("path", ["/providers/sms-gateway/delivery-receipts", "/providers/sms-gateway/inbound-sms"])
def test_json_nested_a_thousand_deep_on_the_webhooks(client, path):
    assert error(_post(client, path, DEEP, _provider_headers())) == TOO_DEEP


def test_nesting_that_parses_but_is_too_deep_inside_personalisation(client, service, key):
    template = create_sample_template(service=service, body="Hello ((name))")
    nested = '{"a": ' * 200 + "1" + "}" * 200
    body = '{"phone_number": "+31612345678", "template_id": "%s", "personalisation": {"name": %s}}' % (
        template.id, nested)
    assert error(_post(client, "/v2/notifications/sms", body, auth_headers(key))) == TOO_DEEP
    assert Notification.select().count() == 0


# Lone surrogates and NUL characters -----------------------------------------------------------------

@pytest.mark.parametrize("char, what", [(NUL, "NUL characters (U+0000)"), (SURROGATE, "lone surrogates (U+D800)")])
def test_sms_reference(client, service, key, char, what):
    response = _post(client, "/v2/notifications/sms", _sms_body(service, f"ref{char}"), auth_headers(key))
    assert error(response) == (400, "ValidationError", f"reference must not contain {what}")
    assert Notification.select().count() == 0


@pytest.mark.parametrize("char, what", [(NUL, "NUL characters (U+0000)"), ("\\udfff", "lone surrogates (U+DFFF)")])
def test_personalisation_values_and_keys(client, service, key, char, what):
    template = create_sample_template(service=service, body="Hello ((name))")
    prefix = '{"phone_number": "+31612345678", "template_id": "%s", ' % template.id
    value = prefix + '"personalisation": {"name": "x%s"}}' % char
    assert error(_post(client, "/v2/notifications/sms", value, auth_headers(key))) == (
        400, "ValidationError", f"personalisation.name must not contain {what}")
    name_key = prefix + '"personalisation": {"name": "x", "n%s": "y"}}' % char
    assert error(_post(client, "/v2/notifications/sms", name_key, auth_headers(key))) == (
        400, "ValidationError", f"personalisation keys must not contain {what}")


def test_a_surrogate_written_out_in_utf8_rather_than_escaped(client, service, key):
    # Python's JSON reader takes the three bytes of an encoded surrogate as one; no escape is in sight.
    body = _sms_body(service, "ref").encode().replace(b'"ref"', b'"ref\xed\xa0\x80"')
    response = client.post("/v2/notifications/sms", data=body,
                           headers={**auth_headers(key), "Content-Type": "application/json"})
    assert error(response) == (400, "ValidationError", "reference must not contain lone surrogates (U+D800)")


def test_a_nul_in_a_utf16_body(client, service, key):
    body = _sms_body(service, f"ref{NUL}").encode("utf-16-le")
    response = client.post("/v2/notifications/sms", data=body,
                           headers={**auth_headers(key), "Content-Type": "application/json"})
    assert error(response) == (400, "ValidationError", "reference must not contain NUL characters (U+0000)")


def test_nesting_just_too_deep_with_few_other_brackets(client, service, key):
    template = create_sample_template(service=service, body="Hello")
    body = '{"phone_number": "+31612345678", "template_id": "%s", "personalisation": %s}' % (
        template.id, "[" * 64 + "]" * 64)  # the innermost list 64 levels in: the first depth refused
    assert error(_post(client, "/v2/notifications/sms", body, auth_headers(key))) == TOO_DEEP


def test_email_address_with_a_surrogate(client, service, key):
    template = create_sample_template(service=service, template_type="email", body="Hi")
    body = '{"email_address": "a%s@example.nl", "template_id": "%s"}' % (SURROGATE, template.id)
    assert error(_post(client, "/v2/notifications/email", body, auth_headers(key))) == (
        400, "ValidationError", "email_address must not contain lone surrogates (U+D800)")


def test_letter_address_line_with_nul(client, service, key):
    template = create_sample_template(service=service, template_type="letter", body="Dear customer")
    body = ('{"template_id": "%s", "personalisation": {"address_line_1": "A. Jansen%s", '
            '"address_line_2": "Dorpsstraat 1", "address_line_3": "1234 AB Amsterdam"}}') % (template.id, NUL)
    assert error(_post(client, "/v2/notifications/letter", body, auth_headers(key))) == (
        400, "ValidationError", "personalisation.address_line_1 must not contain NUL characters (U+0000)")


def test_preview_with_a_surrogate(client, service, key):
    template = create_sample_template(service=service, body="Hello ((name))")
    body = '{"personalisation": {"name": "%s"}}' % SURROGATE
    assert error(_post(client, f"/v2/template/{template.id}/preview", body, auth_headers(key))) == (
        400, "ValidationError", "personalisation.name must not contain lone surrogates (U+D800)")


def test_reference_filter_with_nul(client, key):
    response = client.get("/v2/notifications?reference=a%00b", headers=auth_headers(key))
    assert error(response) == (400, "ValidationError", "reference must not contain NUL characters (U+0000)")


def test_query_parameter_name_with_nul(client, key):
    response = client.get("/v2/notifications?a%00=b", headers=auth_headers(key))
    assert error(response) == (
        400, "ValidationError", "Query parameter names must not contain NUL characters (U+0000)")


@pytest.mark.parametrize("char, what", [(NUL, "NUL characters (U+0000)"), (SURROGATE, "lone surrogates (U+D800)")])
def test_admin_service_name(client, char, what):
    response = _post(client, "/admin/services", '{"name": "Tax%s"}' % char, admin_headers())
    assert error(response) == (400, "ValidationError", f"name must not contain {what}")
    assert Service.select().count() == 0


@pytest.mark.parametrize("char, what", [(NUL, "NUL characters (U+0000)"), (SURROGATE, "lone surrogates (U+D800)")])
def test_admin_template_name_and_body(client, service, char, what):
    path = f"/admin/services/{service.id}/templates"
    for field in ("name", "body"):
        values = {"name": "n", "type": "sms", "body": "b", field: f"x{char}"}
        text = "{%s}" % ", ".join(f'"{k}": "{v}"' for k, v in values.items())
        assert error(_post(client, path, text, admin_headers())) == (
            400, "ValidationError", f"{field} must not contain {what}")


@pytest.mark.parametrize("char, what", [(NUL, "NUL characters (U+0000)"), (SURROGATE, "lone surrogates (U+D800)")])
def test_inbound_sms_message(client, char, what):
    service = create_service(permissions=["sms", "inbound_sms"])
    InboundNumber.create(number="+3197010000001", service=service)
    body = '{"to": "+3197010000001", "from": "+31612345678", "message": "Hi%s", "id": "gw-1"}' % char
    response = _post(client, "/providers/sms-gateway/inbound-sms", body, _provider_headers())
    assert error(response) == (400, "ValidationError", f"message must not contain {what}")
    assert ReceivedText.select().count() == 0


# Integers too large for their columns ------------------------------------------------------------------

@pytest.mark.parametrize("field", ["rate_limit", "sms_daily_limit", "email_daily_limit", "letter_daily_limit",
                                   "international_sms_daily_limit"])
@pytest.mark.parametrize("value", [2**31, 2**63, 10**30])
def test_admin_limits_too_large(client, service, field, value):
    response = client.patch(f"/admin/services/{service.id}", json={field: value}, headers=admin_headers())
    assert error(response) == (400, "ValidationError", f"{field} {value} is greater than the maximum of 2147483647")


def test_admin_limit_at_the_column_maximum_is_stored(client, service):
    response = client.patch(f"/admin/services/{service.id}", json={"sms_daily_limit": 2**31 - 1},
                            headers=admin_headers())
    assert response.status_code == 200
    assert Service.get_by_id(service.id).sms_daily_limit == 2**31 - 1


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_numbers_json_does_not_have_are_invalid_json(client, service, number):
    response = client.patch(f"/admin/services/{service.id}", data='{"rate_limit": %s}' % number,
                            headers=admin_headers())
    assert error(response) == (400, "BadRequestError", "Invalid JSON supplied in POST data")


def test_a_number_of_5000_digits_in_a_body_is_invalid_json(client, service):
    text = '{"rate_limit": %s}' % ("9" * 5000)
    response = client.patch(f"/admin/services/{service.id}", data=text, headers=admin_headers())
    assert error(response) == (400, "BadRequestError", "Invalid JSON supplied in POST data")


@pytest.mark.parametrize("version", ["9223372036854775808", "2147483648"])
def test_template_version_too_large(client, service, key, version):
    template = create_sample_template(service=service)
    response = client.get(f"/v2/template/{template.id}/version/{version}", headers=auth_headers(key))
    assert error(response) == (400, "ValidationError", f"version {version} is greater than the maximum of 2147483647")


@pytest.mark.parametrize("version", ["0", "-9223372036854775809"])
def test_template_version_below_one(client, service, key, version):
    template = create_sample_template(service=service)
    response = client.get(f"/v2/template/{template.id}/version/{version}", headers=auth_headers(key))
    assert error(response) == (400, "ValidationError", f"version {version} is less than the minimum of 1")


@pytest.mark.parametrize("limit", ["²", "١٢", "1_0", "9" * 5000, "99999999999999999999"])
def test_callback_attempts_limit_that_is_not_an_ascii_integer(client, service, limit):
    response = client.get(f"/admin/services/{service.id}/callbacks/delivery-status/attempts",
                          query_string={"limit": limit}, headers=admin_headers())
    assert error(response) == (400, "ValidationError", f"limit {limit} is not of type integer")


@pytest.mark.parametrize("path, name", [("history", "limit"), ("usage?month=1", "year")])
def test_other_integer_query_parameters_that_are_not_ascii_integers(client, service, path, name):
    separator = "&" if "?" in path else "?"
    response = client.get(f"/admin/services/{service.id}/{path}{separator}{name}=²", headers=admin_headers())
    assert error(response) == (400, "ValidationError", f"{name} ² is not of type integer")


def test_usage_of_the_last_month_python_has_no_end_for(client, service):
    response = client.get(f"/admin/services/{service.id}/usage?year=9999&month=12", headers=admin_headers())
    assert error(response) == (400, "ValidationError", "year 9999 is greater than the maximum of 9998")


def test_retention_period_of_5000_digits(client, service, key):
    template = create_sample_template(service=service, template_type="email", body="Your file: ((doc))")
    file = {"file": base64.b64encode(b"%PDF-1.4 tiny").decode(), "filename": "a.pdf",
            "confirm_email_before_download": None, "retention_period": "9" * 5000 + " weeks"}
    body = {"email_address": "someone@example.nl", "template_id": str(template.id), "personalisation": {"doc": file}}
    status, name, message = error(client.post("/v2/notifications/email", json=body, headers=auth_headers(key)))
    assert (status, name) == (400, "BadRequestError")
    assert message.startswith("Unsupported value for retention_period '99999")
    assert message.endswith("Supported periods are from 1 to 78 weeks.")


# Text longer than its column (PostgreSQL refuses it; SQLite would store it) ------------------------------

def test_callback_url_longer_than_its_column(client, service):
    url = "https://example.com/" + "a" * 300
    response = client.put(f"/admin/services/{service.id}/callbacks/delivery-status",
                          json={"url": url, "bearer_token": "0123456789"}, headers=admin_headers())
    assert error(response) == (400, "ValidationError", f"url {url} is too long")


def test_inbound_sms_sender_longer_than_its_column(client):
    service = create_service(permissions=["sms", "inbound_sms"])
    InboundNumber.create(number="+3197010000001", service=service)
    body = {"to": "+3197010000001", "from": "1" * 256, "message": "Hi", "id": "x" * 256}
    response = client.post("/providers/sms-gateway/inbound-sms", json=body, headers=_provider_headers())
    assert response.status_code == 400
    assert response.get_json()["errors"] == [
        {"error": "ValidationError", "message": f"from {'1' * 256} is too long"},
        {"error": "ValidationError", "message": f"id {'x' * 256} is too long"}]
    assert ReceivedText.select().count() == 0


# The receipt webhook's limits ----------------------------------------------------------------------------

def test_receipts_over_the_count_limit_are_refused_before_any_is_validated(client):
    # 1,001 receipts each with a schema problem: only the count is reported, not 1,001 problems.
    body = json.dumps([{"bad": i} for i in range(1001)])
    response = _post(client, "/providers/sms-gateway/delivery-receipts", body, _provider_headers())
    assert error(response) == (400, "BadRequestError", "Too many items: at most 1000 in one request, got 1001")


def test_a_receipt_body_of_several_megabytes_is_refused_unread(client):
    body = "[" + ",".join(['{"id": "x", "status": "delivered"}'] * 140_000) + "]"  # about 4.7 MB
    assert len(body) > 4_500_000
    response = _post(client, "/providers/sms-gateway/delivery-receipts", body, _provider_headers())
    assert error(response) == (413, "RequestEntityTooLarge",
                               "The data value transmitted exceeds the capacity limit.")


def test_email_events_over_the_count_limit_are_refused_before_any_is_validated(client):
    body = json.dumps([{"bad": i} for i in range(1001)])
    response = _post(client, "/providers/smtp/email-events", body, _provider_headers())
    assert error(response) == (400, "BadRequestError", "Too many items: at most 1000 in one request, got 1001")


def test_a_full_batch_of_receipts_is_still_accepted(client):
    body = json.dumps([{"id": f"gw-{i}", "status": "delivered", "reference": None} for i in range(1000)])
    response = _post(client, "/providers/sms-gateway/delivery-receipts", body, _provider_headers())
    assert response.status_code == 200
