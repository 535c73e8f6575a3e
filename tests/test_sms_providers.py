"""Spryng, CM.com and Twilio as the service's gateway, each a real HTTP fake speaking the provider's
documented protocol: sends through the official client arrive in the provider's own shape, its
reports make them `delivered`, forged reports are refused, received texts reach the service's
inbound callback."""
from __future__ import annotations

import base64

import pytest
import requests
from notifications_python_client.notifications import NotificationsAPIClient

import config
from models.notification import Notification, ReceivedText
from models.service import InboundNumber, SmsSender
from pipeline.infrastructure.providers.sms import gateways
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_sample_template, create_service
from tests.provider_gateways import ACCOUNT_SID, gateway_name, provider_gateways
from tests.test_callbacks import TOKEN, Receiver, receiver, register  # noqa: F401 (fixture)

KINDS = ["spryng", "cm", "twilio"]


@pytest.fixture(params=KINDS)
def provider(request):
    """(kind, fake) with one gateway of that kind in rotation."""
    with provider_gateways([request.param]) as [fake]:
        yield request.param, fake


def webhooks(kind: str) -> dict[str, str]:
    settings = config.get_settings()
    [row] = [row for row in gateways.in_use(settings) if row.name == gateway_name(kind)]
    return gateways.webhook_urls(settings, row)


def send(live_server, body: str = "Your code is 1234", sender: str | None = None) -> str:
    service = create_service(permissions=["sms", "inbound_sms"])
    if sender:
        SmsSender.create(service=service, sms_sender=sender, is_default=True)
    template = create_sample_template(service=service, body=body)
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    return api.send_sms_notification("0612345678", str(template.id))["id"]


EXPECTED = {
    "spryng": lambda ref: {"encoding": "plain", "body": "Your code is 1234", "route": "business",
                           "originator": "Gemeente", "recipients": ["31612345678"], "reference": ref},
    "cm": lambda ref: {"messages": {"msg": [{"from": "Gemeente", "to": [{"number": "0031612345678"}],
                                             "body": {"content": "Your code is 1234"}, "dcs": 0, "reference": ref,
                                             "allowedChannels": ["SMS"], "minimumNumberOfMessageParts": 1,
                                             "maximumNumberOfMessageParts": 8}]}},
    "twilio": lambda ref: {"To": "+31612345678", "Body": "Your code is 1234", "From": "Gemeente",
                           "StatusCallback": f"{config.get_settings().base_url}/providers/twilio-gw/status-reports"
                                             f"?reference={ref}"},
}


AUTHENTICATED = {  # the header each provider documents, and the content type it reads
    "spryng": ("Authorization", "Bearer spryng-api-key", "application/json"),
    "cm": ("X-CM-PRODUCTTOKEN", "00000000-0000-0000-0000-0000000000cm", "application/json"),
    "twilio": ("Authorization", "Basic " + base64.b64encode(f"{ACCOUNT_SID}:twilio-auth-token".encode()).decode(),
               "application/x-www-form-urlencoded"),
}


def test_a_text_arrives_in_the_provider_s_shape_and_its_report_makes_it_delivered(provider, live_server, worker):
    kind, fake = provider
    notification_id = send(live_server, sender="Gemeente")

    [message] = fake.wait_for_messages(1, timeout=15)
    assert message.payload == EXPECTED[kind](notification_id)
    header, credential, content_type = AUTHENTICATED[kind]
    assert (message.headers[header], message.headers["Content-Type"]) == (credential, content_type)
    wait_for(lambda: status_of(notification_id) == "sending")
    row = Notification.get_by_id(notification_id)
    assert (row.sent_by, row.provider_reference) == (gateway_name(kind), message.id)

    assert fake.send_receipt(fake.receipt_url(message), "", message.id, "delivered").status_code == 200
    wait_for(lambda: status_of(notification_id) == "delivered")


def test_a_report_that_comes_before_the_answer_finds_its_text_once(provider, live_server, worker):
    kind, fake = provider
    fake.report("", "delivered", before_answer=True)
    ids = [send(live_server) for _ in range(3)]
    wait_for(lambda: {status_of(n) for n in ids} == {"delivered"}, timeout=30)
    assert fake.references() == {n: 1 for n in ids}


def _forged(kind: str, fake, message) -> list:
    """Reports that are not the provider's: a wrong or missing token, a bad or missing signature."""
    url = fake.receipt_url(message)
    if kind == "twilio":
        fake.dialect.token = "not-the-auth-token"
        forged = [fake.send_receipt(url, "", message.id, "delivered")]
        fake.dialect.token = None
        forged.append(requests.post(url, data={"MessageSid": message.id, "MessageStatus": "delivered",
                                               "AccountSid": ACCOUNT_SID}, timeout=5))
        return forged
    right = url.rsplit("/", 1)[0]
    fake.report_url = None
    return [fake.send_receipt(f"{right}/not-our-token", "", message.id, "delivered"),
            fake.send_receipt(right, "", message.id, "delivered")]


def test_a_forged_report_is_refused_and_changes_nothing(provider, live_server, worker, caplog):
    kind, fake = provider
    notification_id = send(live_server)
    [message] = fake.wait_for_messages(1, timeout=15)
    wait_for(lambda: status_of(notification_id) == "sending")

    answers = _forged(kind, fake, message)

    assert [a.status_code for a in answers] == [403, 403]
    assert answers[0].json()["errors"] == [{"error": "AuthError", "message": "Invalid signature"}]
    assert status_of(notification_id) == "sending"
    assert "refused: bad or missing signature or token" in caplog.text


# (kind, the provider's report in our words -> what the fake posts, our status): Spryng STATUS 20 by its
# REASONCODE (20 unreachable, 21 incorrect number, 32 originator not registered), CM's codes 1 and 3,
# Twilio's undelivered by ErrorCode (30003 unreachable, 30005 unknown number) and its failed.
OUTCOMES = [
    ("spryng", "failed", "temporary-failure"), ("spryng", "undeliverable", "permanent-failure"),
    ("spryng", "provider-failure", "technical-failure"),
    ("cm", "failed", "temporary-failure"), ("cm", "rejected", "permanent-failure"),
    ("twilio", "failed", "temporary-failure"), ("twilio", "undeliverable", "permanent-failure"),
    ("twilio", "provider-failure", "technical-failure"),
]


@pytest.mark.parametrize("kind, report, status", OUTCOMES)
def test_a_report_that_it_was_not_delivered_ends_the_text_in_the_status_it_means(kind, report, status, live_server,
                                                                                worker):
    with provider_gateways([kind]) as [fake]:
        notification_id = send(live_server)
        [message] = fake.wait_for_messages(1, timeout=15)
        wait_for(lambda: status_of(notification_id) == "sending")

        assert fake.send_receipt(fake.receipt_url(message), "", message.id, report).status_code == 200
        wait_for(lambda: status_of(notification_id) == status)


def test_a_spryng_report_with_only_our_reference_is_applied(live_server, worker):
    """NotifyNL, which sends through Spryng in production, reads REFERENCE, STATUS and REASONCODE alone."""
    with provider_gateways(["spryng"]) as [fake]:
        notification_id = send(live_server)
        [message] = fake.wait_for_messages(1, timeout=15)
        answer = requests.get(fake.receipt_url(message), params={"REFERENCE": notification_id, "STATUS": "10",
                                                                 "REASONCODE": "0"}, timeout=5)
        assert answer.status_code == 200
        wait_for(lambda: status_of(notification_id) == "delivered")


UNKNOWN = {"spryng": "30", "cm": "9", "twilio": "partially_delivered"}


def test_a_report_in_a_status_we_do_not_know_is_counted_and_changes_nothing(provider, live_server, worker, client):
    kind, fake = provider
    notification_id = send(live_server)
    [message] = fake.wait_for_messages(1, timeout=15)
    wait_for(lambda: status_of(notification_id) == "sending")

    assert fake.send_receipt(fake.receipt_url(message), "", message.id, UNKNOWN[kind]).status_code == 200

    assert status_of(notification_id) == "sending"
    metrics = client.get("/metrics").get_data(as_text=True)
    assert f'notify_provider_webhook_refusals_total{{provider="{kind}",reason="unknown-status"}} 1.0' in metrics


def test_a_received_text_reaches_the_service_s_inbound_callback(provider, receiver, worker):  # noqa: F811
    kind, fake = provider
    service = create_service(permissions=["sms", "inbound_sms"])
    register(service, receiver, kind="inbound-sms")
    InboundNumber.create(number="+3197010000001", service=service)
    to = {"spryng": "3197010000001", "cm": "003197010000001", "twilio": "+3197010000001"}[kind]

    answer = fake.send_inbound(webhooks(kind)["received_texts"], "", to, "+31612345678", "Stop ✓", "in-1")

    assert answer.status_code == 200
    [request] = receiver.wait_for(1)
    assert (request.json["source_number"], request.json["destination_number"], request.json["message"]) == \
        ("+31612345678", "+3197010000001", "Stop ✓")
    # The provider posts again until it has our answer: the same text is stored once.
    again = fake.send_inbound(webhooks(kind)["received_texts"], "", to, "+31612345678", "Stop ✓", "in-1")
    assert again.status_code == 200 and ReceivedText.select().count() == 1
    if kind == "twilio":  # Twilio reads our answer as TwiML: an empty one sends no reply
        assert (again.headers["Content-Type"], again.text) == (
            "text/xml", '<?xml version="1.0" encoding="UTF-8"?><Response></Response>')


def test_a_received_text_without_the_provider_s_authentication_is_refused(provider, client):
    kind, fake = provider
    InboundNumber.create(number="+3197010000001", service=create_service(permissions=["sms", "inbound_sms"]))
    url = webhooks(kind)["received_texts"].replace(config.get_settings().base_url, "")
    forged = url + "x" if kind != "twilio" else url
    answer = client.post(forged, data={"From": "+31612345678", "To": "+3197010000001", "Body": "Hi",
                                       "MessageSid": "SM1", "AccountSid": ACCOUNT_SID}) if kind == "twilio" else \
        client.post(forged, json={"from": {"number": "+31612345678"}, "to": {"number": "+3197010000001"},
                                  "message": {"text": "Hi"}})
    assert answer.status_code == 403


def test_twilio_s_signature_is_checked_over_the_public_address_behind_a_proxy(client):
    """Behind a proxy the request arrives on an inner address; Twilio signed the one we gave it."""
    with provider_gateways(["twilio"], base_url="https://notify.example.nl") as [fake]:
        form = {"MessageSid": "SM" + "1" * 32, "MessageStatus": "delivered", "AccountSid": ACCOUNT_SID}
        path = "/providers/twilio-gw/status-reports?reference=8c0e7a52-1b7d-4f0e-a3c4-2d9e6f1b0a11"

        def post(signed_url: str) -> int:
            return client.post(path, data=form, headers={
                "X-Twilio-Signature": fake.dialect.signature(signed_url, form)}).status_code

        assert post(f"http://localhost{path}") == 403  # the address the request came in on
        assert post(f"https://notify.example.nl{path}") == 200
