"""A real SMTP server (aiosmtpd) on 127.0.0.1 that records what it receives, for tests.

    with SmtpServer() as server:                 # or the `smtp_server` fixture below
        SmtpProvider(server.url).send_email(...)
        [received] = server.wait_for_messages(1)
        received.rcpt_tos, received.mail_from, received.data (raw bytes), received.message["Subject"]

SmtpServer(*, credentials=None, tls_context=None, implicit_tls=False, **smtp_options)
- credentials {"user": "password"}: AUTH (PLAIN/LOGIN) checks them; also allowed without TLS.
- tls_context: the server's TLS context; offers STARTTLS and requires it before MAIL, or with
  implicit_tls=True the whole connection is TLS (smtps). make_tls_contexts() builds a matching pair.
- smtp_options: passed on to aiosmtpd's SMTP, e.g. timeout=0.5 to drop idle connections quickly.
- url: smtp://, smtp+starttls:// or smtps:// 127.0.0.1:<port> to match (no credentials in it).
- fail_next(n, reply="451 4.3.0 Try again later"): answer the next n RCPT commands with `reply`.
- stall_data_next(n, seconds): the next n messages are taken (recorded) but their reply to DATA
  comes only after `seconds`: a client timeout shorter than that cannot know the message arrived.
- messages: every accepted message in order; wait_for_messages(count, timeout=5.0) blocks for them.
"""
from __future__ import annotations

import asyncio
import datetime
import ipaddress
import logging
import os
import socket
import ssl
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

# aiosmtpd logs every SMTP command at INFO: too loud for the output of a failing test.
logging.getLogger("mail.log").setLevel(logging.WARNING)


@dataclass(frozen=True)
class ReceivedEmail:
    mail_from: str
    rcpt_tos: tuple[str, ...]
    data: bytes  # the message exactly as it arrived after DATA
    peer: tuple[str, int]  # the client's address; the same port means the same connection

    @property
    def message(self) -> EmailMessage:
        """The parsed message, CRLF line ends turned into \\n as a mail store does."""
        return message_from_bytes(self.data.replace(b"\r\n", b"\n"), policy=policy.default)  # type: ignore[return-value]


class SmtpServer:
    def __init__(
        self,
        *,
        credentials: dict[str, str] | None = None,
        tls_context: ssl.SSLContext | None = None,
        implicit_tls: bool = False,
        **smtp_options: Any,
    ) -> None:
        self.credentials = credentials
        self.messages: list[ReceivedEmail] = []
        self._rcpt_replies: list[str] = []
        self._data_stalls: list[float] = []
        self._lock = threading.Condition()
        self.host, self.port = "127.0.0.1", _free_port()
        scheme = "smtps" if implicit_tls else "smtp+starttls" if tls_context else "smtp"
        self.url = f"{scheme}://{self.host}:{self.port}"
        options: dict[str, Any] = {"auth_require_tls": False, **smtp_options}
        if credentials is not None:
            options["authenticator"] = self._authenticate
        if tls_context and not implicit_tls:
            options.update(tls_context=tls_context, require_starttls=True)
        self._controller = Controller(
            _Handler(self), hostname=self.host, port=self.port, server_hostname="localhost",
            ssl_context=tls_context if implicit_tls else None, **options,
        )

    def start(self) -> SmtpServer:
        self._controller.start()
        return self

    def stop(self) -> None:
        self._controller.stop()

    def __enter__(self) -> SmtpServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def fail_next(self, n: int, reply: str = "451 4.3.0 Try again later") -> None:
        with self._lock:
            self._rcpt_replies.extend([reply] * n)

    def stall_data_next(self, n: int, seconds: float) -> None:
        with self._lock:
            self._data_stalls.extend([seconds] * n)

    def wait_for_messages(self, count: int, timeout: float = 5.0) -> list[ReceivedEmail]:
        """Block until at least `count` messages arrived; return them all (AssertionError on timeout)."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.messages) >= count, timeout):
                raise AssertionError(f"SMTP server received {len(self.messages)} messages, expected {count}")
            return list(self.messages)

    def _authenticate(self, server, session, envelope, mechanism, auth_data) -> AuthResult:  # noqa: ANN001
        ok = isinstance(auth_data, LoginPassword) and self.credentials is not None and (
            self.credentials.get(auth_data.login.decode()) == auth_data.password.decode()
        )
        return AuthResult(success=ok, handled=False)


class _Handler:
    """aiosmtpd hooks; runs on the controller's event loop thread."""

    def __init__(self, owner: SmtpServer) -> None:
        self.owner = owner

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options) -> str:  # noqa: ANN001
        with self.owner._lock:
            if self.owner._rcpt_replies:
                return self.owner._rcpt_replies.pop(0)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope) -> str:  # noqa: ANN001
        received = ReceivedEmail(
            mail_from=envelope.mail_from, rcpt_tos=tuple(envelope.rcpt_tos),
            data=envelope.original_content, peer=tuple(session.peer[:2]),
        )
        with self.owner._lock:
            self.owner.messages.append(received)
            self.owner._lock.notify_all()
            stall = self.owner._data_stalls.pop(0) if self.owner._data_stalls else 0
        if stall:
            await asyncio.sleep(stall)
        return "250 Message accepted for delivery"


def make_tls_contexts(hostname: str = "127.0.0.1") -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server context, client context) for a fresh self-signed certificate for `hostname`.

    The client context verifies as usual (hostname and chain); it simply trusts this one certificate.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)])
    now = datetime.datetime.now(datetime.UTC)
    try:
        san: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(hostname))
    except ValueError:
        san = x509.DNSName(hostname)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([san]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as tmp:  # load_cert_chain only reads files
        cert_path, key_path = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        with open(cert_path, "wb") as handle:
            handle.write(cert_pem)
        with open(key_path, "wb") as handle:
            handle.write(key_pem)
        server.load_cert_chain(cert_path, key_path)
    client = ssl.create_default_context(cadata=cert_pem.decode())
    return server, client


def _free_port() -> int:
    # aiosmtpd's Controller connects to its own port to check it is up, so it needs the number first.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def smtp_server() -> Iterator[SmtpServer]:
    """A running plain SmtpServer; import this name into a test module to use it."""
    with SmtpServer() as server:
        yield server
