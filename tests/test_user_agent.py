"""Every HTTP call the service makes out names this release in its User-Agent (pipeline/infrastructure/outbound.py):
SMS gateways of every kind, services' callbacks, Amazon SNS's certificates and subscription
confirmations, and the simulated gateway's receipts to our own webhook."""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

import config
from pipeline.infrastructure.providers.email.sns import SnsVerifier
from pipeline.infrastructure.providers.errors import SmsMessageData
from pipeline.infrastructure.providers.simulated import post_receipts
from pipeline.infrastructure.providers.sms.http_gateway import HttpSmsGateway
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_sample_template, create_service
from tests.fake_gateway import FakeGateway
from tests.fake_sns import CERT_PATH, FakeSns
from tests.pipeline.test_sms_provider_clients import client as provider_client
from tests.provider_gateways import ACCOUNT_SID, TOKENS, provider_gateways
from tests.test_callbacks import Receiver, receiver, register  # noqa: F401 (fixture)
from version import __version__

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = f"notify-nl/{__version__}"


def test_an_sms_gateway_and_a_callback_receiver_see_the_release(receiver, live_server, worker):  # noqa: F811
    service = create_service(permissions=["sms"])
    register(service, receiver)
    template = create_sample_template(service=service, body="Uw code is 1234")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    with provider_gateways(["spryng"]) as [gateway]:
        notification_id = api.send_sms_notification("0612345678", str(template.id))["id"]
        [message] = gateway.wait_for_messages(1, timeout=15)
        wait_for(lambda: status_of(notification_id) == "sending")
        assert gateway.send_receipt(gateway.receipt_url(message), "", message.id, "delivered").status_code == 200
        wait_for(lambda: status_of(notification_id) == "delivered")
    [callback] = receiver.wait_for(1)
    assert callback.json["id"] == notification_id and callback.json["status"] == "delivered"
    assert message.headers["User-Agent"] == EXPECTED
    assert callback.headers["User-Agent"] == EXPECTED


@pytest.mark.parametrize("kind", ["json", "spryng", "cm", "twilio"])
def test_every_kind_of_sms_gateway_sees_the_release(kind):
    with FakeGateway(token=TOKENS[kind], dialect=kind, account_sid=ACCOUNT_SID) as gateway:
        sender = (HttpSmsGateway(gateway.url, TOKENS[kind], callback_url="https://notify.example.nl/receipts")
                  if kind == "json" else provider_client(kind, gateway.url))
        sender.send_sms(SmsMessageData(notification_id="8c0e7a52-1b7d-4f0e-a3c4-2d9e6f1b0a11",
                                       to="+31612345678", sender="Gemeente", body="Uw code is 1234"))
        [message] = gateway.wait_for_messages(1)
    assert message.headers["User-Agent"] == EXPECTED


def test_sns_sees_the_release_when_a_certificate_is_fetched_and_a_subscription_confirmed(tmp_path):
    with FakeSns(tmp_path) as sns:
        settings = dataclasses.replace(config.get_settings(), sns_host_pattern=sns.host_pattern,
                                       sns_ca_file=str(sns.ca_file), sns_signing_ca_file=str(sns.signing_ca_file))
        verifier = SnsVerifier(settings)
        verifier.certificate(f"{sns.url}{CERT_PATH}")
        assert verifier.confirm_subscription(sns.subscription_confirmation()["SubscribeURL"])
    assert sns.user_agents == [EXPECTED, EXPECTED]


def test_the_simulated_gateway_s_receipts_to_our_own_webhook_say_the_release(receiver):  # noqa: F811
    post_receipts(receiver.url.removesuffix("/callback"), "webhook-token", "simulated",
                  [{"id": "sim-1", "status": "delivered"}])
    [posted] = receiver.wait_for(1)
    assert posted.path == "/providers/simulated/delivery-receipts"
    assert posted.headers["User-Agent"] == EXPECTED


# An HTTP client made anywhere but the one place that sets the User-Agent would call out without it.
CLIENTS = re.compile(r"\b(?:requests\.(?:Session|get|post|put|patch|delete|head|request)|urllib3\.(?:PoolManager|"
                     r"ProxyManager|request)|PoolManager|urlopen|HTTPS?Connection|http\.client)\b\s*\(")
# Where a client is made on purpose: the helper itself, and the SMS transport (which sets the header
# on every request, and asks requests only for the environment's proxy settings).
MADE_HERE = {"pipeline/infrastructure/outbound.py": 2, "pipeline/infrastructure/providers/sms/transport.py": 2}


def test_outbound_http_clients_are_made_only_where_the_user_agent_is_set():
    found: dict[str, int] = {}
    for folder in ("pipeline", "workers", "core", "api", "console", "models"):
        for path in (ROOT / folder).rglob("*.py"):
            if count := len(CLIENTS.findall(path.read_text())):
                found[str(path.relative_to(ROOT))] = count
    assert found == MADE_HERE
