"""Spryng's REST API as the FakeGateway plays it, written from Spryng's documentation and its own
libraries, not from our client.

Sending: https://docs.spryngsms.com/ (REST API v1: Bearer API key, JSON; statuses 200, 401, 404, 405,
422 "missing or invalid parameters", 429), and the create call of its official libraries,
https://github.com/spryng/rest-api-php (src/Spryng/SpryngRestApi/Resources/MessageClient.php: base
https://rest.spryngsms.com/v1, POST /messages, the fields encoding, body, route, originator,
recipients, reference, scheduled_at; body, originator and recipients asserted) and
https://github.com/spryng/rest-api-node (src/interfaces/message.ts: encoding plain|unicode|auto;
encoding, body, route, originator and recipients required). A refusal has the {"message", "errors":
{"<field>": [...]}} shape of a 422.

Reports: Spryng publishes no format. They come to the URL set in its portal, as NotifyNL takes them
in production (https://github.com/Worth-NL/notifynl-api, app/notifications/notifications_sms_callback.py:
GET with STATUS, REASONCODE and REFERENCE; app/clients/sms/spryng.py: STATUS 10 delivered, 20 not
delivered with REASONCODE 20, 21, 22, 31 or 32), with Spryng's ID beside them. Received texts: no
published format either; posted as a form of ID, ORIGINATOR, RECIPIENT and BODY.
"""
from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from typing import Any

import requests

from tests.fake_dialect import Answer, Checked, Dialect, filled, json_object, media_type

ENCODINGS = ("plain", "unicode", "auto")
_ALPHANUMERIC_ORIGINATOR = re.compile(r"^[A-Za-z0-9 ]{1,11}$")
_NUMBER = re.compile(r"^[0-9]{6,15}$")  # international form, no "+" or "00"
INVALID = "The given data was invalid."


def _problems(payload: dict[str, Any]) -> dict[str, list[str]]:
    """Each field Spryng would refuse, with its reason, in the order of its documentation."""
    problems: dict[str, list[str]] = {}
    for field in ("encoding", "body", "route", "originator", "recipients"):
        if payload.get(field) in (None, "", []):
            problems[field] = [f"The {field} field is required."]
    if "encoding" not in problems and payload["encoding"] not in ENCODINGS:
        problems["encoding"] = ["The selected encoding is invalid."]
    if "body" not in problems and not filled(payload["body"]):
        problems["body"] = ["The body must be a string."]
    originator = payload.get("originator")
    if "originator" not in problems and not (isinstance(originator, str) and (
            _ALPHANUMERIC_ORIGINATOR.match(originator) or _NUMBER.match(originator))):
        problems["originator"] = ["The originator format is invalid."]
    recipients = payload.get("recipients")
    if "recipients" not in problems:
        if not isinstance(recipients, list):
            problems["recipients"] = ["The recipients must be an array."]
        for index, number in enumerate(recipients if isinstance(recipients, list) else []):
            if not (isinstance(number, str) and _NUMBER.match(number)):
                problems[f"recipients.{index}"] = [f"The recipients.{index} format is invalid."]
    if payload.get("reference") is not None and not isinstance(payload["reference"], str):
        problems["reference"] = ["The reference must be a string."]
    return problems


class Spryng(Dialect):
    name = "spryng"
    path = "/v1/messages"
    base_path = "/v1"
    # Our receipt words -> (STATUS, REASONCODE); any other word is posted as the STATUS itself.
    STATES = {"delivered": ("10", "0"), "undeliverable": ("20", "21"), "failed": ("20", "20"),
              "provider-failure": ("20", "32")}

    def check(self, headers: Mapping[str, str], raw: bytes) -> Checked:
        if headers.get("Authorization") != f"Bearer {self.token}":
            return None, (401, {"message": "Unauthenticated."})
        # A body that is not JSON gives no fields at all, so each required one is missing.
        payload = (json_object(raw) if media_type(headers) == "application/json" else None) or {}
        problems = _problems(payload)
        if problems:
            return None, (422, {"message": INVALID, "errors": problems})
        return payload, None

    def not_found(self, path: str) -> Answer:
        return 404, {"message": "Not Found"}

    def method_not_allowed(self, method: str) -> Answer:
        return 405, {"message": f"The {method} method is not supported for this route."}

    def message_id(self, count: int, payload: dict[str, Any]) -> str:
        return str(uuid.UUID(int=count))

    def accepted(self, message_id: str, payload: dict[str, Any]) -> Answer:
        return 200, {"id": message_id, "encoding": payload.get("encoding"), "originator": payload.get("originator"),
                     "body": payload.get("body"), "reference": payload.get("reference"), "credits": 1.0,
                     "scheduled_at": None, "canceled_at": None, "created_at": "2026-11-26T10:00:00.000000Z",
                     "updated_at": "2026-11-26T10:00:00.000000Z",
                     "links": {"self": f"https://rest.spryngsms.com/v1/messages/{message_id}"}}

    def refusal(self, status: int) -> Answer:
        if status in (400, 422):
            return 422, {"message": INVALID, "errors": {"recipients.0": ["The recipients.0 format is invalid."]}}
        if status == 429:
            return 429, {"message": "Too Many Attempts."}
        return status, {"message": "Server Error"}

    def receipt_url(self, payload: dict[str, Any], report_url: str | None) -> str:
        assert report_url, "a Spryng fake posts reports to the URL set in its portal: give report_url"
        return report_url

    def post_receipt(self, url: str, webhook_token: str, message_id: str, reference: str | None,
                     state: str) -> requests.Response:
        status, reason = self.STATES.get(state, (state, "0"))
        return requests.get(url, params={"ID": message_id, "REFERENCE": reference or "", "STATUS": status,
                                         "REASONCODE": reason}, timeout=5)

    def post_inbound(self, url: str, webhook_token: str, to: str, sender: str, text: str,
                     message_id: str) -> requests.Response:
        return requests.post(url, data={"ID": message_id, "ORIGINATOR": sender, "RECIPIENT": to, "BODY": text},
                             timeout=5)
