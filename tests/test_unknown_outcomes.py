"""Sends whose outcome is unknown: pinned to their gateway, counted on the worker dashboard and in
/metrics, and settled by their gateway's lookup (Spryng's list of messages by our reference) or
their receipt; a text the lookup says is not there is sent again."""
from __future__ import annotations

import dataclasses
import datetime
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

import config
from models.db import utcnow
from models.notification import Notification
from pipeline.infrastructure.providers.sms import gateways
from pipeline.infrastructure.providers.sms.lookups import NOT_THERE, Found, lookup_for
from pipeline.stages import unknown_outcomes
from tests.conftest import wait_for
from tests.factories import create_key, create_notification, create_sample_template, create_service
from tests.fake_gateway import FakeGateway
from workers.unknown_outcomes import settle_unknown_outcomes

SPRYNG_KEY = "spryng-api-key"


class SpryngMessages:
    """Spryng's message list as its own libraries read it (GET {base}/messages, bearer API key, a
    filter by `reference`, a Laravel-style page: total, per_page, current_page, last_page,
    next_page_url, prev_page_url, from, to, data): https://github.com/Spryng/rest-api-node
    (src/resources/message-client.ts, src/interfaces/api.ts, src/spryng.ts: `filters[reference]=`),
    https://github.com/Spryng/rest-api-php (src/Spryng/SpryngRestApi/Resources/MessageClient.php).
    `messages`: the messages it holds; `ignores_filters`: answer every message, as an API that does
    not know the filter would; `failing`: answer 500."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.ignores_filters = False
        self.failing = False
        self.asked: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base_url = f"http://127.0.0.1:{self.server.server_port}/v1"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                url = urlsplit(self.path)
                if url.path != "/v1/messages":
                    return self._answer(404, {"message": "Not found"})
                if self.headers.get("Authorization") != f"Bearer {SPRYNG_KEY}":
                    return self._answer(401, {"message": "Unauthenticated."})
                if fake.failing:
                    return self._answer(500, {"message": "Server Error"})
                query = parse_qs(url.query)
                reference = (query.get("filters[reference]") or [None])[0]
                fake.asked.append(reference or "")
                data = [m for m in fake.messages if fake.ignores_filters or reference is None
                        or m["reference"] == reference]
                return self._answer(200, {"total": len(data), "per_page": 15, "current_page": 1, "last_page": 1,
                                          "next_page_url": None, "prev_page_url": None, "from": 1 if data else None,
                                          "to": len(data) or None, "data": data})

            def _answer(self, status: int, body: dict[str, Any]) -> None:
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def hold(self, reference: str, spryng_id: str) -> None:
        self.messages.append({"id": spryng_id, "encoding": "plain", "body": "Hello there", "route": "business",
                              "originator": "Gemeente", "recipients": ["31612345678"], "reference": reference,
                              "createdAt": "2026-11-28T12:00:00+00:00", "updatedAt": "2026-11-28T12:00:00+00:00",
                              "links": []})


@pytest.fixture
def spryng() -> Iterator[SpryngMessages]:
    fake = SpryngMessages()
    before = config.get_settings()
    config._settings = dataclasses.replace(before, sms_gateway_url=None, sms_gateways=json.dumps(
        [{"name": "spryng-gw", "type": "spryng", "url": fake.base_url, "token": SPRYNG_KEY}]))
    gateways._synced.clear()
    try:
        yield fake
    finally:
        config._settings = before
        gateways._synced.clear()
        fake.server.shutdown()
        fake.server.server_close()


def unknown_text(minutes_ago: float = 5, sent_by: str = "spryng-gw") -> Notification:
    """A text whose send went out `minutes_ago` and never got an answer: claimed, pinned, created."""
    service = create_service()
    return create_notification(service=service, template=create_sample_template(service=service),
                               dispatch_started_at=utcnow() - datetime.timedelta(minutes=minutes_ago), sent_by=sent_by)


def test_spryng_is_asked_by_our_reference_and_what_it_has_is_recorded_as_sent(spryng):
    text = unknown_text()
    spryng.hold(str(text.id), "spryng-17")

    settle_unknown_outcomes()

    found = Notification.get_by_id(text.id)
    assert (found.status, found.sent_by, found.provider_reference) == ("sending", "spryng-gw", "spryng-17")
    assert spryng.asked == [str(text.id)]


def test_a_text_spryng_does_not_have_is_given_back_and_sent_again(spryng):
    text = unknown_text()

    settled = unknown_outcomes.settle(utcnow(), {"spryng-gw": _spryng_lookup()})

    assert [str(n.id) for n in settled.not_there] == [str(text.id)]
    released = Notification.get_by_id(text.id)
    assert (released.status, released.dispatch_started_at, released.sent_by) == ("created", None, None)


@pytest.mark.parametrize("trouble", ["ignores_filters", "failing"])
def test_an_answer_that_cannot_be_trusted_changes_nothing(spryng, trouble):
    text = unknown_text()
    other = unknown_text(minutes_ago=6)
    spryng.hold(str(other.id), "spryng-1")  # on the list when the filter is not applied
    setattr(spryng, trouble, True)

    settled = unknown_outcomes.settle(utcnow(), {"spryng-gw": _spryng_lookup()})

    if trouble == "ignores_filters":  # the other one is found, ours neither found nor "not there"
        assert settled.found == [str(other.id)] and settled.not_there == []
    else:
        assert settled.found == [] and settled.not_there == []
    assert Notification.get_by_id(text.id).dispatch_started_at is not None  # still waiting


def test_a_send_younger_than_its_receipts_grace_is_not_asked_about(spryng):
    unknown_text(minutes_ago=1)
    assert unknown_outcomes.settle(utcnow(), {"spryng-gw": _spryng_lookup()}).not_there == []
    assert spryng.asked == []


def test_providers_without_a_lookup_are_not_asked():
    assert lookup_for("twilio", "https://api.twilio.com", "t", timeout=1) is None
    assert lookup_for("cm", "https://gw.messaging.cm.com", "t", timeout=1) is None
    assert lookup_for("json", "https://sms.example.nl", "t", timeout=1) is None


def _spryng_lookup():
    row = next(row for row in gateways.in_use(config.get_settings()) if row.name == "spryng-gw")
    lookup = lookup_for(row.type, row.url, row.token, timeout=2)
    assert lookup is not None
    return lookup


def test_a_lookup_answers_found_or_not_there(spryng):
    spryng.hold("ref-1", "spryng-1")
    lookup = _spryng_lookup()
    assert lookup("ref-1") == Found("spryng-1")
    assert lookup("ref-2") is NOT_THERE


def test_a_send_of_unknown_outcome_is_pinned_counted_and_settled_by_its_receipt(client, live_server, worker):
    with FakeGateway(token="gw-token") as gateway:
        before = config.get_settings()
        config._settings = dataclasses.replace(before, sms_gateway_url=gateway.url, sms_gateway_token="gw-token",
                                               sms_gateways=None, sms_gateway_timeout_seconds=0.5)
        gateways._synced.clear()
        try:
            service = create_service()
            template = create_sample_template(service=service, body="Your code is 1234")
            api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
            gateway.hang_next(1, seconds=2.0)  # taken, answered after our timeout
            text_id = api.send_sms_notification("0612345678", str(template.id))["id"]
            gateway.wait_for_messages(1)
            wait_for(lambda: Notification.get_by_id(text_id).sent_by == "http-gateway")
            # As if its send had gone out five minutes ago and no receipt came since.
            Notification.update(dispatch_started_at=utcnow() - datetime.timedelta(minutes=5)).where(
                Notification.id == text_id).execute()

            assert unknown_outcomes.waiting(utcnow(), config.get_settings())[0] == \
                unknown_outcomes.Waiting("sms", 1, pytest.approx(300, abs=10))
            metrics = client.get("/metrics").get_data(as_text=True)
            assert 'notify_sends_outcome_unknown{channel="sms"} 1.0' in metrics

            [message] = gateway.messages
            gateway.send_receipt(message.payload["callback_url"], config.get_settings().provider_webhook_token,
                                 message.id, "delivered")
            wait_for(lambda: Notification.get_by_id(text_id).status == "delivered")
            assert unknown_outcomes.waiting(utcnow(), config.get_settings())[0].count == 0
        finally:
            config._settings = before
            gateways._synced.clear()
