"""Text messages through an SMS gateway speaking JSON over HTTP.

The request (one per text message):
    POST {url}/messages
    Authorization: Bearer <token>            (left out when no token is configured)
    {"to": "+31612345678", "from": "<sender>", "body": "<text>",
     "reference": "<our notification id>", "callback_url": "<where to post delivery receipts>"}
The answer:
    2xx {"id": "<gateway message id>", "status": "accepted"}
    400/422 {"error": "<text>", "field": "to"}   the gateway will not take this recipient
    401/403                                      our token is wrong
    429, 5xx                                     try again later
`reference` lets a gateway drop a repeat of a message it already accepted. After a read timeout
we cannot know whether the first attempt got through (OutcomeUnknownError): the worker sends again
only to a gateway configured as one that drops such repeats (`deduplicates`), and otherwise waits
for the receipt, which carries our reference.
"""
from __future__ import annotations

import json

from pipeline.infrastructure.providers.errors import (
    PERMANENT_FAILURE,
    TECHNICAL_FAILURE,
    FinalProviderError,
    RetryableProviderError,
    SmsMessageData,
)
from pipeline.infrastructure.providers.sms.transport import (
    Response,
    Transport,
    detail,
    is_busy,
    json_answer,
    unparsable,
)


class HttpSmsGateway:
    name = "http-gateway"

    def __init__(self, url: str, token: str | None, *, callback_url: str, timeout: float = 10.0,
                 deduplicates: bool = False, name: str = "http-gateway") -> None:
        """`timeout` in seconds, for connecting and for waiting on the answer; `deduplicates`: the
        gateway drops a message whose reference it has already accepted; `name`: which of several
        gateways this is (recorded as the notification's provider)."""
        self.name = name
        self.url = url.rstrip("/")
        self.callback_url = callback_url
        self.deduplicates = deduplicates
        self._headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
        self._transport = Transport(self.url, timeout)

    def send_sms(self, message: SmsMessageData) -> str:
        payload = {
            "to": message.to,
            "from": message.sender,
            "body": message.body,
            "reference": message.notification_id,
            "callback_url": self.callback_url,
        }
        response = self._transport.post(f"{self.url}/messages", json.dumps(payload).encode(), self._headers,
                                        what="SMS gateway")
        if 200 <= response.status < 300:
            return _gateway_id(response)
        raise _sort_refusal(response)


def _gateway_id(response: Response) -> str:
    answer = json_answer(response)
    gateway_id = answer.get("id") if isinstance(answer, dict) else None
    if not isinstance(gateway_id, (str, int)) or gateway_id == "":
        # An answer we cannot read: the gateway may well have the message, so it is never sent
        # again blind; its receipt (which names our reference) moves it on, as for the other types.
        raise unparsable("SMS gateway", response)
    return str(gateway_id)


def _sort_refusal(response: Response) -> FinalProviderError | RetryableProviderError:
    status, text = response.status, detail(response)
    if is_busy(status):
        return RetryableProviderError(f"SMS gateway answered {status}: {text}")
    if status in (400, 422):
        # Our own payload is validated before it gets here, so unless the gateway points at some
        # other field, a refusal is about the recipient.
        answer = json_answer(response)
        field = answer.get("field") if isinstance(answer, dict) else None
        if field in (None, "to"):
            return FinalProviderError(PERMANENT_FAILURE, f"SMS gateway refused the recipient: {text}")
    # 401/403 (our token), 404/405 (our URL), a 400 about another field: our request is wrong.
    return FinalProviderError(TECHNICAL_FAILURE, f"SMS gateway answered {status}: {text}")
