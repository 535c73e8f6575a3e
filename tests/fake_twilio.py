"""Twilio's Messages API as the FakeGateway plays it, written from Twilio's documentation, not from our
client.

Sending: https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource
(POST /2010-04-01/Accounts/{AccountSid}/Messages.json, HTTP Basic auth with the Account SID and auth
token, form-encoded parameters: To, a Body, From or MessagingServiceSid, StatusCallback; 201 with the
Message resource, status "queued", or "accepted" through a Messaging Service) and
https://www.twilio.com/docs/usage/twilios-response (errors {"code", "message", "more_info", "status"}),
with the codes of https://www.twilio.com/docs/api/errors: 20003 authentication, 20004 method not
allowed, 20404 not found, 21211 invalid To, 21602 no Body, 21603 no From or MessagingServiceSid, 21604
no To, 20429 too many requests.

Status callbacks: https://www.twilio.com/docs/messaging/guides/outbound-message-status-in-status-callbacks
(a form POST to the message's StatusCallback: MessageSid, MessageStatus, ErrorCode...); received texts:
https://www.twilio.com/docs/messaging/guides/webhook-request; both signed with X-Twilio-Signature as
https://www.twilio.com/docs/usage/webhooks/webhooks-security describes.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

import requests

from tests.fake_dialect import Answer, Checked, Dialect, filled, media_type

_E164 = re.compile(r"^\+[1-9][0-9]{6,14}$")


def error(status: int, code: int, message: str) -> Answer:
    return status, {"code": code, "message": message, "more_info": f"https://www.twilio.com/docs/errors/{code}",
                    "status": status}


def _form(headers: Mapping[str, str], raw: bytes) -> dict[str, str]:
    """The parameters Twilio reads: a form's; a body of another type gives none."""
    if media_type(headers) != "application/x-www-form-urlencoded":
        return {}
    try:
        return dict(parse_qsl(raw.decode(), keep_blank_values=True, strict_parsing=True))
    except (ValueError, UnicodeDecodeError):
        return {}


class Twilio(Dialect):
    name = "twilio"
    # Our receipt words -> (MessageStatus, ErrorCode); any other word is posted as the status itself.
    STATES = {"undeliverable": ("undelivered", "30005"), "failed": ("undelivered", "30003"),
              "provider-failure": ("failed", "30001")}

    @property
    def path(self) -> str:  # type: ignore[override]
        return f"/2010-04-01/Accounts/{self.account_sid}/Messages.json"

    def check(self, headers: Mapping[str, str], raw: bytes) -> Checked:
        expected = base64.b64encode(f"{self.account_sid}:{self.token}".encode()).decode()
        if headers.get("Authorization") != f"Basic {expected}":
            return None, error(401, 20003, "Authenticate")
        form = _form(headers, raw)
        if not filled(form.get("To")):
            return None, error(400, 21604, "A 'To' phone number is required.")
        if not _E164.match(form["To"]):
            return None, error(400, 21211, f"Invalid 'To' Phone Number: {form['To']}")
        if not filled(form.get("From")) and not filled(form.get("MessagingServiceSid")):
            return None, error(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required to send a message.")
        if not filled(form.get("Body")):
            return None, error(400, 21602, "Message body is required.")
        return form, None

    def not_found(self, path: str) -> Answer:
        return error(404, 20404, f"The requested resource {path} was not found")

    def method_not_allowed(self, method: str) -> Answer:
        return error(405, 20004, "Method not allowed")

    def reference(self, payload: dict[str, Any]) -> str | None:
        query = payload.get("StatusCallback", "").partition("?")[2]
        return dict(parse_qsl(query)).get("reference")

    def message_id(self, count: int, payload: dict[str, Any]) -> str:
        return f"SM{count:032x}"

    def accepted(self, message_id: str, payload: dict[str, Any]) -> Answer:
        through_service = bool(payload.get("MessagingServiceSid"))
        return 201, {"sid": message_id, "account_sid": self.account_sid, "to": payload.get("To"),
                     "from": None if through_service else payload.get("From"),
                     "messaging_service_sid": payload.get("MessagingServiceSid"), "body": payload.get("Body"),
                     "status": "accepted" if through_service else "queued", "num_segments": "1",
                     "direction": "outbound-api", "api_version": "2010-04-01", "error_code": None,
                     "error_message": None, "uri": f"{self.path[:-5]}/{message_id}.json"}

    def refusal(self, status: int) -> Answer:
        if status in (400, 422):
            return error(400, 21211, "The 'To' number is not a valid phone number.")
        if status == 429:
            return error(429, 20429, "Too Many Requests")
        return error(status, 20500, "Internal Server Error")

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

    def post_receipt(self, url: str, webhook_token: str, message_id: str, reference: str | None,
                     state: str) -> requests.Response:
        status, error_code = self.STATES.get(state, (state, ""))
        form = {"MessageSid": message_id, "SmsSid": message_id, "AccountSid": self.account_sid or "",
                "MessageStatus": status, "SmsStatus": status, "To": "+31612345678", "From": "Notify",
                "ApiVersion": "2010-04-01", **({"ErrorCode": error_code} if error_code else {})}
        return self._post_signed(url, form)

    def post_inbound(self, url: str, webhook_token: str, to: str, sender: str, text: str,
                     message_id: str) -> requests.Response:
        return self._post_signed(url, {"MessageSid": message_id, "SmsSid": message_id, "AccountSid":
                                       self.account_sid or "", "From": sender, "To": to, "Body": text,
                                       "NumMedia": "0", "NumSegments": "1", "ApiVersion": "2010-04-01"})
