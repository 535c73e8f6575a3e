"""Amazon SNS's side of an HTTPS subscription, written from SNS's public documentation, not from our
service: messages in SNS's JSON formats (https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html)
signed as SNS signs them (https://docs.aws.amazon.com/sns/latest/dg/SendMessageToHttp.verify.signature.html:
RSA PKCS #1 v1.5 over the canonical string, SHA-1 for SignatureVersion 1, SHA-256 for 2), the signing
certificate served over https at SigningCertURL, and the SubscribeURL a subscription is confirmed at
(https://docs.aws.amazon.com/sns/latest/api/API_ConfirmSubscription.html: GET, an XML answer).

The signing certificate is issued as Amazon's are, through a CA hierarchy of its own, apart from the
TLS certificate: a test root CA (`signing_ca_file`, what the service is told to trust,
SNS_SIGNING_CA_FILE) issues an intermediate CA, which issues the signing certificate. As public
copies of SNS's certificate files show, the file at SigningCertURL holds the signing certificate
alone; its Authority Information Access names the intermediate at a plain http address (as Amazon's
name crt.<name>.amazontrust.com), served here by a second, plain http server. All on 127.0.0.1:
`ca_file` is the TLS certificate the service trusts for https (SNS_CA_FILE), `host_pattern` the
SNS_HOST_PATTERN that admits this host. `serve(pem)` serves other certificate files, for tests of
refused ones (`issue` and `self_signed` make them).
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
from cryptography.x509.oid import AuthorityInformationAccessOID, ExtendedKeyUsageOID, NameOID

TOPIC = "arn:aws:sns:eu-west-1:123456789012:ses-events"
CERT_PATH = "/SimpleNotificationService-0000000000000000000000.pem"
ISSUER_PATH = "/r2m01.cer"
_CA_USAGE = x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                          data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                          encipher_only=False, decipher_only=False)
_SIGNING_USAGE = x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=True,
                               data_encipherment=False, key_agreement=False, key_cert_sign=False, crl_sign=False,
                               encipher_only=False, decipher_only=False)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Fake Amazon"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _builder(key: Any, subject: x509.Name, issuer: x509.Name, days: int) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=days))
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))


def self_signed(key: Any, name: str, *, days: int = 1, ip: str | None = None, ca: bool = False) -> x509.Certificate:
    builder = _builder(key, _name(name), _name(name), days)
    if ip:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]),
                                        critical=False)
    if ca:
        builder = (builder.add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .add_extension(_CA_USAGE, critical=True))
    return builder.sign(key, hashes.SHA256())


def issue(issuer_key: Any, issuer: x509.Certificate, key: Any, name: str, *, ca: bool = False,
          issuer_url: str | None = None) -> x509.Certificate:
    """A certificate for `key` issued by `issuer`: a CA (path length 0), or a signing certificate for
    sns.amazonaws.com as Amazon's carry their extensions; `issuer_url` its caIssuers address."""
    builder = (_builder(key, _name(name), issuer.subject, 1)
               .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
                              critical=False))
    if ca:
        builder = (builder.add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                   .add_extension(_CA_USAGE, critical=True))
    else:
        builder = (builder.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                   .add_extension(_SIGNING_USAGE, critical=True)
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
                   .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                         ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False))
    if issuer_url:
        builder = builder.add_extension(x509.AuthorityInformationAccess([x509.AccessDescription(
            AuthorityInformationAccessOID.CA_ISSUERS, x509.UniformResourceIdentifier(issuer_url))]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def pem(*certificates: x509.Certificate) -> bytes:
    return b"".join(each.public_bytes(serialization.Encoding.PEM) for each in certificates)


def _rsa() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class FakeSns:
    def __init__(self, directory: Path) -> None:
        self.certificate_fetches = 0
        self.issuer_fetches = 0
        self.confirmations: list[dict[str, list[str]]] = []
        self.confirm_status = 200
        self.files: dict[str, bytes] = {}
        self.user_agents: list[str | None] = []  # each request's User-Agent, in order
        # The CA issuers' plain http server first: the signing certificate names its address.
        self._issuers = ThreadingHTTPServer(("127.0.0.1", 0), _issuers_handler_for(self))
        self.issuer_url = f"http://127.0.0.1:{self._issuers.server_address[1]}{ISSUER_PATH}"
        self._make_signing_hierarchy(directory)
        tls_key = ec.generate_private_key(ec.SECP256R1())
        self.ca_file = directory / "fake-sns-server.pem"
        self.ca_file.write_bytes(pem(self_signed(tls_key, "127.0.0.1", ip="127.0.0.1")))
        key_file = directory / "fake-sns-server.key"
        key_file.write_bytes(tls_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                   serialization.NoEncryption()))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.ca_file, key_file)
        self.host_pattern = r"^127\.0\.0\.1$"
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self._server.server_address[1]}"
        self._threads = [threading.Thread(target=server.serve_forever, daemon=True)
                         for server in (self._server, self._issuers)]

    def _make_signing_hierarchy(self, directory: Path) -> None:
        self.root_key = ec.generate_private_key(ec.SECP256R1())
        self.root = self_signed(self.root_key, "Fake Amazon Root CA 1", ca=True)
        self.signing_ca_file = directory / "fake-sns-signing-roots.pem"
        self.signing_ca_file.write_bytes(pem(self.root))
        self.intermediate_key = _rsa()
        self.intermediate = issue(self.root_key, self.root, self.intermediate_key, "Fake Amazon RSA 2048 M01",
                                  ca=True)
        self.signing_key = _rsa()
        self.signing_certificate = issue(self.intermediate_key, self.intermediate, self.signing_key,
                                         "sns.amazonaws.com", issuer_url=self.issuer_url)
        self.files[CERT_PATH] = pem(self.signing_certificate)

    def __enter__(self) -> FakeSns:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        for server in (self._server, self._issuers):
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join()

    def serve(self, certificate_file: bytes) -> str:
        """Serve another certificate file over https; its SigningCertURL."""
        path = f"/SimpleNotificationService-{uuid.uuid4().hex}.pem"
        self.files[path] = certificate_file
        return self.url + path

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


class _Handler(BaseHTTPRequestHandler):
    def _answer(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def _handler_for(sns: FakeSns) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        def do_GET(self) -> None:  # noqa: N802
            parts = urlsplit(self.path)
            sns.user_agents.append(self.headers.get("User-Agent"))
            if parts.path in sns.files:
                sns.certificate_fetches += 1
                self._answer(200, sns.files[parts.path], "application/x-x509-ca-cert")
            elif parts.path == "/" and parse_qs(parts.query).get("Action") == ["ConfirmSubscription"]:
                sns.confirmations.append(parse_qs(parts.query))
                arn = parse_qs(parts.query)["TopicArn"][0] + ":" + str(uuid.uuid4())
                self._answer(sns.confirm_status, (
                    '<ConfirmSubscriptionResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">'
                    f"<ConfirmSubscriptionResult><SubscriptionArn>{arn}</SubscriptionArn>"
                    "</ConfirmSubscriptionResult></ConfirmSubscriptionResponse>").encode(), "text/xml")
            else:
                self._answer(404, b"Not Found", "text/plain")

    return Handler


def _issuers_handler_for(sns: FakeSns) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        def do_GET(self) -> None:  # noqa: N802
            if urlsplit(self.path).path == ISSUER_PATH:
                sns.issuer_fetches += 1
                self._answer(200, sns.intermediate.public_bytes(serialization.Encoding.DER), "application/pkix-cert")
            else:
                self._answer(404, b"Not Found", "text/plain")

    return Handler
