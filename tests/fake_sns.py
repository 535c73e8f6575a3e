"""Amazon SNS's side of an HTTPS subscription, written from SNS's public documentation: messages
signed as SNS signs them (RSA PKCS #1 v1.5 over the canonical string, SHA-1 for SignatureVersion 1,
SHA-256 for 2), the signing certificate served over https, and the SubscribeURL a subscription is
confirmed at. All on 127.0.0.1 with certificates made here: `ca_file` is the server certificate the
service is told to trust (SNS_CA_FILE), `host_pattern` the SNS_HOST_PATTERN that admits this host.
"""
from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import ssl
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import NameOID

TOPIC = "arn:aws:sns:eu-west-1:123456789012:ses-events"
CERT_PATH = "/SimpleNotificationService-0000000000000000000000.pem"


def self_signed(key: Any, name: str, *, days: int = 1, ip: str | None = None) -> x509.Certificate:
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5))
               .not_valid_after(now + datetime.timedelta(days=days)))
    if ip:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]),
                                        critical=False)
    return builder.sign(key, hashes.SHA256())


def pem(certificate: x509.Certificate) -> bytes:
    return certificate.public_bytes(serialization.Encoding.PEM)


class FakeSns:
    def __init__(self, directory: Path) -> None:
        self.signing_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.signing_certificate = pem(self_signed(self.signing_key, "sns.amazonaws.com"))
        tls_key = ec.generate_private_key(ec.SECP256R1())
        self.ca_file = directory / "fake-sns-server.pem"
        self.ca_file.write_bytes(pem(self_signed(tls_key, "127.0.0.1", ip="127.0.0.1")))
        key_file = directory / "fake-sns-server.key"
        key_file.write_bytes(tls_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                   serialization.NoEncryption()))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.ca_file, key_file)
        self.host_pattern = r"^127\.0\.0\.1$"
        self.certificate_fetches = 0
        self.user_agents: list[str | None] = []  # each request's User-Agent, in order
        self.confirmations: list[dict[str, list[str]]] = []
        self.confirm_status = 200
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FakeSns:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def sign(self, message: dict[str, Any], version: str = "1", key: rsa.RSAPrivateKey | None = None,
             certificate_url: str | None = None) -> dict[str, Any]:
        algorithm = hashes.SHA1() if version == "1" else hashes.SHA256()
        message = {**message, "SignatureVersion": version,
                   "SigningCertURL": certificate_url or f"{self.url}{CERT_PATH}"}
        signature = (key or self.signing_key).sign(canonical(message), padding.PKCS1v15(), algorithm)
        return {**message, "Signature": base64.b64encode(signature).decode()}

    def notification(self, ses_event: dict[str, Any], *, version: str = "1", topic: str = TOPIC,
                     subject: str | None = None, **signing: Any) -> dict[str, Any]:
        message = {"Type": "Notification", "MessageId": str(uuid.uuid4()), "TopicArn": topic,
                   "Message": json.dumps(ses_event), "Timestamp": _now(),
                   "UnsubscribeURL": f"{self.url}/?Action=Unsubscribe&SubscriptionArn={topic}:1"}
        if subject is not None:
            message["Subject"] = subject
        return self.sign(message, version, **signing)

    def subscription_confirmation(self, *, version: str = "1", topic: str = TOPIC,
                                  subscribe_url: str | None = None) -> dict[str, Any]:
        token = uuid.uuid4().hex * 4
        url = subscribe_url or f"{self.url}/?Action=ConfirmSubscription&TopicArn={topic}&Token={token}"
        return self.sign({"Type": "SubscriptionConfirmation", "MessageId": str(uuid.uuid4()), "Token": token,
                          "TopicArn": topic, "Timestamp": _now(), "SubscribeURL": url,
                          "Message": f"You have chosen to subscribe to the topic {topic}.\n"
                                     "To confirm the subscription, visit the SubscribeURL included in this message."},
                         version)


def canonical(message: dict[str, Any]) -> bytes:
    """The string SNS signs, as its documentation describes it (written here apart from the service's own)."""
    if message["Type"] == "Notification":
        names = ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"]
    else:
        names = ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"]
    return "".join(f"{name}\n{message[name]}\n" for name in names if name in message).encode()


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _handler_for(sns: FakeSns) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            parts = urlsplit(self.path)
            sns.user_agents.append(self.headers.get("User-Agent"))
            if parts.path == CERT_PATH:
                sns.certificate_fetches += 1
                self._answer(200, sns.signing_certificate, "application/x-x509-ca-cert")
            elif parts.path == "/" and parse_qs(parts.query).get("Action") == ["ConfirmSubscription"]:
                sns.confirmations.append(parse_qs(parts.query))
                arn = parse_qs(parts.query)["TopicArn"][0] + ":" + str(uuid.uuid4())
                self._answer(sns.confirm_status, (
                    '<ConfirmSubscriptionResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">'
                    f"<ConfirmSubscriptionResult><SubscriptionArn>{arn}</SubscriptionArn>"
                    "</ConfirmSubscriptionResult></ConfirmSubscriptionResponse>").encode(), "text/xml")
            else:
                self._answer(404, b"Not Found", "text/plain")

        def _answer(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    return Handler
