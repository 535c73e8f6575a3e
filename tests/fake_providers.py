"""How each provider the FakeGateway can play speaks, written from the providers' public documentation
(pipeline/providers/sms/spryng.py, cm.py and twilio.py quote the shapes): the path it takes texts on,
its authentication, its answers and refusals, and how it posts delivery reports and received texts.

    FakeGateway(token=..., dialect="twilio", account_sid="AC...")   # tests/fake_gateway.py

Receipt states are given in our words ("delivered", "undeliverable", "failed", "accepted"); each
dialect posts them in its own (Spryng STATUS 10/20, CM status code 0-3, Twilio MessageStatus), and
passes any other word through as it is (a status the service does not know).
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode

import requests

Answer = tuple[int, dict[str, Any]]


class Dialect:
    name = "json"
    path = "/messages"

    def __init__(self, token: str | None, account_sid: str | None = None) -> None:
        self.token, self.account_sid = token, account_sid

    def parse(self, raw: bytes) -> dict[str, Any] | None:
        try:
            payload = json.loads(raw)
        except ValueError:
            return None
        return payload if isinstance(payload, dict) else None

    def authorised(self, headers: Mapping[str, str], payload: dict[str, Any] | None) -> bool:
        return self.token is None or headers.get("Authorization") == f"Bearer {self.token}"

    def reference(self, payload: dict[str, Any]) -> str | None:
        return payload.get("reference")

    def message_id(self, count: int, payload: dict[str, Any]) -> str:
        return f"gw-{count}"

    def accepted(self, message_id: str, payload: dict[str, Any]) -> Answer:
        return 201, {"id": message_id, "status": "accepted"}

    def unauthorised(self) -> Answer:
        return 401, {"error": "Unauthorized"}

    def malformed(self) -> Answer:
        return 400, {"error": "Body is not JSON", "field": None}

    def refusal(self, status: int) -> Answer:
        return status, ({"error": "Invalid recipient", "field": "to"} if status in (400, 422) else {"error": "Failure"})

    def receipt_url(self, payload: dict[str, Any], report_url: str | None) -> str:
        return payload["callback_url"]

    def post_receipt(self, url: str, webhook_token: str, message_id: str, reference: str | None,
                     state: str) -> requests.Response:
        receipt = {"id": message_id, "reference": reference, "status": state,
                   "timestamp": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")}
        return requests.post(url, json=receipt, headers={"Authorization": f"Bearer {webhook_token}"}, timeout=5)

    def post_inbound(self, url: str, webhook_token: str, to: str, sender: str, text: str,
                     message_id: str) -> requests.Response:
        return requests.post(url, json={"to": to, "from": sender, "message": text, "id": message_id},
                             headers={"Authorization": f"Bearer {webhook_token}"}, timeout=5)


class Spryng(Dialect):
    """POST /message with a bearer API key; reports as a GET with ID, REFERENCE, STATUS, REASONCODE."""
    name = "spryng"
    path = "/message"
    STATES = {"delivered": ("10", "0"), "undeliverable": ("20", "21"), "failed": ("20", "20")}

    def message_id(self, count: int, payload: dict[str, Any]) -> str:
        return str(uuid.UUID(int=count))

    def accepted(self, message_id: str, payload: dict[str, Any]) -> Answer:
        return 200, {"id": message_id, "encoding": payload.get("encoding"), "originator": payload.get("originator"),
                     "body": payload.get("body"), "reference": payload.get("reference"), "credits": 1.0,
                     "scheduled_at": None, "canceled_at": None, "created_at": "2026-11-26T10:00:00.000000Z",
                     "updated_at": "2026-11-26T10:00:00.000000Z", "links": {}}

    def unauthorised(self) -> Answer:
        return 401, {"message": "Unauthenticated."}

    def malformed(self) -> Answer:
        return 422, {"message": "The given data was invalid.", "errors": {"body": ["The body field is required."]}}

    def refusal(self, status: int) -> Answer:
        if status in (400, 422):
            return 422, {"message": "The given data was invalid.",
                         "errors": {"recipients.0": ["The recipients.0 format is invalid."]}}
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


class Cm(Dialect):
    """POST /v1.0/message with the product token in the body; the reference is the message's name."""
    name = "cm"
    path = "/v1.0/message"
    STATES = {"accepted": "0", "rejected": "1", "delivered": "2", "failed": "3", "undeliverable": "1"}

    def authorised(self, headers: Mapping[str, str], payload: dict[str, Any] | None) -> bool:
        messages = (payload or {}).get("messages") or {}
        return self.token is None or (messages.get("authentication") or {}).get("producttoken") == self.token

    def _msg(self, payload: dict[str, Any]) -> dict[str, Any]:
        return ((payload.get("messages") or {}).get("msg") or [{}])[0]

    def reference(self, payload: dict[str, Any]) -> str | None:
        return self._msg(payload).get("reference")

    def message_id(self, count: int, payload: dict[str, Any]) -> str:
        return str(self.reference(payload))

    def accepted(self, message_id: str, payload: dict[str, Any]) -> Answer:
        msg = self._msg(payload)
        return 200, {"details": "Created 1 message(s)", "errorCode": 0, "messages": [
            {"to": msg["to"][0]["number"], "status": "Accepted", "reference": msg.get("reference"), "parts": 1,
             "messageDetails": None, "messageErrorCode": 0}]}

    def unauthorised(self) -> Answer:
        return 400, {"details": "No account found for the given authentication", "errorCode": 101, "messages": []}

    def malformed(self) -> Answer:
        return 400, {"details": "Malformed request", "errorCode": 202, "messages": []}

    def refusal(self, status: int) -> Answer:
        if status in (400, 422):
            return 400, {"details": "Some messages were not sent", "errorCode": 201, "messages": [
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


class Twilio(Dialect):
    """POST /2010-04-01/Accounts/{sid}/Messages.json, form-encoded, Basic auth; posts to the
    StatusCallback given with each message, signed with X-Twilio-Signature."""
    name = "twilio"

    @property
    def path(self) -> str:  # type: ignore[override]
        return f"/2010-04-01/Accounts/{self.account_sid}/Messages.json"

    def parse(self, raw: bytes) -> dict[str, Any] | None:
        try:
            return dict(parse_qsl(raw.decode(), keep_blank_values=True, strict_parsing=True))
        except (ValueError, UnicodeDecodeError):
            return None

    def authorised(self, headers: Mapping[str, str], payload: dict[str, Any] | None) -> bool:
        expected = base64.b64encode(f"{self.account_sid}:{self.token}".encode()).decode()
        return headers.get("Authorization") == f"Basic {expected}"

    def reference(self, payload: dict[str, Any]) -> str | None:
        query = payload.get("StatusCallback", "").partition("?")[2]
        return dict(parse_qsl(query)).get("reference")

    def message_id(self, count: int, payload: dict[str, Any]) -> str:
        return f"SM{count:032x}"

    def accepted(self, message_id: str, payload: dict[str, Any]) -> Answer:
        return 201, {"sid": message_id, "account_sid": self.account_sid, "to": payload.get("To"),
                     "from": payload.get("From"), "messaging_service_sid": payload.get("MessagingServiceSid"),
                     "body": payload.get("Body"), "status": "queued", "num_segments": "1", "direction":
                     "outbound-api", "api_version": "2010-04-01", "error_code": None, "error_message": None}

    def unauthorised(self) -> Answer:
        return 401, {"code": 20003, "message": "Authenticate", "more_info": "https://www.twilio.com/docs/errors/20003",
                     "status": 401}

    def malformed(self) -> Answer:
        return 400, {"code": 21602, "message": "Message body is required.", "status": 400}

    def refusal(self, status: int) -> Answer:
        if status in (400, 422):
            return 400, {"code": 21211, "message": "The 'To' number is not a valid phone number.", "status": 400}
        if status == 429:
            return 429, {"code": 20429, "message": "Too Many Requests", "status": 429}
        return status, {"code": 20500, "message": "Internal Server Error", "status": status}

    def receipt_url(self, payload: dict[str, Any], report_url: str | None) -> str:
        return payload["StatusCallback"]

    def signature(self, url: str, form: Mapping[str, str]) -> str:
        """Twilio's documented scheme: HMAC-SHA1 with the auth token over the full URL followed by
        each POST parameter's name and value, sorted by name; base64."""
        signed = url + "".join(f"{key}{form[key]}" for key in sorted(form))
        return base64.b64encode(hmac.new((self.token or "").encode(), signed.encode(), hashlib.sha1).digest()).decode()

    def _post_signed(self, url: str, form: dict[str, str]) -> requests.Response:
        return requests.post(url, data=urlencode(form), timeout=5, headers={
            "Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": self.signature(url, form)})

    STATES = {"undeliverable": ("undelivered", "30005"), "failed": ("undelivered", "30003")}

    def post_receipt(self, url: str, webhook_token: str, message_id: str, reference: str | None,
                     state: str) -> requests.Response:
        status, error = self.STATES.get(state, (state, ""))
        form = {"MessageSid": message_id, "SmsSid": message_id, "AccountSid": self.account_sid or "",
                "MessageStatus": status, "SmsStatus": status, "To": "+31612345678", "From": "Notify",
                "ApiVersion": "2010-04-01", **({"ErrorCode": error} if error else {})}
        return self._post_signed(url, form)

    def post_inbound(self, url: str, webhook_token: str, to: str, sender: str, text: str,
                     message_id: str) -> requests.Response:
        return self._post_signed(url, {"MessageSid": message_id, "SmsSid": message_id, "AccountSid":
                                       self.account_sid or "", "From": sender, "To": to, "Body": text,
                                       "NumMedia": "0", "NumSegments": "1", "ApiVersion": "2010-04-01"})


DIALECTS: dict[str, type[Dialect]] = {d.name: d for d in (Dialect, Spryng, Cm, Twilio)}
