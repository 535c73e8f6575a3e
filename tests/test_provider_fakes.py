"""The provider fakes are as strict as their providers' documentation (tests/fake_providers.py): a
request each provider documents is taken, and one it refuses (a wrong path or method, no
authentication, another content type, a required field missing) gets the provider's own refusal and
is never recorded as a message. Requests are built here from the documentation's examples, not by
our clients, so a fake that took anything would fail these."""
from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
import requests

from tests.fake_gateway import FakeGateway
from tests.provider_gateways import ACCOUNT_SID, TOKENS

KINDS = ["json", "spryng", "cm", "twilio"]
REFERENCE = "8c0e7a52-1b7d-4f0e-a3c4-2d9e6f1b0a11"


def documented(kind: str) -> tuple[dict[str, str], dict[str, Any]]:
    """(headers, fields) of a send as the provider's documentation shows one."""
    if kind == "json":
        return ({"Authorization": f"Bearer {TOKENS[kind]}", "Content-Type": "application/json"},
                {"to": "+31612345678", "from": "Gemeente", "body": "Hallo", "reference": REFERENCE,
                 "callback_url": "https://notify.example.nl/providers/http-gateway/delivery-receipts"})
    if kind == "spryng":
        return ({"Authorization": f"Bearer {TOKENS[kind]}", "Content-Type": "application/json",
                 "Accept": "application/json"},
                {"encoding": "auto", "body": "Hallo", "route": "business", "originator": "Gemeente",
                 "recipients": ["31612345678"], "reference": REFERENCE})
    if kind == "cm":
        return ({"X-CM-PRODUCTTOKEN": TOKENS[kind], "Content-Type": "application/json", "Accept": "application/json"},
                {"messages": {"msg": [{"from": "Gemeente", "to": [{"number": "0031612345678"}],
                                       "body": {"type": "auto", "content": "Hallo"}, "reference": REFERENCE}]}})
    basic = base64.b64encode(f"{ACCOUNT_SID}:{TOKENS[kind]}".encode()).decode()
    return ({"Authorization": f"Basic {basic}", "Content-Type": "application/x-www-form-urlencoded"},
            {"To": "+31612345678", "From": "Gemeente", "Body": "Hallo",
             "StatusCallback": f"https://notify.example.nl/providers/twilio-gw/status-reports?reference={REFERENCE}"})


def encoded(headers: dict[str, str], fields: dict[str, Any]) -> bytes:
    form = headers.get("Content-Type") == "application/x-www-form-urlencoded"
    return (urlencode(fields) if form else json.dumps(fields)).encode()


@pytest.fixture(params=KINDS)
def fake(request) -> Iterator[tuple[str, FakeGateway]]:
    with FakeGateway(token=TOKENS[request.param], dialect=request.param, account_sid=ACCOUNT_SID) as running:
        yield request.param, running


def post(fake: FakeGateway, headers: dict[str, str], body: bytes, *, path: str | None = None,
         method: str = "POST") -> requests.Response:
    url = fake.url + (path if path is not None else fake.dialect.path)
    return requests.request(method, url, data=body, headers=headers, timeout=5)


def test_a_send_as_documented_is_taken(fake):
    kind, running = fake
    headers, fields = documented(kind)
    answer = post(running, headers, encoded(headers, fields))
    assert answer.status_code == {"json": 201, "spryng": 200, "cm": 200, "twilio": 201}[kind]
    [message] = running.wait_for_messages(1)
    assert message.reference == REFERENCE and message.payload == fields


NOT_FOUND = {
    "json": {"error": "Not found"},
    "spryng": {"message": "Not Found"},
    "cm": {"details": "Not found", "errorCode": 999, "messages": []},
    "twilio": {"code": 20404, "message": "The requested resource {path} was not found",
               "more_info": "https://www.twilio.com/docs/errors/20404", "status": 404},
}


@pytest.mark.parametrize("wrong", ["/message", "/v1/message", "/messages/extra"])
def test_a_wrong_path_is_not_found(fake, wrong):
    kind, running = fake
    headers, fields = documented(kind)
    answer = post(running, headers, encoded(headers, fields), path=wrong)
    expected = {k: v.format(path=wrong) if isinstance(v, str) else v for k, v in NOT_FOUND[kind].items()}
    assert (answer.status_code, answer.json()) == (404, expected)
    assert running.messages == [] and running.attempts == 0


def test_another_method_is_not_allowed(fake):
    kind, running = fake
    headers, fields = documented(kind)
    for method in ("GET", "PUT", "DELETE"):
        answer = post(running, headers, encoded(headers, fields), method=method)
        assert answer.status_code == 405, method
    assert running.messages == []


UNAUTHENTICATED = {
    "json": (401, {"error": "Unauthorized"}),
    "spryng": (401, {"message": "Unauthenticated."}),
    "cm": (400, {"details": "No account found for the given authentication", "errorCode": 101, "messages": []}),
    "twilio": (401, {"code": 20003, "message": "Authenticate", "more_info": "https://www.twilio.com/docs/errors/20003",
                     "status": 401}),
}
AUTH_HEADER = {"json": "Authorization", "spryng": "Authorization", "cm": "X-CM-PRODUCTTOKEN", "twilio": "Authorization"}


@pytest.mark.parametrize("credential", ["missing", "wrong"])
def test_a_send_without_the_provider_s_authentication_is_refused(fake, credential):
    kind, running = fake
    headers, fields = documented(kind)
    header = AUTH_HEADER[kind]
    if credential == "missing":
        del headers[header]
    else:
        headers[header] = headers[header][:-2] + "xx"
    answer = post(running, headers, encoded(headers, fields))
    assert (answer.status_code, answer.json()) == UNAUTHENTICATED[kind]
    assert running.messages == []


def test_cm_takes_the_product_token_in_the_body_too():
    """CM documents both: the header (recommended) and messages.authentication in the body."""
    with FakeGateway(token=TOKENS["cm"], dialect="cm") as running:
        headers, fields = documented("cm")
        del headers["X-CM-PRODUCTTOKEN"]
        fields["messages"]["authentication"] = {"productToken": TOKENS["cm"]}
        assert post(running, headers, encoded(headers, fields)).status_code == 200
        running.wait_for_messages(1)


WRONG_CONTENT_TYPE = {
    "json": (415, {"error": "Content-Type must be application/json", "field": None}),
    "spryng": (422, {"message": "The given data was invalid.", "errors": {
        field: [f"The {field} field is required."] for field in ("encoding", "body", "route", "originator",
                                                                 "recipients")}}),
    "cm": (400, {"details": "Malformed request", "errorCode": 202, "messages": []}),
    "twilio": (400, {"code": 21604, "message": "A 'To' phone number is required.",
                     "more_info": "https://www.twilio.com/docs/errors/21604", "status": 400}),
}


def test_a_body_of_another_content_type_is_refused(fake):
    """The right fields in the wrong encoding: a form to the JSON APIs, JSON to Twilio's form API."""
    kind, running = fake
    headers, fields = documented(kind)
    if kind == "twilio":
        body = json.dumps(fields).encode()
        headers["Content-Type"] = "application/json"
    else:
        body = urlencode({k: json.dumps(v) if not isinstance(v, str) else v for k, v in fields.items()}).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    answer = post(running, headers, body)
    assert (answer.status_code, answer.json()) == WRONG_CONTENT_TYPE[kind]
    assert running.messages == []


def without(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The documented fields with the message's text taken out."""
    if kind == "cm":
        del fields["messages"]["msg"][0]["body"]
    else:
        del fields[{"json": "body", "spryng": "body", "twilio": "Body"}[kind]]
    return fields


MISSING_FIELD = {
    "json": (400, {"error": "body is required", "field": "body"}),
    "spryng": (422, {"message": "The given data was invalid.", "errors": {"body": ["The body field is required."]}}),
    "cm": (400, {"details": "Created 0 message(s)", "errorCode": 201, "messages": [
        {"to": None, "status": "Rejected", "reference": REFERENCE, "parts": 0,
         "messageDetails": "A body without content was found", "messageErrorCode": 304}]}),
    "twilio": (400, {"code": 21602, "message": "Message body is required.",
                     "more_info": "https://www.twilio.com/docs/errors/21602", "status": 400}),
}


def test_a_send_without_a_required_field_is_refused(fake):
    kind, running = fake
    headers, fields = documented(kind)
    answer = post(running, headers, encoded(headers, without(kind, fields)))
    assert (answer.status_code, answer.json()) == MISSING_FIELD[kind]
    assert running.messages == []


@pytest.mark.parametrize("kind, change, field", [
    ("spryng", {"recipients": ["+31612345678"]}, "recipients.0"),  # the number's digits, no "+"
    ("spryng", {"originator": "Gemeente Utrecht"}, "originator"),  # 11 characters at most
    ("spryng", {"encoding": "gsm"}, "encoding"),
    ("twilio", {"To": "0612345678"}, None),  # E.164 only
])
def test_a_field_in_a_form_the_provider_refuses(kind, change, field):
    with FakeGateway(token=TOKENS[kind], dialect=kind, account_sid=ACCOUNT_SID) as running:
        headers, fields = documented(kind)
        answer = post(running, headers, encoded(headers, {**fields, **change}))
        if kind == "spryng":
            assert answer.status_code == 422 and list(answer.json()["errors"]) == [field]
        else:
            assert answer.status_code == 400 and answer.json()["code"] == 21211
        assert running.messages == []
