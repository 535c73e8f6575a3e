"""Text messages through CM.com's Business Messaging API (JSON), as its documentation gives it
(https://developers.cm.com/messaging/docs/integration, .../responses-errors-json).

    POST {url}/v1.0/message                     url: https://gw.messaging.cm.com
    X-CM-PRODUCTTOKEN: <product token>          (the recommended way; the body needs no authentication then)
    Content-Type: application/json
    {"messages": {"msg": [{"from": "<sender>", "to": [{"number": "0031612345678"}],
                           "body": {"content": "<text>"}, "dcs": 0 | 8, "reference": "<our notification id>",
                           "allowedChannels": ["SMS"], "minimumNumberOfMessageParts": 1,
                           "maximumNumberOfMessageParts": 8}]}}
The answer: {"details", "errorCode", "messages": [{"to", "status", "reference", "parts",
"messageDetails", "messageErrorCode"}]}: errorCode 0 and status "Accepted" when it took the text,
otherwise an errorCode (101 authentication, 102 balance, 103 product token, 2xx malformed request)
and per message a messageErrorCode (3xx a field refused: 302/303 the recipient; 4xx filtered).
CM gives no id of its own: our reference names the message in its status reports.

Status reports (JSON, set in CM's Channels app; .../docs/incoming-status-report) post
    {"messages": {"msg": {"received", "to", "reference", "status": {"code", "errorCode",
     "errorDescription"}, "operator"}}}
with code 0 accepted by the operator, 1 rejected, 2 delivered, 3 failed. Received texts post
{"from": {"number"}, "to": {"number"}, "message": {"text"}, "reference", "groupings", "timeUtc",
"channel"} (.../docs/incoming-messages). CM signs neither, so their URL carries a token of ours (docs/providers-sms.md).
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

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

DEFAULT_URL = "https://gw.messaging.cm.com"
MAX_PARTS = 8  # CM sends one part unless told more; our longest text is 6 (pipeline/domain/cost.py)
GSM7, UNICODE = 0, 8  # dcs: the data coding scheme
STATES = {"0": "accepted", "1": "rejected", "2": "delivered", "3": "failed"}
_RECIPIENT_REFUSED = {302, 303, 402}  # invalid To, invalid MSISDN, recipient blacklisted
_NOT_NOW = {102, 500, 999}  # balance too low (another gateway may take it), CM's own errors


class CmGateway:
    deduplicates = False  # CM does not document dropping a repeated reference

    def __init__(self, url: str, token: str, *, timeout: float = 10.0, name: str = "cm") -> None:
        self.name = name
        self.url = url.rstrip("/")
        self._headers = {"Content-Type": "application/json", "Accept": "application/json",
                         "X-CM-PRODUCTTOKEN": token}
        self._transport = Transport(self.url, timeout)

    def send_sms(self, message: SmsMessageData) -> str:
        origin = sender.checked(message.sender, "CM.com")
        msg = {
            "from": f"00{sender.number_digits(origin)}" if sender.is_number(origin) else origin,
            "to": [{"number": f"00{sender.number_digits(message.to)}"}],
            "body": {"content": message.body},
            "dcs": GSM7 if sender.is_gsm7(message.body) else UNICODE,
            "reference": message.notification_id,
            "allowedChannels": ["SMS"],
            "minimumNumberOfMessageParts": 1,
            "maximumNumberOfMessageParts": MAX_PARTS,
        }
        payload = {"messages": {"msg": [msg]}}
        response = self._transport.post(f"{self.url}/v1.0/message", json.dumps(payload).encode(), self._headers,
                                        what="CM.com")
        answer = json_answer(response)
        if is_busy(response.status):
            raise RetryableProviderError(f"CM.com answered {response.status}: {detail(response)}")
        if not isinstance(answer, dict) or not isinstance(answer.get("errorCode"), int):
            if 200 <= response.status < 300:
                raise unparsable("CM.com", response)
            raise FinalProviderError(TECHNICAL_FAILURE, f"CM.com answered {response.status}: {detail(response)}")
        messages = answer.get("messages") if isinstance(answer.get("messages"), list) else []
        first = messages[0] if messages and isinstance(messages[0], dict) else {}
        code = first.get("messageErrorCode") or answer["errorCode"]
        if code == 0 and 200 <= response.status < 300:
            if str(first.get("status", "")).lower() != "accepted":
                raise unparsable("CM.com", response)
            return message.notification_id
        raise _sort_refusal(code, response)


def _sort_refusal(code: int, response: Response) -> FinalProviderError | RetryableProviderError:
    if code in _NOT_NOW:
        return RetryableProviderError(f"CM.com did not take it (error {code}): {detail(response)}")
    if code in _RECIPIENT_REFUSED:
        return FinalProviderError(PERMANENT_FAILURE, f"CM.com refused the recipient (error {code}): "
                                  f"{detail(response)}")
    # 101/103 (our token), 2xx (our request), 301/304/305 (our sender or body), 401/403 (filtered).
    return FinalProviderError(TECHNICAL_FAILURE, f"CM.com refused it (error {code}): {detail(response)}")


def reports(body: Any) -> list[Report]:
    """The status reports of one post (one msg, or a list of them); Unreadable when malformed."""
    messages = body.get("messages") if isinstance(body, dict) else None
    found = messages.get("msg") if isinstance(messages, dict) else None
    found = [found] if isinstance(found, dict) else found
    if not isinstance(found, list) or not found or not all(isinstance(msg, dict) for msg in found):
        raise Unreadable("messages.msg missing")
    out = []
    for msg in found:
        reference = text(msg, "reference")
        code = text(msg.get("status") or {}, "code")
        out.append(Report(reference, reference, code, STATES.get(code.strip())))
    return out


def inbound(body: Any) -> InboundText | None:
    """A received text; None for another channel's message (WhatsApp and the like)."""
    if not isinstance(body, dict):
        raise Unreadable("not a JSON object")
    if str(body.get("channel") or "SMS").upper() != "SMS":
        return None
    phone, number, message = (text(body.get(part) or {}, field) for part, field in
                              (("from", "number"), ("to", "number"), ("message", "text")))
    # CM gives a received text no id; a redelivery (CM retries until we answer 200) is the same
    # sender, number, time and text.
    same = "\n".join([phone, number, str(body.get("timeUtc") or ""), message])
    return InboundText(to=number, sender=phone, message=message,
                       provider_id="cm-" + hashlib.sha256(same.encode()).hexdigest()[:40])
