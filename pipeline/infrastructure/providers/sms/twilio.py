"""Text messages through Twilio's Messages API, and the checks on Twilio's webhooks.

    POST {url}/2010-04-01/Accounts/{AccountSid}/Messages.json      url: https://api.twilio.com
    Authorization: Basic <AccountSid:AuthToken>
    To=+31612345678&Body=<text>&From=<sender> (or MessagingServiceSid=MG...)&StatusCallback=<url>
The answer: 201 with the message resource ({"sid": "SM...", "status": "queued" | "accepted", ...});
otherwise {"code", "message", "more_info", "status"} (400 for a parameter it refuses, 401 for our
credentials, 429 too many requests). Twilio picks GSM-7 or UCS-2 itself from the body.

Sending is plain HTTP (the transport every gateway shares: one connection pool, the outbound
address rules, timeouts sorted into our three kinds); the twilio library is used for what it is
the reference of, the X-Twilio-Signature check. Twilio posts status callbacks (MessageSid,
MessageStatus, ErrorCode, AccountSid...) to the StatusCallback we give with each message, which
carries our reference in its query: Twilio signs the whole URL, so the reference is as trusted as
the rest. Received texts post MessageSid, AccountSid, From, To and Body.
"""
from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from twilio.request_validator import RequestValidator

from pipeline.infrastructure.providers.errors import (
    PERMANENT_FAILURE,
    TECHNICAL_FAILURE,
    FinalProviderError,
    RetryableProviderError,
    SmsMessageData,
)
from pipeline.infrastructure.providers.sms import sender
from pipeline.infrastructure.providers.sms.incoming import InboundText, Report, text
from pipeline.infrastructure.providers.sms.transport import (
    Response,
    Transport,
    detail,
    is_busy,
    json_answer,
    unparsable,
)

DEFAULT_URL = "https://api.twilio.com"
# Twilio's error codes that are about the recipient: not a valid number (21211), cannot be reached
# (21214), not a mobile number (21614), unsubscribed with STOP (21610), unreachable from this sender (21612).
_RECIPIENT_REFUSED = {21211, 21214, 21610, 21612, 21614}
# MessageStatus -> our receipt state, for each status of Twilio's Message resource
# (https://www.twilio.com/docs/messaging/api/message-resource#message-status-values). Until "sent" Twilio
# still holds it; "read" is later than delivered; "failed": Twilio could not send it on (a queue
# overflow, a suspended account, a media error), a problem on Twilio's side, not the recipient's;
# "undelivered": the carrier reported it not delivered. Not mapped, so logged and counted: "receiving"
# and "received" (inbound messages), "canceled" (a scheduled message: we schedule none) and
# "partially_delivered" (a message to several recipients: we send to one).
STATES = {"accepted": "accepted", "scheduled": "accepted", "queued": "accepted", "sending": "accepted",
          "sent": "sent", "delivered": "delivered", "read": "delivered", "failed": "provider-failure",
          "undelivered": "failed"}
# An undelivered message with these ErrorCodes will never arrive: blocked (30004), unknown or
# inactive number (30005), a landline (30006).
_UNDELIVERABLE = {"30004", "30005", "30006"}


class TwilioGateway:
    deduplicates = False  # Twilio has no idempotency key on the Messages API

    def __init__(self, url: str, account_sid: str, auth_token: str, *, status_callback: str,
                 messaging_service_sid: str | None = None, timeout: float = 10.0, name: str = "twilio") -> None:
        """`status_callback`: where Twilio posts this gateway's status callbacks (our reference is added)."""
        self.name = name
        self.url = f"{url.rstrip('/')}/2010-04-01/Accounts/{account_sid}/Messages.json"
        self.status_callback = status_callback
        self.messaging_service_sid = messaging_service_sid
        credentials = base64.b64encode(f"{account_sid}:{auth_token}".encode()).decode()
        self._headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json",
                         "Authorization": f"Basic {credentials}"}
        self._transport = Transport(url, timeout)

    def send_sms(self, message: SmsMessageData) -> str:
        fields = {"To": message.to, "Body": message.body,
                  "StatusCallback": f"{self.status_callback}?{urlencode({'reference': message.notification_id})}"}
        if self.messaging_service_sid:  # the service's sender pool picks the sender
            fields["MessagingServiceSid"] = self.messaging_service_sid
        else:
            origin = sender.checked(message.sender, "Twilio")
            fields["From"] = f"+{sender.number_digits(origin)}" if sender.is_number(origin) else origin
        response = self._transport.post(self.url, urlencode(fields).encode(), self._headers, what="Twilio")
        if 200 <= response.status < 300:
            answer = json_answer(response)
            sid = answer.get("sid") if isinstance(answer, dict) else None
            if not isinstance(sid, str) or not sid:
                raise unparsable("Twilio", response)
            return sid
        raise _sort_refusal(response)


def _sort_refusal(response: Response) -> FinalProviderError | RetryableProviderError:
    if is_busy(response.status):
        return RetryableProviderError(f"Twilio answered {response.status}: {detail(response)}")
    answer = json_answer(response)
    code = answer.get("code") if isinstance(answer, dict) else None
    if response.status == 400 and code in _RECIPIENT_REFUSED:
        return FinalProviderError(PERMANENT_FAILURE, f"Twilio refused the recipient: {detail(response)}")
    # 401 (our credentials), 404 (our account SID or URL), 400 about another parameter.
    return FinalProviderError(TECHNICAL_FAILURE, f"Twilio answered {response.status}: {detail(response)}")


def signed(auth_token: str, url: str, form: Mapping[str, Any], signature: str | None) -> bool:
    """Whether X-Twilio-Signature is Twilio's for this URL (as Twilio requested it) and form."""
    return bool(signature) and RequestValidator(auth_token).validate(url, form, signature)


def report(form: Mapping[str, Any], reference: str | None) -> Report:
    status = text(form, "MessageStatus").strip().lower()
    state = STATES.get(status)
    if status == "undelivered" and str(form.get("ErrorCode") or "") in _UNDELIVERABLE:
        state = "undeliverable"
    return Report(text(form, "MessageSid"), reference, status, state)


def inbound(form: Mapping[str, Any]) -> InboundText:
    return InboundText(to=text(form, "To"), sender=text(form, "From"), message=str(form.get("Body") or ""),
                       provider_id=text(form, "MessageSid"))
