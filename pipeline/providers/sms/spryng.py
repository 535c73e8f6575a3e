"""Text messages through Spryng's REST API (v1), as its documentation and NotifyNL's client use it.

    POST {url}/message                          url: https://rest.spryngsms.com/v1
    Authorization: Bearer <API key>
    {"encoding": "plain" | "unicode", "body": "<text>", "route": "business", "originator": "<sender>",
     "recipients": ["31612345678"], "reference": "<our notification id>"}
The answer: 200 with the message object ({"id": "<Spryng's id>", ...}); 401 for a wrong key; 422
with {"message", "errors": {"<field>": [...]}} for a field it refuses.

Delivery reports come to the URL set in Spryng's portal, as query (GET) or form (POST) fields:
ID (Spryng's id), REFERENCE (ours), STATUS (10 delivered, 20 not delivered) and REASONCODE. Spryng
signs nothing, so that URL carries a token of ours (docs/providers-sms.md).
"""
from __future__ import annotations

import json
import logging
from typing import Any

from pipeline.providers.errors import (
    PERMANENT_FAILURE,
    TECHNICAL_FAILURE,
    FinalProviderError,
    RetryableProviderError,
    SmsMessageData,
)
from pipeline.providers.sms import sender
from pipeline.providers.sms.incoming import InboundText, Report, text
from pipeline.providers.sms.transport import Response, Transport, detail, is_busy, json_answer, unparsable

log = logging.getLogger(__name__)
DEFAULT_URL = "https://rest.spryngsms.com/v1"
ROUTE = "business"  # Spryng's default business route
# STATUS -> our receipt state (receipts.py). REASONCODEs under 20 (20 unreachable, 21 number
# incorrect, 22 delivery failure, 31 blacklisted, 32 originator not registered) are logged.
STATES = {"10": "delivered", "20": "undeliverable"}


class SpryngGateway:
    deduplicates = False  # Spryng does not document dropping a repeated reference

    def __init__(self, url: str, token: str, *, timeout: float = 10.0, name: str = "spryng") -> None:
        self.name = name
        self.url = url.rstrip("/")
        self._headers = {"Content-Type": "application/json", "Accept": "application/json",
                         "Authorization": f"Bearer {token}"}
        self._transport = Transport(self.url, timeout)

    def send_sms(self, message: SmsMessageData) -> str:
        originator = sender.checked(message.sender, "Spryng")
        payload = {
            "encoding": "plain" if sender.is_gsm7(message.body) else "unicode",
            "body": message.body,
            "route": ROUTE,
            "originator": sender.number_digits(originator) if sender.is_number(originator) else originator,
            "recipients": [sender.number_digits(message.to)],
            "reference": message.notification_id,
        }
        response = self._transport.post(f"{self.url}/message", json.dumps(payload).encode(), self._headers,
                                        what="Spryng")
        if 200 <= response.status < 300:
            answer = json_answer(response)
            spryng_id = answer.get("id") if isinstance(answer, dict) else None
            if not isinstance(spryng_id, (str, int)) or spryng_id == "":
                raise unparsable("Spryng", response)
            return str(spryng_id)
        raise _sort_refusal(response)


def _sort_refusal(response: Response) -> FinalProviderError | RetryableProviderError:
    status = response.status
    if is_busy(status):
        return RetryableProviderError(f"Spryng answered {status}: {detail(response)}")
    if status == 422:
        answer = json_answer(response)
        errors = answer.get("errors") if isinstance(answer, dict) else None
        fields = list(errors) if isinstance(errors, dict) else []
        if fields and all(field.startswith("recipients") for field in fields):
            return FinalProviderError(PERMANENT_FAILURE, f"Spryng refused the recipient: {detail(response)}")
    # 401 (our key), 404 (our URL), 422 about another field (originator, body): our request is wrong.
    return FinalProviderError(TECHNICAL_FAILURE, f"Spryng answered {status}: {detail(response)}")


def report(fields: Any) -> Report:
    """A delivery report from its query or form fields; Unreadable without ID and STATUS."""
    status = text(fields, "STATUS")
    reason = fields.get("REASONCODE")
    if reason not in (None, "", "0"):
        log.info("Spryng report for %s: status %s, reason code %s", fields.get("ID"), status, reason)
    return Report(text(fields, "ID"), fields.get("REFERENCE") or None, status, STATES.get(status.strip()))


def inbound(fields: Any) -> InboundText:
    """A received text, in the field names of Spryng's reports and messages: ID, ORIGINATOR (the
    phone that sent it), RECIPIENT (our number) and BODY."""
    return InboundText(to=text(fields, "RECIPIENT"), sender=text(fields, "ORIGINATOR"),
                       message=str(fields.get("BODY") or ""), provider_id=fields.get("ID") or None)
