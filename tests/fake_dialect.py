"""What every provider the FakeGateway plays has in common, and our own JSON gateway protocol, the
dialect the others change.

The JSON gateway protocol is ours (docs/providers-sms.md#the-json-gateway-protocol,
pipeline/infrastructure/providers/sms/http_gateway.py), and this fake keeps to it as strictly as the provider fakes
keep to their providers' documentation:
    POST {url}/messages                          404 on any other path, 405 for another method
    Authorization: Bearer <token>                when the gateway has a token; 401 without it
    Content-Type: application/json               415 for another type
    {"to", "from", "body", "reference", "callback_url"}, each a non-empty string
                                                 400 {"error": "<field> is required", "field": "<field>"}
    -> 201 {"id": "gw-<n>", "status": "accepted"}
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import requests

Answer = tuple[int, dict[str, Any]]
Checked = tuple[dict[str, Any] | None, Answer | None]  # (the request's fields, or the answer refusing it)


def media_type(headers: Mapping[str, str]) -> str:
    """The Content-Type's media type, without its parameters (charset)."""
    return (headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()


def json_object(raw: bytes) -> dict[str, Any] | None:
    try:
        payload = json.loads(raw)
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None


def filled(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


class Dialect:
    name = "json"
    path = "/messages"  # where it takes texts, below its base address
    base_path = ""  # the base address's own path: what an operator configures as the gateway's url
    REQUIRED = ("to", "from", "body", "reference", "callback_url")

    def __init__(self, token: str | None, account_sid: str | None = None) -> None:
        self.token, self.account_sid = token, account_sid

    def check(self, headers: Mapping[str, str], raw: bytes) -> Checked:
        """The fields of a POST to `path`, or the answer the provider gives a request it refuses."""
        if self.token is not None and headers.get("Authorization") != f"Bearer {self.token}":
            return None, (401, {"error": "Unauthorized"})
        if media_type(headers) != "application/json":
            return None, (415, {"error": "Content-Type must be application/json", "field": None})
        payload = json_object(raw)
        if payload is None:
            return None, (400, {"error": "Body is not a JSON object", "field": None})
        missing = next((field for field in self.REQUIRED if not filled(payload.get(field))), None)
        if missing:
            return None, (400, {"error": f"{missing} is required", "field": missing})
        return payload, None

    def not_found(self, path: str) -> Answer:
        return 404, {"error": "Not found"}

    def method_not_allowed(self, method: str) -> Answer:
        return 405, {"error": "Method not allowed"}

    def reference(self, payload: dict[str, Any]) -> str | None:
        return payload.get("reference")

    def message_id(self, count: int, payload: dict[str, Any]) -> str:
        return f"gw-{count}"

    def accepted(self, message_id: str, payload: dict[str, Any]) -> Answer:
        return 201, {"id": message_id, "status": "accepted"}

    def refusal(self, status: int) -> Answer:
        """The answer fail_next gives: for 400 and 422, a refusal of the recipient."""
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
