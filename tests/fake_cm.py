"""CM.com's Business Messaging API (JSON) as the FakeGateway plays it, written from CM's documentation,
not from our client.

Sending: https://developers.cm.com/messaging/docs/integration (POST https://gw.messaging.cm.com/v1.0/message,
a JSON body; the product token in the X-CM-PRODUCTTOKEN header, recommended, or in the body's
messages.authentication) and https://developers.cm.com/messaging/docs/responses-errors-json (the
answer {"details", "errorCode", "messages": [{"to", "status", "reference", "parts", "messageDetails",
"messageErrorCode"}]}; 400 when the whole request is refused, e.g. errorCode 101 "No account found for
the given authentication"; 400 with errorCode 201 when no message was created; per message 301 from,
302 to, 303 a number that is not one, 304 body). The error codes are those of CM's own SDK
(https://github.com/cmdotcom/text-sdk-python, cm_text/text_client_status_codes.py).

Reports: https://developers.cm.com/messaging/docs/incoming-status-report (JSON POST
{"messages": {"msg": {"received", "to", "reference", "status": {"code", "errorCode",
"errorDescription"}, "operator"}}}). Received texts: https://developers.cm.com/messaging/docs/incoming-messages
(JSON POST {"from": {"number", "name"}, "to": {"number"}, "message": {"text"}, "reference",
"groupings", "timeUtc", "channel"}).
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import requests

from tests.fake_dialect import Answer, Checked, Dialect, filled, json_object, media_type

_GSM = re.compile(r"^(00|\+)?[0-9]{6,15}$")


def _whole_request_refused(code: int, details: str) -> Answer:
    return 400, {"details": details, "errorCode": code, "messages": []}


def _message_problem(msg: Any) -> tuple[int, str] | None:
    """(messageErrorCode, messageDetails) for a msg CM would reject, or None."""
    if not isinstance(msg, dict):
        return 305, "A msg must be an object"
    if not filled(msg.get("from")):
        return 301, "No FROM field found in a MSG node."
    to = msg.get("to")
    if not isinstance(to, list) or not to or not all(isinstance(t, dict) and filled(t.get("number")) for t in to):
        return 302, "No phone numbers found. Message will not be sent."
    wrong = next((t["number"] for t in to if not _GSM.match(t["number"])), None)
    if wrong is not None:
        return 303, f"Gsm '{wrong}' is not a number."
    body = msg.get("body")
    if not isinstance(body, dict) or not filled(body.get("content")):
        return 304, "A body without content was found"
    return None


class Cm(Dialect):
    name = "cm"
    path = "/v1.0/message"
    # Our receipt words -> CM's status code; any other word is posted as the code itself.
    STATES = {"accepted": "0", "rejected": "1", "delivered": "2", "failed": "3", "undeliverable": "1"}

    def _authenticated(self, headers: Mapping[str, str], payload: dict[str, Any]) -> bool:
        authentication = (payload.get("messages") or {}).get("authentication")
        in_body = {str(k).lower(): v for k, v in authentication.items()} if isinstance(authentication, dict) else {}
        return self.token in (headers.get("X-CM-PRODUCTTOKEN"), in_body.get("producttoken"))

    def check(self, headers: Mapping[str, str], raw: bytes) -> Checked:
        payload = json_object(raw) if media_type(headers) == "application/json" else None
        if payload is None or not isinstance(payload.get("messages"), dict):
            return None, _whole_request_refused(202, "Malformed request")
        if not self._authenticated(headers, payload):
            return None, _whole_request_refused(101, "No account found for the given authentication")
        msgs = payload["messages"].get("msg")
        if not isinstance(msgs, list) or not msgs:
            return None, _whole_request_refused(203, "A MESSAGES node requires at least one MSG node")
        problems = [_message_problem(msg) for msg in msgs]
        if any(problems):
            return None, (400, {"details": "Created 0 message(s)", "errorCode": 201, "messages": [
                {"to": None, "status": "Rejected", "reference": msg.get("reference") if isinstance(msg, dict) else None,
                 "parts": 0, "messageDetails": problem[1], "messageErrorCode": problem[0]}
                for msg, problem in zip(msgs, problems, strict=True) if problem]})
        return payload, None

    def not_found(self, path: str) -> Answer:
        return 404, {"details": "Not found", "errorCode": 999, "messages": []}

    def method_not_allowed(self, method: str) -> Answer:
        return 405, {"details": f"{method} is not allowed: send with POST", "errorCode": 999, "messages": []}

    def _msg(self, payload: dict[str, Any]) -> dict[str, Any]:
        return payload["messages"]["msg"][0]

    def reference(self, payload: dict[str, Any]) -> str | None:
        return self._msg(payload).get("reference")

    def message_id(self, count: int, payload: dict[str, Any]) -> str:
        return str(self.reference(payload))

    def accepted(self, message_id: str, payload: dict[str, Any]) -> Answer:
        msg = self._msg(payload)
        return 200, {"details": "Created 1 message(s)", "errorCode": 0, "messages": [
            {"to": msg["to"][0]["number"], "status": "Accepted", "reference": msg.get("reference"), "parts": 1,
             "messageDetails": None, "messageErrorCode": 0}]}

    def refusal(self, status: int) -> Answer:
        if status in (400, 422):
            return 400, {"details": "Created 0 message(s)", "errorCode": 201, "messages": [
                {"to": "", "status": "Rejected", "reference": None, "parts": 0,
                 "messageDetails": "Gsm '0031' is not a number.", "messageErrorCode": 303}]}
        return status, {"details": "Internal error", "errorCode": 500, "messages": []}

    def receipt_url(self, payload: dict[str, Any], report_url: str | None) -> str:
        assert report_url, "a CM fake posts reports to the URL set in its Channels app: give report_url"
        return report_url

    def post_receipt(self, url: str, webhook_token: str, message_id: str, reference: str | None,
                     state: str) -> requests.Response:
        code = self.STATES.get(state, state)
        return requests.post(url, json={"messages": {"msg": {
            "received": "2026-11-26T10:00:00", "to": "0031612345678", "reference": reference,
            "status": {"code": code, "errorCode": "", "errorDescription": ""}, "operator": "20416"}}}, timeout=5)

    def post_inbound(self, url: str, webhook_token: str, to: str, sender: str, text: str,
                     message_id: str) -> requests.Response:
        return requests.post(url, json={"from": {"number": sender, "name": ""}, "to": {"number": to},
                                        "message": {"text": text}, "reference": None, "groupings": ["", "", ""],
                                        "timeUtc": "2026-11-26T10:00:00", "channel": "SMS"}, timeout=5)
