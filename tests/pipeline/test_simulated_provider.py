"""Simulated providers, post_receipts against a real HTTP server, and the provider registry."""
from __future__ import annotations

import dataclasses
import json
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from config import get_settings
from pipeline.infrastructure.providers import (
    EmailMessageData,
    FinalProviderError,
    HttpSmsGateway,
    RetryableProviderError,
    SimulatedEmailProvider,
    SimulatedSmsProvider,
    SmsMessageData,
    SmtpProvider,
    email_provider,
    map_gateway_state,
    post_receipts,
    simulated_outcome,
    simulated_receipt,
    sms_provider,
)


class Webhook:
    """A real HTTP server standing in for our receipt webhook: records requests, answers `status`."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.status = 204
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                owner.requests.append(
                    {"path": self.path, "json": json.loads(body), "authorization": self.headers["Authorization"]}
                )
                self.send_response(owner.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_port}"


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    hook = Webhook()
    threading.Thread(target=hook.server.serve_forever, args=(0.05,), daemon=True).start()
    yield hook
    hook.server.shutdown()
    hook.server.server_close()


@pytest.mark.parametrize(
    ("recipient", "state", "status"),
    [
        ("+31612345678", "delivered", "delivered"),
        ("+447700900003", "expired", "temporary-failure"),
        ("07700 900003", "expired", "temporary-failure"),
        ("+447700900002", "undeliverable", "permanent-failure"),
        ("+44 7700 900002", "undeliverable", "permanent-failure"),
        ("+447700900001", "delivered", "delivered"),
        ("jan@example.nl", "delivered", "delivered"),
        ("temp-fail@simulator.notify", "expired", "temporary-failure"),
        ("Temp-Fail@example.nl", "expired", "temporary-failure"),
        ("perm-fail@simulator.notify", "undeliverable", "permanent-failure"),
        ("not-perm-fail@example.nl", "delivered", "delivered"),
    ],
)
def test_simulated_outcome_by_recipient(recipient: str, state: str, status: str) -> None:
    assert simulated_outcome(recipient) == state
    assert map_gateway_state(state) == status  # the receipt ends in the status Notify's test numbers give


def test_simulated_providers_return_a_fresh_reference_each_time() -> None:
    sms = SmsMessageData(notification_id="n-1", to="+31612345678", sender="Gemeente", body="Hallo")
    email = EmailMessageData(
        notification_id="n-2", to="jan@example.nl", from_address="Dienst <dienst@notify.example.nl>",
        reply_to=None, subject="Hallo", text_body="Hallo", html_body="<p>Hallo</p>", one_click_unsubscribe_url=None,
    )

    references = {SimulatedSmsProvider().send_sms(sms) for _ in range(3)}
    references |= {SimulatedEmailProvider().send_email(email) for _ in range(3)}

    assert len(references) == 6
    assert all(re.fullmatch(r"sim-[0-9a-f-]{36}", ref) for ref in references)
    assert SimulatedSmsProvider.name == SimulatedEmailProvider.name == "simulated"


def test_post_receipts_sends_the_batch_and_token_to_our_webhook(webhook: Webhook) -> None:
    receipt = simulated_receipt("sim-abc", "n-1", "+447700900002")
    other = simulated_receipt("sim-def", "n-2", "+31612345678")

    post_receipts(webhook.base_url + "/", "webhook-token", "simulated", [receipt, other])

    [request] = webhook.requests
    assert request["path"] == "/providers/simulated/delivery-receipts"
    assert request["authorization"] == "Bearer webhook-token"
    assert request["json"] == [receipt, other]
    assert receipt["id"] == "sim-abc"
    assert receipt["reference"] == "n-1"
    assert receipt["status"] == "undeliverable"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", receipt["timestamp"])


@pytest.mark.parametrize("status", [500, 503, 429])
def test_post_receipts_to_a_failing_webhook_is_retryable(webhook: Webhook, status: int) -> None:
    webhook.status = status

    with pytest.raises(RetryableProviderError):
        post_receipts(webhook.base_url, "t", "simulated", [simulated_receipt("sim-1", "n-1", "+31612345678")])


def test_post_receipts_refused_by_the_webhook_is_final(webhook: Webhook) -> None:
    webhook.status = 401

    with pytest.raises(FinalProviderError) as raised:
        post_receipts(webhook.base_url, "wrong", "simulated", [simulated_receipt("sim-1", "n-1", "+31612345678")])

    assert raised.value.status == "technical-failure"


def test_post_receipts_to_a_webhook_that_is_down_is_retryable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]

    with pytest.raises(RetryableProviderError):
        post_receipts(f"http://127.0.0.1:{port}", "t", "simulated", [{"id": "sim-1", "status": "delivered"}])


def test_the_registry_uses_simulators_when_nothing_is_configured() -> None:
    settings = dataclasses.replace(get_settings(), smtp_url=None, sms_gateway_url=None)

    assert isinstance(email_provider(settings), SimulatedEmailProvider)
    assert isinstance(sms_provider(settings), SimulatedSmsProvider)


def test_the_registry_uses_configured_providers_and_caches_them() -> None:
    settings = dataclasses.replace(
        get_settings(), smtp_url="smtp+starttls://u:p@mail.example.nl", sms_gateway_url="https://sms.example.nl/api",
        sms_gateway_token="gw-token", base_url="https://notify.example.nl",
    )

    smtp, gateway = email_provider(settings), sms_provider(settings)

    assert isinstance(smtp, SmtpProvider) and smtp.host == "mail.example.nl" and smtp.port == 587
    assert isinstance(gateway, HttpSmsGateway)
    assert gateway.callback_url == "https://notify.example.nl/providers/http-gateway/delivery-receipts"
    assert email_provider(settings) is smtp and sms_provider(settings) is gateway
    # Test keys never reach a real provider, whatever is configured.
    assert isinstance(email_provider(settings, simulated=True), SimulatedEmailProvider)
    assert isinstance(sms_provider(settings, simulated=True), SimulatedSmsProvider)
