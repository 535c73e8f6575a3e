"""Outbound addresses (service callbacks, SMS gateways): refused where they are saved, in every notation,
and again where they are connected to; what a service sees of a failed callback."""
from __future__ import annotations

import dataclasses
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

import config
from models.crypto import encrypt
from models.service import ServiceCallback
from pipeline.infrastructure import outbound
from pipeline.infrastructure.providers.errors import RetryableProviderError, SmsMessageData
from pipeline.infrastructure.providers.sms import gateways
from pipeline.infrastructure.providers.sms.http_gateway import HttpSmsGateway
from pipeline.stages import callbacks
from tests.admin_helpers import admin_headers, errors
from tests.conftest import wait_for
from tests.fake_gateway import FakeGateway
from tests.fake_sns import issue, pem, self_signed
from tests.test_callbacks import Receiver, attempts, send_sms

NOT_HTTPS = "url is not a valid https url"
CREDENTIALS = "url must not contain a user name or password"
NOT_PUBLIC = "url must be a public internet address"
# The issue's list, each with what the admin API answers when loopback is not allowed.
NOTATIONS = [
    ("https://127.0.0.1:8443/cb", NOT_PUBLIC), ("https://[::1]/cb", NOT_PUBLIC), ("https://localhost./cb", NOT_PUBLIC),
    ("https://localhost/cb", NOT_PUBLIC), ("https://0.0.0.0/cb", NOT_PUBLIC), ("https://2130706433/cb", NOT_PUBLIC),
    ("https://0x7f000001/cb", NOT_PUBLIC), ("https://127.0.0.1./cb", NOT_PUBLIC), ("https://127.1/cb", NOT_PUBLIC),
    ("https://0177.0.0.1/cb", NOT_PUBLIC),
    ("https://[::ffff:127.0.0.1]/cb", NOT_PUBLIC), ("https://[::ffff:7f00:1]/cb", NOT_PUBLIC),
    ("https://10.0.0.1/cb", NOT_PUBLIC), ("https://192.168.1.1/cb", NOT_PUBLIC), ("https://172.16.0.1/cb", NOT_PUBLIC),
    ("https://100.64.0.1/cb", NOT_PUBLIC), ("https://169.254.169.254/latest", NOT_PUBLIC),
    ("https://[fe80::1]/cb", NOT_PUBLIC), ("https://[fd00:ec2::254]/cb", NOT_PUBLIC),
    ("https://224.0.0.1/cb", NOT_PUBLIC), ("https://240.0.0.1/cb", NOT_PUBLIC), ("https://[ff02::1]/cb", NOT_PUBLIC),
    ("https://[2002:7f00:1::]/cb", NOT_PUBLIC), ("https://[64:ff9b::a00:1]/cb", NOT_PUBLIC),
    ("https://metadata.google.internal/computeMetadata/v1/", NOT_PUBLIC), ("https://metadata/cb", NOT_PUBLIC),
    ("https://intranet/cb", NOT_PUBLIC), ("https://printer.local/cb", NOT_PUBLIC),
    ("https://user:pass@127.0.0.1/cb", CREDENTIALS), ("https://user@service.example.nl/cb", CREDENTIALS),
    ("http://127.0.0.1:8080/cb", NOT_HTTPS), ("http://10.0.0.1/cb", NOT_HTTPS),
    ("http://service.example.nl/cb", NOT_HTTPS), ("https://service.example.nl:99999/cb", NOT_HTTPS),
]
LOOPBACK = {"https://127.0.0.1:8443/cb", "https://[::1]/cb", "https://localhost./cb", "https://localhost/cb",
            "https://2130706433/cb", "https://127.0.0.1./cb", "https://0x7f000001/cb", "https://127.1/cb", "https://0177.0.0.1/cb",
            "https://[::ffff:127.0.0.1]/cb", "https://[::ffff:7f00:1]/cb", "https://[2002:7f00:1::]/cb",
            "http://127.0.0.1:8080/cb"}
TOKEN = "callback-token-1234"


@pytest.fixture
def no_loopback(monkeypatch):
    """As in production: CALLBACKS_ALLOW_HTTP_LOOPBACK off (the tests' default is on)."""
    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(),
                                                                 callbacks_allow_http_loopback=False))


def put_callback(client, service_id, url, kind="delivery-status"):
    return client.put(f"/admin/services/{service_id}/callbacks/{kind}", json={"url": url, "bearer_token": TOKEN},
                      headers=admin_headers())


@pytest.mark.parametrize("kind", ["delivery-status", "inbound-sms"])
def test_every_notation_is_refused_by_the_admin_api(client, service, no_loopback, kind):
    for url, problem in NOTATIONS:
        assert errors(put_callback(client, service.id, url, kind)) == (400, [("ValidationError", problem)]), url
    assert ServiceCallback.select().count() == 0
    assert put_callback(client, service.id, "https://8.8.8.8/cb", kind).status_code == 200


def test_allowing_loopback_allows_loopback_and_nothing_else(client, service):
    for url, problem in NOTATIONS:
        response = put_callback(client, service.id, url)
        if url in LOOPBACK:
            assert response.status_code == 200, url
        else:
            assert errors(response) == (400, [("ValidationError", problem)]), url


@pytest.mark.parametrize("resolved", [
    ["127.0.0.1"], ["10.1.2.3"], ["169.254.169.254"], ["::1"], ["::ffff:10.0.0.1"], ["fd00::1"], ["0.0.0.0"],
    ["93.184.215.14", "192.168.0.10"],  # one private address among public ones refuses the name
])
def test_a_name_is_checked_again_where_it_is_connected_to(resolved):
    def resolver(host, port):
        assert (host, port) == ("callbacks.example.nl", 443)
        return resolved

    with pytest.raises(outbound.RefusedAddress):
        outbound.connectable_addresses("callbacks.example.nl", 443, plain_http=False, allow_loopback=False,
                                       resolver=resolver)


def test_a_public_name_connects_to_the_addresses_it_resolved_to():
    found = ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]
    assert outbound.connectable_addresses("callbacks.example.nl", 443, plain_http=False, allow_loopback=False,
                                          resolver=lambda host, port: found) == found
    with pytest.raises(outbound.RefusedAddress):  # plain http goes to loopback only
        outbound.connectable_addresses("callbacks.example.nl", 80, plain_http=True, allow_loopback=True,
                                       resolver=lambda host, port: found)
    assert outbound.connectable_addresses("localhost", 80, plain_http=True, allow_loopback=True,
                                          resolver=lambda host, port: ["127.0.0.1"]) == ["127.0.0.1"]


class _Echo:
    """An HTTP server on 127.0.0.1 counting the connections made to it and recording each request's Host;
    over TLS with `tls` (a server context), recording the name each handshake asked for (SNI) too."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.hosts: list[str] = []
        self.server_names: list[str | None] = []
        self.connections = 0
        echo = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                echo.hosts.append(self.headers["Host"])
                self.send_response(204)
                self.end_headers()

            do_POST = do_GET  # noqa: N815

            def log_message(self, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            def get_request(self):  # noqa: ANN202
                echo.connections += 1
                return super().get_request()

        self.server = Server(("127.0.0.1", 0), Handler)
        if tls is not None:
            tls.sni_callback = lambda _socket, name, _context: echo.server_names.append(name)
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_connection_goes_to_the_checked_address_under_the_name(monkeypatch):
    echo = _Echo()
    names = {"rebound.example.nl": ["127.0.0.1"]}
    monkeypatch.setattr(outbound, "system_resolver", lambda host, port: names[host])
    pool = outbound.checked_pool_manager(retries=False)
    try:
        # Loopback allowed (the tests' setting): the name's checked address is connected to, the name kept.
        assert pool.request("GET", f"http://rebound.example.nl:{echo.port}/").status == 204
        assert echo.hosts == [f"rebound.example.nl:{echo.port}"]
        monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(),
                                                                     callbacks_allow_http_loopback=False))
        pool.clear()
        with pytest.raises(outbound.RefusedAddress):
            pool.request("GET", f"http://rebound.example.nl:{echo.port}/")
        assert len(echo.hosts) == 1 and echo.connections == 1
    finally:
        echo.close()


@pytest.fixture
def tls_for_a_name(tmp_path):
    """A server context with a certificate for rebound.example.nl, and the file of the CA that issued it."""
    ca_key, server_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = self_signed(ca_key, "Test CA", ca=True)
    (tmp_path / "server.pem").write_bytes(pem(issue(ca_key, ca, server_key, "rebound.example.nl")))
    (tmp_path / "server.key").write_bytes(server_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    (tmp_path / "ca.pem").write_bytes(pem(ca))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "server.pem", tmp_path / "server.key")
    return context, str(tmp_path / "ca.pem")


def test_over_tls_the_checked_address_is_connected_to_and_the_name_verified(monkeypatch, tls_for_a_name):
    context, ca_file = tls_for_a_name
    echo = _Echo(context)
    names = {"rebound.example.nl": ["127.0.0.1"]}
    monkeypatch.setattr(outbound, "system_resolver", lambda host, port: names[host])
    pool = outbound.checked_pool_manager(retries=False, ca_certs=ca_file)
    try:
        assert pool.request("GET", f"https://rebound.example.nl:{echo.port}/").status == 204
        # The handshake named the host (SNI), its certificate was checked against the name, the Host header kept it.
        assert echo.server_names == ["rebound.example.nl"]
        assert echo.hosts == [f"rebound.example.nl:{echo.port}"]
        # Re-pointed inside (rebinding), with loopback not allowed: refused where the connection is made.
        monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(),
                                                                     callbacks_allow_http_loopback=False))
        pool.clear()
        with pytest.raises(outbound.RefusedAddress):
            pool.request("GET", f"https://rebound.example.nl:{echo.port}/")
        assert echo.connections == 1
    finally:
        echo.close()


def test_a_name_whose_first_address_does_not_answer_is_connected_at_the_next(monkeypatch):
    echo = _Echo()  # on 127.0.0.1 only: at 127.0.0.2 and 127.0.0.3 the connection is refused
    monkeypatch.setattr(outbound, "system_resolver", lambda host, port: ["127.0.0.2", "127.0.0.1", "127.0.0.3"])
    pool = outbound.checked_pool_manager(retries=False)
    try:
        assert pool.request("GET", f"http://two.example.nl:{echo.port}/").status == 204
        assert echo.hosts == [f"two.example.nl:{echo.port}"] and echo.connections == 1
    finally:
        echo.close()


def test_a_callback_whose_name_now_resolves_inside_is_not_connected_to(monkeypatch, no_loopback):
    echo = _Echo()
    monkeypatch.setattr(outbound, "system_resolver", lambda host, port: ["127.0.0.1"])
    try:
        outcome = callbacks.post(f"https://rebound.example.nl:{echo.port}/cb", TOKEN, {"id": "x"}, "callback-1")
        assert outcome.status_code is None and not outcome.retryable
        assert outcome.error == "RefusedAddress: rebound.example.nl is, or resolves to, 127.0.0.1: " \
                                "not a public internet address"
        time.sleep(0.2)
        assert echo.connections == 0
    finally:
        echo.close()


def test_a_stored_loopback_callback_is_not_connected_to(service, live_server, worker, no_loopback):
    receiver = Receiver()
    try:
        # Saved before the rules (or by hand): the worker checks again and does not connect.
        ServiceCallback.create(service=service, kind="delivery-status", url=receiver.url,
                               bearer_token_encrypted=encrypt(TOKEN))
        notification_id = send_sms(service, live_server)
        wait_for(lambda: len(attempts(notification_id)) == 1)
        time.sleep(0.5)
        [attempt] = attempts(notification_id)  # refused is final: not retried
        assert attempt.status_code is None and attempt.error.startswith("RefusedAddress")
        assert receiver.requests == []
    finally:
        receiver.close()


def test_sms_gateway_urls_follow_the_same_rules(client, no_loopback):
    body = {"name": "gw-internal", "token": "secret", "priority": 5}
    for url, problem in NOTATIONS:
        assert errors(client.post("/admin/sms-gateways", json={**body, "url": url}, headers=admin_headers())) == \
            (400, [("ValidationError", problem)]), url
    created = client.post("/admin/sms-gateways", json={**body, "url": "https://8.8.8.8/api"}, headers=admin_headers())
    assert created.status_code == 201
    assert errors(client.patch(f"/admin/sms-gateways/{created.get_json()['id']}", json={"url": "https://10.0.0.1/api"},
                               headers=admin_headers())) == (400, [("ValidationError", NOT_PUBLIC)])
    settings = dataclasses.replace(config.get_settings(), sms_gateway_url=None, sms_gateways=json.dumps(
        [{"name": "gw-meta", "url": "https://169.254.169.254/api"}]))
    with pytest.raises(ValueError, match="SMS gateway gw-meta: url must be a public internet address"):
        gateways.configured(settings)


def test_an_sms_gateway_on_loopback_is_not_connected_to_unless_allowed(no_loopback):
    message = SmsMessageData(notification_id="n-1", to="+31612345678", sender="Gemeente", body="Hallo")
    with FakeGateway(token="gw-secret") as gateway:
        with pytest.raises(RetryableProviderError, match="SMS gateway address refused"):
            HttpSmsGateway(gateway.url, "gw-secret", callback_url="https://notify.example.nl/cb").send_sms(message)
        assert gateway.attempts == 0 and gateway.messages == []


@pytest.mark.parametrize("resolved", [["10.0.0.1"], ["169.254.169.254"], ["127.0.0.1"]])
def test_ca_certificates_go_by_plain_http_to_public_addresses_only(monkeypatch, no_loopback, resolved):
    """The adapter SNS fetches a certificate's issuing CA with (its AIA address is plain http): it takes
    http, but never to an address inside."""
    echo = _Echo()
    monkeypatch.setattr(outbound, "system_resolver", lambda host, port: resolved)
    session = requests.Session()
    session.trust_env = False
    session.mount("http://", outbound.SelfVerifyingDataAdapter())
    try:
        with pytest.raises(outbound.RefusedAddress):
            session.get(f"http://crt.r2m01.amazontrust.com:{echo.port}/r2m01.cer", timeout=2)
        assert echo.connections == 0
    finally:
        echo.close()

