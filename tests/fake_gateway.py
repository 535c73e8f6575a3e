"""A real HTTP server on 127.0.0.1 that plays an SMS gateway, for tests.

    with FakeGateway(token="gw-token") as gateway:          # or the `fake_gateway` fixture below
        HttpSmsGateway(gateway.url, "gw-token", callback_url=...).send_sms(...)
        [message] = gateway.wait_for_messages(1)
        message.payload["to"], message.headers["Authorization"], message.id
        gateway.send_receipt(message.payload["callback_url"], webhook_token, message.id, "delivered")

It speaks our own JSON gateway protocol, or with `dialect` "spryng", "cm" or "twilio" that provider's,
each written from its documentation and strict about it (tests/fake_providers.py: its path and
method, authentication, content type and required fields, answers, refusals, reports and received
texts; Spryng and CM post reports to `report_url`, the address set in their portals, Twilio to the
StatusCallback of each message). A request the provider would refuse gets the provider's refusal and
is not recorded. `base_url` is what an operator configures as the gateway's url (Spryng's has its
/v1). Below, for the JSON protocol:
- POST /messages: records the message and answers 201 {"id": "gw-<n>", "status": "accepted"};
  with `token` set, a missing or wrong bearer token gets 401.
- fail_next(n, status=500, body=None): the next n POSTs get that answer and are not recorded
  (a 400/422 comes with {"error": "Invalid recipient", "field": "to"} unless `body` says otherwise).
- stall_next(n, seconds): the next n POSTs wait `seconds` before answering 504, not recorded: a client
  timeout shorter than that sees a gateway that never answered.
- send_receipt(url, token, gateway_id, state): posts a delivery receipt to `url` the way a gateway
  does (format in pipeline/infrastructure/providers/sms/receipts.py); returns the requests.Response.
- report(token, state="delivered", before_answer=False): from now on every accepted message gets a
  receipt posted to its callback_url, as real gateways do: before our answer goes out (the receipt
  overtakes it) or just after. A receipt the webhook does not take (5xx, 503 in an outage, refused
  connection) is posted again every 0.2 s for up to `receipt_retry_seconds` (60).
- hang_next(n, seconds): the next n messages are taken (recorded, reported) but the answer comes
  only after `seconds`: a client timeout shorter than that cannot know the message arrived.
- references(): how often each of our references was accepted (a count above 1 is a duplicate).
- send_inbound(url, token, to, sender, text, message_id=None): posts a text sent to one of our numbers.
Attributes: url, messages (accepted ReceivedMessage list, in order), attempts (POSTs seen),
receipts_posted (receipts the webhook took).
"""
from __future__ import annotations

import collections
import json
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests
from requests.structures import CaseInsensitiveDict

from tests.fake_providers import DIALECTS


@dataclass(frozen=True)
class ReceivedMessage:
    id: str  # the gateway id we answered with
    payload: dict[str, Any]  # the JSON body exactly as posted (Twilio's form, as a dict)
    headers: Mapping[str, str]  # as received; names looked up case-insensitively
    reference: str | None = None  # our notification id, wherever the dialect carries it


class FakeGateway:
    def __init__(self, *, token: str | None = None, receipt_retry_seconds: float = 60.0, dialect: str = "json",
                 account_sid: str | None = None, report_url: str | None = None) -> None:
        self.token = token
        self.dialect = DIALECTS[dialect](token, account_sid)
        self.report_url = report_url
        self.messages: list[ReceivedMessage] = []
        self.attempts = 0
        self.receipts_posted = 0
        self.inbound_sent = 0
        self.receipt_retry_seconds = receipt_retry_seconds
        # ("fail", status, body), ("stall", seconds, None) or ("hang", seconds, None)
        self._plan: list[tuple[str, Any, Any]] = []
        self._reporting: tuple[str, str, bool] | None = None  # (webhook token, state, before answer)
        # ("fail", until (monotonic), status) or ("hang", until, seconds): every request until then.
        self._outage: tuple[str, float, Any] | None = None
        self._lock = threading.Condition()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        self.base_url = self.url + self.dialect.base_path
        self._thread: threading.Thread | None = None

    def start(self) -> FakeGateway:
        # A short poll interval: shutdown() waits for one poll, and tests stop servers often.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def report(self, token: str, state: str = "delivered", *, before_answer: bool = False) -> None:
        with self._lock:
            self._reporting = (token, state, before_answer)

    def hang_next(self, n: int, seconds: float) -> None:
        with self._lock:
            self._plan.extend([("hang", seconds, None)] * n)

    def references(self) -> collections.Counter:
        with self._lock:
            return collections.Counter(m.reference for m in self.messages)

    def __enter__(self) -> FakeGateway:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def fail_for(self, seconds: float, status: int = 500) -> None:
        """An outage: every request of the next `seconds` is answered `status`."""
        with self._lock:
            self._outage = ("fail", time.monotonic() + seconds, status)

    def hang_for(self, seconds: float, hang: float) -> None:
        """A gateway in trouble: every text of the next `seconds` is taken, and answered `hang` seconds late."""
        with self._lock:
            self._outage = ("hang", time.monotonic() + seconds, hang)

    def fail_next(self, n: int, status: int = 500, body: dict[str, Any] | None = None) -> None:
        with self._lock:
            self._plan.extend([("fail", status, body)] * n)

    def stall_next(self, n: int, seconds: float) -> None:
        with self._lock:
            self._plan.extend([("stall", seconds, None)] * n)

    def wait_for_messages(self, count: int, timeout: float = 5.0) -> list[ReceivedMessage]:
        """Block until at least `count` messages were accepted; return them all (AssertionError on timeout)."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.messages) >= count, timeout):
                raise AssertionError(f"gateway accepted {len(self.messages)} messages, expected {count}")
            return list(self.messages)

    def send_receipt(self, url: str, token: str, gateway_id: str, state: str) -> requests.Response:
        with self._lock:
            reference = next((m.reference for m in self.messages if m.id == gateway_id), None)
        return self.dialect.post_receipt(url, token, gateway_id, reference, state)

    def receipt_url(self, message: ReceivedMessage) -> str:
        """Where this gateway posts the message's reports."""
        return self.dialect.receipt_url(message.payload, self.report_url)

    def send_inbound(self, url: str, token: str, to: str, sender: str, text: str,
                     message_id: str | None = None) -> requests.Response:
        """`message_id`: the provider's id of the text (a new one when not given; the same one again
        is a redelivery)."""
        with self._lock:
            self.inbound_sent += 1
            message_id = message_id or f"in-{self.inbound_sent}"
        return self.dialect.post_inbound(url, token, to, sender, text, message_id)

    def _post_receipt(self, message: ReceivedMessage, token: str, state: str) -> None:
        """Post until the webhook takes it, as a gateway retries its webhooks (bounded)."""
        deadline = time.monotonic() + self.receipt_retry_seconds
        while True:
            try:
                if self.send_receipt(self.receipt_url(message), token, message.id, state).ok:
                    with self._lock:
                        self.receipts_posted += 1
                    return
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                return
            time.sleep(0.2)

    def _handle(self, headers: Mapping[str, str], raw: bytes) -> tuple[int, dict[str, Any], float]:
        """(status, JSON answer, seconds to wait first) for one POST /messages."""
        status, answer, delay, message = self._take(headers, raw)
        reporting = self._reporting
        if message is not None and reporting is not None:
            token, state, before_answer = reporting
            if before_answer:
                self._post_receipt(message, token, state)
            else:
                threading.Thread(target=self._post_receipt, args=(message, token, state), daemon=True).start()
        return status, answer, delay

    def _take(self, headers: Mapping[str, str],
              raw: bytes) -> tuple[int, dict[str, Any], float, ReceivedMessage | None]:
        with self._lock:
            self.attempts += 1
            outage = self._outage if self._outage and time.monotonic() < self._outage[1] else None
            step = (outage[0], outage[2], None) if outage else self._plan.pop(0) if self._plan else None
            if step and step[0] == "stall":
                return 504, {"error": "Gateway timeout"}, step[1], None
            if step and step[0] != "hang":
                status, default = self.dialect.refusal(step[1])
                return status, step[2] if step[2] is not None else default, 0, None
            payload, refused = self.dialect.check(headers, raw)
            if payload is None:
                return (*(refused or self.dialect.refusal(400)), 0, None)
            message = ReceivedMessage(id=self.dialect.message_id(len(self.messages) + 1, payload), payload=payload,
                                      headers=headers, reference=self.dialect.reference(payload))
            self.messages.append(message)
            self._lock.notify_all()
            status, answer = self.dialect.accepted(message.id, payload)
            return status, answer, step[1] if step else 0, message


def _handler_for(gateway: FakeGateway) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the client's Session expects

        def do_POST(self) -> None:  # noqa: N802
            self._route("POST")

        def do_GET(self) -> None:  # noqa: N802
            self._route("GET")

        def do_PUT(self) -> None:  # noqa: N802
            self._route("PUT")

        def do_PATCH(self) -> None:  # noqa: N802
            self._route("PATCH")

        def do_DELETE(self) -> None:  # noqa: N802
            self._route("DELETE")

        def _route(self, method: str) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.split("?", 1)[0]
            if path.rstrip("/") != gateway.dialect.path:
                self._answer(*gateway.dialect.not_found(path))
            elif method != "POST":
                self._answer(*gateway.dialect.method_not_allowed(method))
            else:
                status, answer, delay = gateway._handle(CaseInsensitiveDict(self.headers.items()), raw)
                if delay:
                    time.sleep(delay)
                self._answer(status, answer)

        def _answer(self, status: int, answer: dict[str, Any]) -> None:
            body = json.dumps(answer).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # a client that timed out has gone; nothing to tell it

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

    return Handler


@pytest.fixture
def fake_gateway() -> Iterator[FakeGateway]:
    """A running FakeGateway without a token check; import this name into a test module to use it."""
    with FakeGateway() as gateway:
        yield gateway
