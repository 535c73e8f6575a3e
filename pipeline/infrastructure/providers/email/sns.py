"""Amazon SNS messages as they arrive at our HTTPS subscription: their signature checked, and a
subscription confirmed.

Every message SNS posts (Notification, SubscriptionConfirmation, UnsubscribeConfirmation) is signed:
`Signature` is base64 RSA PKCS #1 v1.5 over a canonical string of the message's fields, each written
"<name>\\n<value>\\n" in byte order of the names, with SHA-1 (SignatureVersion 1) or SHA-256 (2). A
Notification signs Message, MessageId, Subject (only when present), Timestamp, TopicArn and Type; the
two confirmations sign Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn and Type.

The certificate comes from `SigningCertURL`, and SubscribeURL is visited, only over https on a host
matching SNS_HOST_PATTERN (Amazon's own `sns.<region>.amazonaws.com[.cn]` by default), through the
outbound address checks (pipeline/infrastructure/outbound.py): a forged message cannot make us fetch from, or visit,
anywhere else. The certificate must chain up to a trusted CA (sns_certificates.py). Certificates are
cached by URL: SNS signs with one for months.
"""
from __future__ import annotations

import base64
import binascii
import datetime
import re
from typing import Any
from urllib.parse import urlsplit

import requests
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from config import Settings
from pipeline.infrastructure import outbound
from pipeline.infrastructure.outbound import CheckedAdapter, SelfVerifyingDataAdapter
from pipeline.infrastructure.providers.email.sns_certificates import (
    CertificateRefused,
    SigningCertificates,
    trust_store,
)

NOTIFICATION = "Notification"
SUBSCRIPTION_CONFIRMATION = "SubscriptionConfirmation"
UNSUBSCRIBE_CONFIRMATION = "UnsubscribeConfirmation"
_SIGNED_FIELDS = {
    NOTIFICATION: ("Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"),
    SUBSCRIPTION_CONFIRMATION: ("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"),
    UNSUBSCRIBE_CONFIRMATION: ("Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"),
}
_HASHES: dict[str, type[hashes.HashAlgorithm]] = {"1": hashes.SHA1, "2": hashes.SHA256}


class RefusedMessage(Exception):
    """Not a message SNS signed, or one from somewhere we do not take messages; `reason` is a short
    word for counting, the text says what was wrong."""

    def __init__(self, reason: str, text: str) -> None:
        super().__init__(text)
        self.reason = reason


def canonical_string(message: dict[str, Any]) -> bytes:
    """What SNS signed for this message; raises RefusedMessage for an unknown Type or a missing field."""
    kind = message.get("Type")
    fields = _SIGNED_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        raise RefusedMessage("unknown-type", f"unknown SNS message type {kind!r}")
    text = ""
    for name in fields:
        value = message.get(name)
        if value is None and name == "Subject":
            continue  # a Notification published without a subject signs none
        if not isinstance(value, str):
            raise RefusedMessage("malformed", f"SNS {kind} without a {name}")
        text += f"{name}\n{value}\n"
    return text.encode("utf-8")


class SnsVerifier:
    """Checks SNS messages, fetching (and caching) signing certificates and visiting SubscribeURLs only
    on allowed hosts. One per process: its session and cache are shared by the request threads."""

    def __init__(self, settings: Settings, *, timeout: float = 10.0) -> None:
        """Raises ValueError for an SNS_SIGNING_CA_FILE it cannot read."""
        self.host_pattern = re.compile(settings.sns_host_pattern)
        self.topic_arns = frozenset(settings.sns_topic_arns)
        self.timeout = timeout
        self.session = _session(settings, CheckedAdapter())
        self.certificates = SigningCertificates(self.session, _session(settings, SelfVerifyingDataAdapter()),
                                                trust_store(settings.sns_signing_ca_file), self.check_url,
                                                timeout=timeout)

    def verify(self, message: dict[str, Any]) -> None:
        """Raises RefusedMessage unless SNS signed this message, from a topic we take messages from."""
        signed = canonical_string(message)
        algorithm = _HASHES.get(str(message.get("SignatureVersion")))
        if algorithm is None:
            raise RefusedMessage("bad-signature", f"unknown SignatureVersion {message.get('SignatureVersion')!r}")
        try:
            signature = base64.b64decode(str(message.get("Signature") or ""), validate=True)
        except (binascii.Error, ValueError):
            raise RefusedMessage("bad-signature", "Signature is not base64") from None
        if not signature:
            raise RefusedMessage("bad-signature", "no Signature")
        certificate = self.certificate(str(message.get("SigningCertURL") or ""))
        now = datetime.datetime.now(datetime.UTC)
        if not certificate.not_valid_before_utc <= now <= certificate.not_valid_after_utc:
            raise RefusedMessage("bad-certificate", "the signing certificate is not valid now")
        key = certificate.public_key()
        if not isinstance(key, rsa.RSAPublicKey):
            raise RefusedMessage("bad-certificate", "the signing certificate's key is not RSA")
        try:
            key.verify(signature, signed, padding.PKCS1v15(), algorithm())
        except InvalidSignature:
            raise RefusedMessage("bad-signature", "the signature does not match the message") from None
        if self.topic_arns and message["TopicArn"] not in self.topic_arns:
            raise RefusedMessage("unknown-topic", f"topic {message['TopicArn']} is not in SNS_TOPIC_ARNS")

    def certificate(self, url: str) -> x509.Certificate:
        try:
            return self.certificates.get(url)
        except CertificateRefused as refused:
            raise RefusedMessage(refused.reason, str(refused)) from None

    def confirm_subscription(self, subscribe_url: str) -> bool:
        """Visit SubscribeURL: True when SNS confirmed, False when it refused for good (a 4xx: an
        old or used token). Raises requests' errors or RuntimeError for a 5xx, to be retried."""
        self.check_url(subscribe_url, "SubscribeURL")
        response = self.session.get(subscribe_url, timeout=self.timeout, allow_redirects=False)
        if response.status_code >= 500:
            raise RuntimeError(f"SNS answered {response.status_code} to the subscription confirmation")
        return response.status_code == 200

    def check_url(self, url: str, field: str) -> None:
        try:
            parts = urlsplit(url)
            host, _port = parts.hostname or "", parts.port  # .port raises ValueError for one that is not a number
        except ValueError:
            raise RefusedMessage("disallowed-host", f"{field} {url!r} is not a URL") from None
        if parts.scheme != "https" or "@" in parts.netloc or not self.host_pattern.fullmatch(host):
            raise RefusedMessage("disallowed-host", f"{field} {url!r} is not https on a host SNS_HOST_PATTERN allows")


def _session(settings: Settings, adapter: requests.adapters.HTTPAdapter) -> requests.Session:
    session = outbound.session(adapter=adapter)  # no proxy from the environment makes the connection instead
    session.verify = settings.sns_ca_file or True
    return session
