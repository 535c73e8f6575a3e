"""Email over SMTP with smtplib.

The URL says how to connect:
    smtp://[user:pass@]host[:25]            plain (credentials, if given, are sent in the clear)
    smtp+starttls://[user:pass@]host[:587]  upgraded with STARTTLS before any credentials
    smtps://[user:pass@]host[:465]          implicit TLS
User and password are percent-decoded. Certificates are always verified against the system trust
store unless the caller passes its own `tls_context` (tests pass one that trusts a test CA).

Each worker thread keeps one open connection and checks it with NOOP before reuse: a TLS handshake
and AUTH per email would cost more than the email itself. Any failure drops that connection.

Failures are sorted by what the server may have: a refused connection or a 4xx reply before the
message was taken is certainly not delivered (retried); a timeout or a lost connection once DATA
went out may come after the server queued the message (OutcomeUnknownError: never sent again).
"""
from __future__ import annotations

import logging
import smtplib
import socket
import ssl
import threading
from email.message import EmailMessage
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from pipeline.infrastructure.providers.email.message import build_email
from pipeline.infrastructure.providers.errors import (
    PERMANENT_FAILURE,
    TECHNICAL_FAILURE,
    EmailMessageData,
    FinalProviderError,
    OutcomeUnknownError,
    RetryableProviderError,
)

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

log = logging.getLogger(__name__)

_DEFAULT_PORTS = {"smtp": 25, "smtp+starttls": 587, "smtps": 465}


def url_problem(url: str) -> str | None:
    """Why an SMTP relay's URL cannot be used, or None (the rule of SMTP_URL and SMTP_FALLBACK_URL).
    Never quotes the URL: it may hold a password."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number or out of range)
    except ValueError:
        return "is not a valid URL"
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return "must be smtp://, smtp+starttls:// or smtps:// with a host"
    return None


class _Smtp(smtplib.SMTP):
    """A connection that remembers whether DATA went out: from then on the server may have the message."""

    data_started = False

    def data(self, msg: ReadableBuffer | str) -> tuple[int, bytes]:
        self.data_started = True
        return super().data(msg)


class _SmtpSsl(_Smtp, smtplib.SMTP_SSL):
    pass


class SmtpProvider:
    name = "smtp"
    deduplicates = False  # a relay queues every message it accepts, repeats included

    def __init__(self, url: str, *, timeout: float = 30.0, tls_context: ssl.SSLContext | None = None,
                 name: str = "smtp") -> None:
        """`timeout` in seconds applies to connecting and to each SMTP command; `name`: which relay
        this is (recorded as the notification's provider)."""
        self.name = name
        problem = url_problem(url)
        if problem:
            raise ValueError(f"SMTP URL {problem}")
        parts = urlsplit(url)
        self.scheme = parts.scheme
        self.host = parts.hostname or ""  # url_problem refused a URL without one
        self.port = parts.port or _DEFAULT_PORTS[parts.scheme]
        self.username = unquote(parts.username) if parts.username else None
        self.password = unquote(parts.password) if parts.password else ""
        self.timeout = timeout
        self.tls_context = tls_context or ssl.create_default_context()
        # getfqdn() may wait on reverse DNS; once per provider, not once per connection.
        self._local_hostname = socket.getfqdn()
        self._local = threading.local()

    def send_email(self, message: EmailMessageData) -> str:
        """Send one message; return its Message-ID (angle brackets included, as in the header)."""
        email = build_email(message)
        envelope_from = email["From"].addresses[0].addr_spec
        try:
            self._send(email, envelope_from, message.to)
        except smtplib.SMTPRecipientsRefused as error:
            code, reply = next(iter(error.recipients.values()))
            if code >= 500:
                raise FinalProviderError(PERMANENT_FAILURE, f"recipient refused: {code} {_text(reply)}") from error
            raise RetryableProviderError(f"recipient deferred: {code} {_text(reply)}") from error
        except smtplib.SMTPAuthenticationError as error:
            if error.smtp_code < 500:  # 454: the server could not check credentials just now
                raise RetryableProviderError(f"SMTP authentication deferred: {error.smtp_code}") from error
            raise FinalProviderError(TECHNICAL_FAILURE, f"SMTP authentication failed: {error.smtp_code}") from error
        except smtplib.SMTPNotSupportedError as error:
            # STARTTLS, AUTH or SMTPUTF8 missing on the server: a configuration problem, not a blip.
            raise FinalProviderError(TECHNICAL_FAILURE, f"SMTP server lacks a needed extension: {error}") from error
        except (smtplib.SMTPServerDisconnected, smtplib.SMTPConnectError) as error:
            raise RetryableProviderError(f"SMTP connection lost: {error}") from error
        except smtplib.SMTPResponseException as error:  # MAIL FROM, DATA or HELO answered with an error
            raise _sort_reply(error.smtp_code, error.smtp_error) from error
        except smtplib.SMTPException as error:  # e.g. "no suitable authentication method": configuration
            raise FinalProviderError(TECHNICAL_FAILURE, f"SMTP: {error}") from error
        except OSError as error:  # refused, reset, timed out, TLS handshake or certificate failure
            raise RetryableProviderError(f"SMTP connection to {self.host}:{self.port} failed: {error!r}") from error
        return str(email["Message-ID"])

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends or on error)."""
        connection = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            try:
                connection.quit()
            except (smtplib.SMTPException, OSError):
                connection.close()

    def _send(self, email: EmailMessage, envelope_from: str, to: str) -> None:
        connection = self._checkout()
        connection.data_started = False
        try:
            connection.send_message(email, from_addr=envelope_from, to_addrs=[to])
        except smtplib.SMTPResponseException:
            connection.close()  # the server answered: sorted by its reply code
            raise
        except OSError as error:  # timed out or disconnected (SMTPServerDisconnected is an OSError)
            connection.close()
            if connection.data_started:
                raise OutcomeUnknownError(f"SMTP connection lost after DATA: {error!r}") from error
            raise
        except BaseException:
            # Interrupted mid-DATA (e.g. by a worker time limit): the session is in an unknown
            # state, so it is closed rather than handed to the next message.
            connection.close()
            raise
        self._local.connection = connection

    def _checkout(self) -> _Smtp:
        """This thread's open connection if the server still answers NOOP, else a new one."""
        connection: _Smtp | None = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            try:
                if connection.noop()[0] == 250:
                    return connection
            except (smtplib.SMTPException, OSError):
                pass  # the server closed an idle connection: open a fresh one below
            connection.close()
        return self._open()

    def _open(self) -> _Smtp:
        if self.scheme == "smtps":
            connection: _Smtp = _SmtpSsl(
                self.host, self.port, local_hostname=self._local_hostname, timeout=self.timeout,
                context=self.tls_context,
            )
        else:
            connection = _Smtp(self.host, self.port, local_hostname=self._local_hostname, timeout=self.timeout)
        try:
            if self.scheme == "smtp+starttls":
                connection.starttls(context=self.tls_context)  # raises SMTPNotSupportedError if not offered
            if self.username:
                connection.login(self.username, self.password)
        except BaseException:
            connection.close()
            raise
        return connection


def _sort_reply(code: int, reply: bytes | str) -> FinalProviderError | RetryableProviderError:
    if code < 500:
        return RetryableProviderError(f"SMTP temporary failure: {code} {_text(reply)}")
    # A 5xx after DATA with an enhanced status 5.1.x (RFC 3463 "addressing status") is still about
    # the recipient; any other 5xx means the server will not take what we sent.
    status = PERMANENT_FAILURE if _text(reply).startswith("5.1.") else TECHNICAL_FAILURE
    return FinalProviderError(status, f"SMTP refused: {code} {_text(reply)}")


def _text(reply: bytes | str) -> str:
    return reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
