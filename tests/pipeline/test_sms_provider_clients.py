"""The Spryng, CM.com and Twilio clients against real HTTP fakes of each: sender and encoding fields,
and every answer sorted into certainly not delivered, outcome unknown, or final."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from pipeline.infrastructure.providers.errors import (
    PERMANENT_FAILURE,
    TECHNICAL_FAILURE,
    FinalProviderError,
    OutcomeUnknownError,
    RetryableProviderError,
    SmsMessageData,
)
from pipeline.infrastructure.providers.sms import spryng, twilio
from pipeline.infrastructure.providers.sms.cm import CmGateway
from pipeline.infrastructure.providers.sms.incoming import Unreadable
from pipeline.infrastructure.providers.sms.receipts import map_gateway_state
from pipeline.infrastructure.providers.sms.spryng import SpryngGateway
from pipeline.infrastructure.providers.sms.twilio import TwilioGateway
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


@pytest.mark.parametrize("stored", ["{base}/v1", "{base}/v1/", "{base}/v1/message", "{base}/v1/messages", "{base}"])
def test_a_spryng_gateway_url_stored_in_another_form_still_reaches_the_messages_endpoint(stored):
    """The default and documented url is the base address .../v1; rows may hold the full endpoint
    (as NotifyNL configures it, or our own earlier /message) or the host alone."""
    with FakeGateway(token=TOKENS["spryng"], dialect="spryng") as running:
        client("spryng", stored.format(base=running.url)).send_sms(sms())
        [message] = running.wait_for_messages(1)
    assert message.reference == REFERENCE


def test_spryng_api_url_reads_each_stored_form_as_the_base_address():
    assert {spryng.api_url(url) for url in (
        "https://rest.spryngsms.com/v1", "https://rest.spryngsms.com/v1/", "https://rest.spryngsms.com/v1/messages",
        "https://rest.spryngsms.com/v1/message", "https://rest.spryngsms.com")} == {"https://rest.spryngsms.com/v1"}


@pytest.mark.parametrize("fields, state", [
    ({"ID": "x", "REFERENCE": REFERENCE, "STATUS": "10", "REASONCODE": "0"}, "delivered"),
    ({"ID": "x", "REFERENCE": REFERENCE, "STATUS": "20", "REASONCODE": "20"}, "unreachable"),
    ({"ID": "x", "REFERENCE": REFERENCE, "STATUS": "20", "REASONCODE": "21"}, "undeliverable"),
    ({"ID": "x", "REFERENCE": REFERENCE, "STATUS": "20", "REASONCODE": "22"}, "undeliverable"),
    ({"ID": "x", "REFERENCE": REFERENCE, "STATUS": "20", "REASONCODE": "31"}, "undeliverable"),
    ({"ID": "x", "REFERENCE": REFERENCE, "STATUS": "20", "REASONCODE": "32"}, "provider-failure"),
    ({"ID": "x", "STATUS": "20"}, "undeliverable"),
    ({"REFERENCE": REFERENCE, "STATUS": "10"}, "delivered"),
    ({"ID": "x", "STATUS": "30"}, None),
])
def test_spryng_reports_by_status_and_reason_code(fields, state):
    report = spryng.report(fields)
    assert report.state == state and report.provider_id == fields.get("ID", REFERENCE)
    assert map_gateway_state(state or "?") == {"delivered": "delivered", "unreachable": "temporary-failure",
                                               "undeliverable": "permanent-failure",
                                               "provider-failure": "technical-failure", None: None}[state]


@pytest.mark.parametrize("fields", [{"ID": "x"}, {"STATUS": "10"}, {"STATUS": "10", "ID": "", "REFERENCE": ""}])
def test_a_spryng_report_without_status_or_any_id_is_unreadable(fields):
    with pytest.raises(Unreadable):
        spryng.report(fields)


# Every status of Twilio's Message resource (message-resource#message-status-values) -> our status.
TWILIO_STATUSES = {
    "queued": None, "accepted": None, "scheduled": None, "sending": None, "sent": None,
    "delivered": "delivered", "read": "delivered",
    "undelivered": "temporary-failure",
    "failed": "technical-failure",  # Twilio could not send it on: its side, not the recipient's
    "receiving": None, "received": None, "canceled": None, "partially_delivered": None,
}


@pytest.mark.parametrize("status", TWILIO_STATUSES)
def test_twilio_statuses_onto_ours(status):
    report = twilio.report({"MessageSid": "SM1", "MessageStatus": status}, REFERENCE)
    assert map_gateway_state(report.state or "") == TWILIO_STATUSES[status]
    known = status not in ("receiving", "received", "canceled", "partially_delivered")
    assert (report.state is not None) == known


def test_an_undelivered_twilio_message_to_a_number_that_cannot_take_it_is_a_permanent_failure():
    for code in ("30004", "30005", "30006"):
        report = twilio.report({"MessageSid": "SM1", "MessageStatus": "undelivered", "ErrorCode": code}, None)
        assert map_gateway_state(report.state or "") == "permanent-failure"
