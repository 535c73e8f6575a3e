"""Callbacks to services, end to end: the API, a real worker on real Redis, a real HTTP receiver."""
from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

from config import get_settings
from models.callback_attempt import CallbackAttempt
from models.crypto import encrypt
from models.notification import Notification, ReceivedText
from models.service import InboundNumber, ServiceCallback
from pipeline.domain.formatting import iso
from pipeline.stages.callbacks import callback_id
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_sample_template, create_service

TOKEN = "callback-token-1234"


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict:
        return json.loads(self.body)


class Receiver:
    """A service's callback endpoint: records every request; answers `fail_status` to the first
    `fail_first` of them, then 200."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.fail_first, self.fail_status = 0, 500
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    receiver.requests.append(Request("POST", self.path, dict(self.headers), body))
                    failing = len(receiver.requests) <= receiver.fail_first
                self.send_response(receiver.fail_status if failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_port}/callback"
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()

    def wait_for(self, count: int) -> list[Request]:
        wait_for(lambda: len(self.requests) >= count)
        return self.requests

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    receiver = Receiver()
    yield receiver
    receiver.close()


@pytest.fixture
def service():
    return create_service(permissions=["sms", "email", "international_sms", "inbound_sms"])


def register(service, receiver: Receiver, kind: str = "delivery-status") -> None:
    ServiceCallback.create(service=service, kind=kind, url=receiver.url, bearer_token_encrypted=encrypt(TOKEN))


def send_sms(service, live_server, to: str = "0612345678", key_type: str = "test") -> str:
    template = create_sample_template(service=service, body="Hi ((name))")
    api = NotificationsAPIClient(create_key(service=service, key_type=key_type), base_url=live_server)
    return api.send_sms_notification(to, str(template.id), {"name": "x"}, reference="ref-1")["id"]


def assert_signed(request: Request) -> None:
    assert request.headers["Authorization"] == f"Bearer {TOKEN}"
    assert request.headers["Content-Type"] == "application/json"
    timestamp = request.headers["X-Notify-Timestamp"]
    assert abs(int(timestamp) - time.time()) < 60
    expected = hmac.new(TOKEN.encode(), f"{timestamp}.".encode() + request.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request.headers["X-Notify-Signature"], f"sha256={expected}")


def attempts(subject_id) -> list[CallbackAttempt]:
    return list(CallbackAttempt.select().where(CallbackAttempt.subject_id == subject_id)
                .order_by(CallbackAttempt.attempt))


def test_delivered_sms_is_reported_once_signed(service, receiver, live_server, worker):
    register(service, receiver)
    notification_id = send_sms(service, live_server)
    wait_for(lambda: status_of(notification_id) == "delivered")
    [request] = receiver.wait_for(1)
    stored = Notification.get_by_id(notification_id)
    assert (request.method, request.path) == ("POST", "/callback")
    assert request.json == {
        "id": notification_id, "reference": "ref-1", "to": "0612345678", "status": "delivered",
        "created_at": iso(stored.created_at), "completed_at": iso(stored.completed_at),
        "sent_at": iso(stored.sent_at), "notification_type": "sms", "template_id": str(stored.template_id),
        "template_version": 1,
    }
    assert_signed(request)
    assert request.headers["X-Notify-Callback-Id"] == callback_id("delivery-status", notification_id, "delivered")
    wait_for(lambda: attempts(notification_id))
    time.sleep(0.3)  # nothing else on its way
    assert len(receiver.requests) == 1
    [attempt] = attempts(notification_id)
    assert (attempt.kind, attempt.event, attempt.attempt, attempt.status_code, attempt.error, attempt.url) == \
        ("delivery-status", "delivered", 1, 200, None, receiver.url)


@pytest.mark.parametrize("status", [500, 503, 429])
def test_a_failing_receiver_is_retried_until_it_answers(service, receiver, live_server, worker, status):
    register(service, receiver)
    receiver.fail_first, receiver.fail_status = 1, status
    notification_id = send_sms(service, live_server)
    first, second = receiver.wait_for(2)
    assert first.json == second.json and second.json["status"] == "delivered"
    # The same id on the repeat: a receiver that had the first drops it.
    assert first.headers["X-Notify-Callback-Id"] == second.headers["X-Notify-Callback-Id"]
    assert_signed(second)
    wait_for(lambda: len(attempts(notification_id)) == 2)
    assert [(a.attempt, a.status_code) for a in attempts(notification_id)] == [(1, status), (2, 200)]
    time.sleep(0.3)
    assert len(receiver.requests) == 2


def test_a_refusal_is_not_retried(service, receiver, live_server, worker):
    register(service, receiver)
    receiver.fail_first, receiver.fail_status = 10, 400
    notification_id = send_sms(service, live_server)
    receiver.wait_for(1)
    wait_for(lambda: attempts(notification_id))
    time.sleep(0.5)  # well past the 50 ms test backoff: a retry would have come
    assert len(receiver.requests) == 1
    assert [(a.attempt, a.status_code) for a in attempts(notification_id)] == [(1, 400)]


def test_retries_are_bounded(service, receiver, live_server, worker, monkeypatch):
    import workers.callbacks

    monkeypatch.setattr(workers.callbacks, "MAX_ATTEMPTS", 3)
    register(service, receiver)
    receiver.fail_first = 100
    notification_id = send_sms(service, live_server)
    wait_for(lambda: len(attempts(notification_id)) == 3)
    time.sleep(1.0)
    assert len(receiver.requests) == 3
    assert [a.status_code for a in attempts(notification_id)] == [500, 500, 500]


def test_an_unreachable_receiver_is_recorded_and_retried(service, live_server, worker):
    closed = Receiver()
    closed.close()  # nothing listens on its port any more
    register(service, closed)
    notification_id = send_sms(service, live_server)
    wait_for(lambda: len(attempts(notification_id)) >= 2)
    first = attempts(notification_id)[0]
    assert first.status_code is None and first.error.startswith("ConnectionError")


def test_sent_international_sms_is_reported(service, receiver, live_server, worker, real_providers):
    register(service, receiver)
    notification_id = send_sms(service, live_server, to="+44 7900 900123", key_type="live")
    wait_for(lambda: status_of(notification_id) == "sent")
    [request] = receiver.wait_for(1)
    assert request.json["status"] == "sent" and request.json["id"] == notification_id
    assert request.json["sent_at"] is not None and request.json["completed_at"] is None


def test_no_callback_for_a_service_without_one(service, receiver, live_server, worker):
    other = create_service()
    register(other, receiver)  # some service has one: the listener looks, and finds none for this one
    notification_id = send_sms(service, live_server)
    wait_for(lambda: status_of(notification_id) == "delivered")
    time.sleep(0.5)
    assert receiver.requests == [] and attempts(notification_id) == []


def test_a_received_text_is_reported(client, service, receiver, worker):
    register(service, receiver, kind="inbound-sms")
    InboundNumber.create(number="+3197010000001", service=service)
    response = client.post("/providers/sms-gateway/inbound-sms", json={
        "to": "+3197010000001", "from": "+31 6 12345678", "message": "Stop", "id": "gw-1"},
        headers={"Authorization": f"Bearer {get_settings().provider_webhook_token}"})
    assert response.status_code == 200
    [request] = receiver.wait_for(1)
    text = ReceivedText.get()
    assert request.json == {"id": str(text.id), "source_number": "+31612345678",
                            "destination_number": "+3197010000001", "message": "Stop",
                            "date_received": iso(text.created_at)}
    assert_signed(request)
    assert request.headers["X-Notify-Callback-Id"] == callback_id("inbound-sms", str(text.id), "received")
    wait_for(lambda: attempts(text.id))
    [attempt] = attempts(text.id)
    assert (attempt.kind, attempt.event, attempt.status_code) == ("inbound-sms", "received", 200)
