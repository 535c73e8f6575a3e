"""HttpSmsGateway against a real HTTP server playing the gateway, and the receipt state table."""
from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pipeline.infrastructure.providers import (
    FinalProviderError,
    HttpSmsGateway,
    OutcomeUnknownError,
    RetryableProviderError,
    SmsMessageData,
    map_gateway_state,
)
from tests.fake_gateway import FakeGateway, fake_gateway  # noqa: F401 (fixture)

CALLBACK = "https://notify.example.nl/providers/http-gateway/delivery-receipts"


def make_sms(**overrides: str) -> SmsMessageData:
    fields = {
        "notification_id": "8c0e7a52-1b7d-4f0e-a3c4-2d9e6f1b0a11",
        "to": "+31612345678",
        "sender": "Gemeente",
        "body": "Uw code is 123456. Geldig tot 12:00 – één keer te gebruiken ✓",
    }
    fields.update(overrides)
    return SmsMessageData(**fields)


def test_the_body_and_bearer_token_arrive_exactly() -> None:
    with FakeGateway(token="gw-secret") as gateway:
        gateway_id = HttpSmsGateway(gateway.url, "gw-secret", callback_url=CALLBACK).send_sms(make_sms())

        [message] = gateway.wait_for_messages(1)
        assert message.payload == {
            "to": "+31612345678",
            "from": "Gemeente",
            "body": "Uw code is 123456. Geldig tot 12:00 – één keer te gebruiken ✓",
            "reference": "8c0e7a52-1b7d-4f0e-a3c4-2d9e6f1b0a11",
            "callback_url": CALLBACK,
        }
        assert message.headers["Authorization"] == "Bearer gw-secret"
        assert message.headers["Content-Type"] == "application/json"
        assert gateway_id == message.id


def test_a_proxy_named_in_the_environment_carries_the_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    class Proxy(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(self.path)
            answer = json.dumps({"id": "via-proxy", "status": "accepted"}).encode()
            self.send_response(201)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: object) -> None:
            pass

    proxy = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.server_port}")
    try:
        gateway = HttpSmsGateway("http://gateway.invalid", None, callback_url=CALLBACK)
        assert gateway.send_sms(make_sms()) == "via-proxy"
        assert seen == ["http://gateway.invalid/messages"]
    finally:
        proxy.shutdown()
        proxy.server_close()


def test_201_returns_the_gateway_id(fake_gateway: FakeGateway) -> None:
    client = HttpSmsGateway(fake_gateway.url, None, callback_url=CALLBACK)

    ids = [client.send_sms(make_sms(notification_id=str(n))) for n in range(3)]

    assert ids == ["gw-1", "gw-2", "gw-3"]
    assert [m.payload["reference"] for m in fake_gateway.messages] == ["0", "1", "2"]
    assert "Authorization" not in fake_gateway.messages[0].headers  # no token configured, none sent


def test_worker_threads_share_one_client(fake_gateway: FakeGateway) -> None:
    client = HttpSmsGateway(fake_gateway.url, None, callback_url=CALLBACK)
    threads = [
        threading.Thread(target=lambda n=n: [client.send_sms(make_sms(notification_id=f"n-{n}-{i}")) for i in range(5)])
        for n in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    references = sorted(m.payload["reference"] for m in fake_gateway.wait_for_messages(30))
    assert references == sorted(f"n-{n}-{i}" for n in range(6) for i in range(5))


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_server_errors_and_throttling_are_retryable(fake_gateway: FakeGateway, status: int) -> None:
    fake_gateway.fail_next(1, status)
    client = HttpSmsGateway(fake_gateway.url, None, callback_url=CALLBACK)

    with pytest.raises(RetryableProviderError, match=str(status)):
        client.send_sms(make_sms())

    assert client.send_sms(make_sms()) == "gw-1"  # the retry gets through
    assert len(fake_gateway.messages) == 1


@pytest.mark.parametrize("status", [400, 422])
def test_a_refused_recipient_is_final_permanent_failure(fake_gateway: FakeGateway, status: int) -> None:
    fake_gateway.fail_next(1, status)

    with pytest.raises(FinalProviderError) as raised:
        HttpSmsGateway(fake_gateway.url, None, callback_url=CALLBACK).send_sms(make_sms())

    assert raised.value.status == "permanent-failure"
    assert fake_gateway.messages == []


def test_a_400_about_another_field_is_final_technical_failure(fake_gateway: FakeGateway) -> None:
    fake_gateway.fail_next(1, 400, {"error": "Sender id too long", "field": "from"})

    with pytest.raises(FinalProviderError) as raised:
        HttpSmsGateway(fake_gateway.url, None, callback_url=CALLBACK).send_sms(make_sms())

    assert raised.value.status == "technical-failure"


def test_a_wrong_token_is_final_technical_failure() -> None:
    with FakeGateway(token="gw-secret") as gateway:
        with pytest.raises(FinalProviderError) as raised:
            HttpSmsGateway(gateway.url, "not-the-token", callback_url=CALLBACK).send_sms(make_sms())

        assert raised.value.status == "technical-failure"
        assert gateway.attempts == 1
        assert gateway.messages == []


@pytest.mark.parametrize("status", [403, 404])
def test_other_refusals_of_our_request_are_final_technical_failure(fake_gateway: FakeGateway, status: int) -> None:
    fake_gateway.fail_next(1, status)

    with pytest.raises(FinalProviderError) as raised:
        HttpSmsGateway(fake_gateway.url, None, callback_url=CALLBACK).send_sms(make_sms())

    assert raised.value.status == "technical-failure"


def test_a_gateway_slower_than_the_timeout_leaves_the_outcome_unknown(fake_gateway: FakeGateway) -> None:
    fake_gateway.stall_next(1, seconds=2.0)
    client = HttpSmsGateway(fake_gateway.url, None, callback_url=CALLBACK, timeout=0.3)

    started = time.monotonic()
    with pytest.raises(OutcomeUnknownError) as raised:
        client.send_sms(make_sms())
    assert time.monotonic() - started < 1.5  # gave up at the timeout, did not wait for the answer
    assert not raised.value.certainly_not_delivered  # the request went out: never sent again blindly

    assert client.send_sms(make_sms()) == "gw-1"


def test_a_gateway_that_is_not_listening_is_retryable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]

    with pytest.raises(RetryableProviderError) as raised:
        HttpSmsGateway(f"http://127.0.0.1:{port}", "t", callback_url=CALLBACK, timeout=2).send_sms(make_sms())
    assert raised.value.certainly_not_delivered


def test_a_2xx_without_an_id_leaves_the_outcome_unknown_so_the_message_is_not_sent_twice() -> None:
    class NoId(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), NoId)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        with pytest.raises(OutcomeUnknownError) as raised:
            HttpSmsGateway(f"http://127.0.0.1:{server.server_port}", None, callback_url=CALLBACK).send_sms(make_sms())
        assert str(raised.value) == "SMS gateway answered 200 in a form we cannot read: ok"
    finally:
        server.shutdown()
        server.server_close()


def test_the_gateway_posts_receipts_with_our_reference() -> None:
    received: list[tuple[dict, str]] = []

    class Webhook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append((body, self.headers["Authorization"]))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    webhook = ThreadingHTTPServer(("127.0.0.1", 0), Webhook)
    threading.Thread(target=webhook.serve_forever, args=(0.05,), daemon=True).start()
    url = f"http://127.0.0.1:{webhook.server_port}/providers/http-gateway/delivery-receipts"
    try:
        with FakeGateway() as gateway:
            gateway_id = HttpSmsGateway(gateway.url, None, callback_url=url).send_sms(make_sms())
            response = gateway.send_receipt(url, "webhook-token", gateway_id, "delivered")
    finally:
        webhook.shutdown()
        webhook.server_close()

    assert response.status_code == 204
    [(receipt, authorization)] = received
    assert authorization == "Bearer webhook-token"
    assert receipt["id"] == gateway_id
    assert receipt["reference"] == "8c0e7a52-1b7d-4f0e-a3c4-2d9e6f1b0a11"
    assert receipt["status"] == "delivered"
    assert receipt["timestamp"].endswith("Z")


@pytest.mark.parametrize(
    ("state", "status"),
    [
        ("delivered", "delivered"),
        ("pending", "pending"),
        ("buffered", "pending"),
        ("enroute", "pending"),
        ("undeliverable", "permanent-failure"),
        ("rejected", "permanent-failure"),
        ("invalid", "permanent-failure"),
        ("expired", "temporary-failure"),
        ("failed", "temporary-failure"),
        ("unreachable", "temporary-failure"),
        ("absent", "temporary-failure"),
        ("accepted", None),
        ("sent", None),
        ("DELIVERED", "delivered"),
        (" Expired ", "temporary-failure"),
        ("teleported", None),
        ("", None),
    ],
)
def test_map_gateway_state(state: str, status: str | None) -> None:
    assert map_gateway_state(state) == status
