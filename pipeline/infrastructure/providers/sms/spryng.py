"""Text messages through Spryng's REST API (v1), as its documentation (https://docs.spryngsms.com/)
and its own PHP and Node libraries (github.com/spryng/rest-api-php, github.com/spryng/rest-api-node)
give it.

    POST {url}/messages                         url: https://rest.spryngsms.com/v1
    Authorization: Bearer <API key>
    Content-Type: application/json
    {"encoding": "plain" | "unicode", "body": "<text>", "route": "business", "originator": "<sender>",
     "recipients": ["31612345678"], "reference": "<our notification id>"}
The answer: 200 with the message object ({"id": "<Spryng's id>", "encoding", "originator", "body",
"reference", "credits", "scheduled_at", "canceled_at", "created_at", "updated_at", "links"}); 401 for a
wrong key; 422 with {"message", "errors": {"<field>": [...]}} for a field it refuses; 429 above its rate
limit. Spryng's id is the provider reference. A gateway URL stored in another form (the full
`.../v1/message(s)` address, or the host alone) is read as the base address (api_url).

Spryng publishes no format for its delivery reports or received texts. Reports are read as its
production integrations take them (NotifyNL, github.com/Worth-NL/notifynl-api): query (GET) or form
(POST) fields ID (Spryng's id), REFERENCE (ours), STATUS (10 delivered, 20 not delivered) and
REASONCODE, at the URL set in Spryng's portal. Spryng signs nothing, so that URL carries a token of
ours (docs/providers-sms.md).
"""
from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pipeline.infrastructure.providers.errors import (
    PERMANENT_FAILURE,
    TECHNICAL_FAILURE,
    FinalProviderError,
    RetryableProviderError,
    SmsMessageData,
)
from pipeline.infrastructure.providers.sms import sender
from pipeline.infrastructure.providers.sms.incoming import InboundText, Report, Unreadable, text
from pipeline.infrastructure.providers.sms.transport import (
    Response,
    Transport,
    detail,
    is_busy,
    json_answer,
    unparsable,
)

log = logging.getLogger(__name__)
DEFAULT_URL = "https://rest.spryngsms.com/v1"
API_VERSION_PATH = "/v1"
ROUTE = "business"  # Spryng's default business route
DELIVERED, NOT_DELIVERED = "10", "20"  # STATUS
# A STATUS 20's REASONCODE -> our receipt state (receipts.py): 20 the recipient's number is unreachable
# now (its phone off: a temporary failure); 32 the originator is not registered for the recipient's
# country (our sender, not the recipient: technical). 21 number incorrect, 22 delivery failure, 31
# blacklisted, and a code not given or not known: the recipient cannot be reached this way, as NotifyNL
# reads every STATUS 20.
REASONS = {"20": "unreachable", "32": "provider-failure"}


class SpryngGateway:
    deduplicates = False  # Spryng does not document dropping a repeated reference

    def __init__(self, url: str, token: str, *, timeout: float = 10.0, name: str = "spryng") -> None:
        self.name = name
        self.url = api_url(url)
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
        response = self._transport.post(f"{self.url}/messages", json.dumps(payload).encode(), self._headers,
                                        what="Spryng")
        if 200 <= response.status < 300:
            answer = json_answer(response)
            spryng_id = answer.get("id") if isinstance(answer, dict) else None
            if not isinstance(spryng_id, (str, int)) or spryng_id == "":
                raise unparsable("Spryng", response)
            return str(spryng_id)
        raise _sort_refusal(response)


def api_url(url: str) -> str:
    """The API's base address from a gateway URL as stored: the base itself, the full address of the
    messages endpoint (as NotifyNL configures it; our own `/message` before), or the host alone."""
    parts = urlsplit(url.strip())
    path = parts.path.rstrip("/")
    for endpoint in ("/messages", "/message"):
        if path.endswith(endpoint):
            path = path[: -len(endpoint)]
            break
    return urlunsplit((parts.scheme, parts.netloc, path or API_VERSION_PATH, "", ""))


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
    """A delivery report from its query or form fields; Unreadable without STATUS, or without both ID
    and REFERENCE (NotifyNL reads REFERENCE alone)."""
    status = text(fields, "STATUS").strip()
    reference = str(fields.get("REFERENCE") or "") or None
    provider_id = str(fields.get("ID") or "") or reference
    if provider_id is None:
        raise Unreadable("ID and REFERENCE missing")
    reason = str(fields.get("REASONCODE") or "").strip()
    state = None
    if status == DELIVERED:
        state = "delivered"
    elif status == NOT_DELIVERED:
        state = REASONS.get(reason, "undeliverable")
        log.info("Spryng report for %s: not delivered, reason code %s", provider_id, reason or "none")
    return Report(provider_id, reference, f"{status}/{reason}" if reason else status, state)


def inbound(fields: Any) -> InboundText:
    """A received text, in the field names of Spryng's reports and messages: ID, ORIGINATOR (the
    phone that sent it), RECIPIENT (our number) and BODY."""
    return InboundText(to=text(fields, "RECIPIENT"), sender=text(fields, "ORIGINATOR"),
                       message=str(fields.get("BODY") or ""), provider_id=fields.get("ID") or None)
