"""The Spryng, CM.com and Twilio clients against real HTTP fakes of each: sender and encoding fields,
and every answer sorted into certainly not delivered, outcome unknown, or final."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from pipeline.providers.errors import (
    PERMANENT_FAILURE,
    TECHNICAL_FAILURE,
    FinalProviderError,
    OutcomeUnknownError,
    RetryableProviderError,
    SmsMessageData,
)
from pipeline.providers.sms.cm import CmGateway
from pipeline.providers.sms.spryng import SpryngGateway
from pipeline.providers.sms.twilio import TwilioGateway
from tests.fake_gateway import FakeGateway
from tests.provider_gateways import ACCOUNT_SID, TOKENS

CALLBACK = "https://notify.example.nl/providers/twilio-gw/status-reports"
REFERENCE = "8c0e7a52-1b7d-4f0e-a3c4-2d9e6f1b0a11"


def client(kind: str, url: str, token: str | None = None, timeout: float = 5.0, **options: str):
    token = token or TOKENS[kind]
    if kind == "spryng":
        return SpryngGateway(url, token, timeout=timeout)
    if kind == "cm":
        return CmGateway(url, token, timeout=timeout)
    return TwilioGateway(url, ACCOUNT_SID, token, status_callback=CALLBACK, timeout=timeout, **options)


@pytest.fixture(params=["spryng", "cm", "twilio"])
def fake(request) -> Iterator[tuple[str, FakeGateway]]:
    with FakeGateway(token=TOKENS[request.param], dialect=request.param, account_sid=ACCOUNT_SID) as running:
        yield request.param, running


def sms(body: str = "Uw code is 1234", sender: str = "Gemeente", to: str = "+31612345678") -> SmsMessageData:
    return SmsMessageData(notification_id=REFERENCE, to=to, sender=sender, body=body)


def sent_fields(kind: str, payload: dict) -> tuple:
    """(sender, recipient, encoding) as the provider received them."""
    if kind == "spryng":
        return payload["originator"], payload["recipients"], payload["encoding"]
    if kind == "cm":
        msg = payload["messages"]["msg"][0]
        return msg["from"], msg["to"], msg["dcs"]
    return payload.get("From"), payload["To"], None  # Twilio picks the encoding itself


ENCODED = {
    "spryng": [("Gemeente", ["31612345678"], "plain"), ("31970100200", ["31612345678"], "unicode")],
    "cm": [("Gemeente", [{"number": "0031612345678"}], 0), ("0031970100200", [{"number": "0031612345678"}], 8)],
    "twilio": [("Gemeente", "+31612345678", None), ("+31970100200", "+31612345678", None)],
}


def test_alphanumeric_and_long_number_senders_gsm7_and_unicode_texts(fake):
    kind, running = fake
    gateway = client(kind, running.base_url)
    first = gateway.send_sms(sms())
    gateway.send_sms(sms(body="Één keer – ✓", sender="+31 970 100 200"))

    messages = running.wait_for_messages(2)
    assert [sent_fields(kind, m.payload) for m in messages] == ENCODED[kind]
    assert first == messages[0].id and messages[0].reference == REFERENCE


def test_an_alphanumeric_sender_over_eleven_characters_is_never_sent(fake):
    kind, running = fake
    with pytest.raises(FinalProviderError) as refused:
        client(kind, running.base_url).send_sms(sms(sender="Gemeente Utrecht"))
    assert refused.value.status == TECHNICAL_FAILURE and running.attempts == 0


def test_a_twilio_messaging_service_picks_the_sender():
    with FakeGateway(token=TOKENS["twilio"], dialect="twilio", account_sid=ACCOUNT_SID) as running:
        service = "MG" + "0" * 32
        client("twilio", running.base_url, messaging_service_sid=service).send_sms(sms(sender="Gemeente Utrecht"))
        [message] = running.wait_for_messages(1)
    assert message.payload["MessagingServiceSid"] == service and "From" not in message.payload


@pytest.mark.parametrize("status, kind_of_error, final_status", [
    (500, RetryableProviderError, None),
    (503, RetryableProviderError, None),
    (429, RetryableProviderError, None),
    (422, FinalProviderError, PERMANENT_FAILURE),  # about the recipient, in each provider's words
])
def test_refusals_are_sorted(fake, status, kind_of_error, final_status):
    kind, running = fake
    running.fail_next(1, status)
    with pytest.raises(kind_of_error) as raised:
        client(kind, running.base_url).send_sms(sms())
    assert getattr(raised.value, "status", None) == final_status
    assert raised.value.certainly_not_delivered


def test_wrong_credentials_are_a_technical_failure(fake):
    kind, running = fake
    with pytest.raises(FinalProviderError) as refused:
        client(kind, running.base_url, token="wrong").send_sms(sms())
    assert refused.value.status == TECHNICAL_FAILURE and running.messages == []


@pytest.mark.parametrize("body", [{"unexpected": True}, {"id": "", "sid": "", "errorCode": 0, "messages": []}])
def test_a_success_we_cannot_read_is_an_unknown_outcome(fake, body):
    kind, running = fake
    running.fail_next(1, 201 if kind == "twilio" else 200, body=body)
    with pytest.raises(OutcomeUnknownError):
        client(kind, running.base_url).send_sms(sms())


def test_an_answer_that_never_comes_is_an_unknown_outcome(fake):
    kind, running = fake
    running.hang_next(1, 1.0)
    with pytest.raises(OutcomeUnknownError):
        client(kind, running.base_url, timeout=0.3).send_sms(sms())


def test_cm_s_low_balance_lets_another_gateway_try():
    with FakeGateway(token=TOKENS["cm"], dialect="cm") as running:
        running.fail_next(1, 400, body={"details": "Insufficient balance", "errorCode": 102, "messages": []})
        with pytest.raises(RetryableProviderError):
            client("cm", running.base_url).send_sms(sms())
