"""The certificates Amazon SNS signs its messages with: fetched, checked up to a trusted CA, and cached.

Amazon's documentation asks that the certificate's chain of trust be confirmed
(https://docs.aws.amazon.com/sns/latest/dg/SendMessageToHttp.verify.signature.html), not only that it
came from an SNS address. A certificate is taken only when it chains up to a CA in
SNS_SIGNING_CA_FILE (by default certifi's bundle, which holds Amazon's root CAs), through the CA
certificates served after it at SigningCertURL and, when those do not complete the chain, the issuing
CA its Authority Information Access names (caIssuers). SNS has served the signing certificate alone,
issued by an Amazon intermediate CA that no root bundle holds; that issuer is published at a plain
http address (crt.<name>.amazontrust.com), fetched from public addresses only and trusted only once
it too chains up. A self-signed certificate, or one from any CA outside the bundle, is refused.

The chain is checked with the webpki rules for its CAs (basic constraints, key usage for signing
certificates, validity, key sizes), apart from their extended key usage, which is about TLS; the
signing certificate itself is only required to be valid now and to carry an RSA key (sns.py).
"""
from __future__ import annotations

import datetime
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable

import certifi
import requests
from cryptography import x509
from cryptography.utils import CryptographyDeprecationWarning
from cryptography.x509.oid import AuthorityInformationAccessOID
from cryptography.x509.verification import Criticality, ExtensionPolicy, PolicyBuilder, Store, VerificationError

from pipeline.infrastructure.outbound import RefusedAddress

MAX_CERTIFICATE_BYTES = 64 * 1024
_CACHED = 32
_ISSUERS_TRIED = 2  # caIssuers addresses tried per certificate


class CertificateRefused(Exception):
    """`reason`: "certificate-unavailable" (it could not be fetched) or "bad-certificate"."""

    def __init__(self, reason: str, text: str) -> None:
        super().__init__(text)
        self.reason = reason


def trust_store(ca_file: str | None) -> Store:
    """The CAs signing certificates must chain up to: SNS_SIGNING_CA_FILE's, or certifi's bundle;
    raises ValueError naming the setting for a file that cannot be read or holds no certificate."""
    path = ca_file or certifi.where()
    try:
        with open(path, "rb") as bundle, warnings.catch_warnings():
            # Some long-lived roots in the public bundles have serial numbers RFC 5280 no longer allows.
            warnings.simplefilter("ignore", CryptographyDeprecationWarning)
            certificates = x509.load_pem_x509_certificates(bundle.read())
    except (OSError, ValueError) as error:
        raise ValueError(f"SNS_SIGNING_CA_FILE {path}: not a PEM file of CA certificates ({error})") from None
    return Store(certificates)


def _ca_policy() -> ExtensionPolicy:
    return ExtensionPolicy.webpki_defaults_ca().may_be_present(x509.ExtendedKeyUsage, Criticality.AGNOSTIC, None)


def _issuer_urls(certificate: x509.Certificate) -> list[str]:
    try:
        access = certificate.extensions.get_extension_for_class(x509.AuthorityInformationAccess).value
    except x509.ExtensionNotFound:
        return []
    return [str(each.access_location.value) for each in access
            if each.access_method == AuthorityInformationAccessOID.CA_ISSUERS
            and isinstance(each.access_location, x509.UniformResourceIdentifier)][:_ISSUERS_TRIED]


def _parsed(body: bytes) -> list[x509.Certificate]:
    """The certificates of a PEM file (one or more), or of one DER certificate."""
    if b"-----BEGIN CERTIFICATE-----" in body:
        return x509.load_pem_x509_certificates(body)
    return [x509.load_der_x509_certificate(body)]


class SigningCertificates:
    """Signing certificates by URL, each checked once, when first fetched. Shared by a process's
    request threads."""

    def __init__(self, session: requests.Session, issuer_session: requests.Session, trust: Store,
                 check_url: Callable[[str, str], None], *, timeout: float) -> None:
        """`session` fetches from SNS hosts, `check_url(url, field)` admits them; `issuer_session`
        fetches the CA certificates named in a certificate (plain http allowed: they verify themselves)."""
        self.session, self.issuer_session, self.trust = session, issuer_session, trust
        self.check_url, self.timeout = check_url, timeout
        self._certificates: OrderedDict[str, x509.Certificate] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, url: str) -> x509.Certificate:
        """The certificate at SigningCertURL `url`; raises CertificateRefused, or sns.RefusedMessage from check_url."""
        with self._lock:
            if url in self._certificates:
                self._certificates.move_to_end(url)
                return self._certificates[url]
        self.check_url(url, "SigningCertURL")
        found = self._download(self.session, url, "SigningCertURL")
        self._check_chain(found[0], found[1:])
        with self._lock:
            self._certificates[url] = found[0]
            while len(self._certificates) > _CACHED:
                self._certificates.popitem(last=False)
        return found[0]

    def _check_chain(self, certificate: x509.Certificate, served: list[x509.Certificate]) -> None:
        verifier = (PolicyBuilder().store(self.trust).time(datetime.datetime.now(datetime.UTC))
                    .extension_policies(ca_policy=_ca_policy(), ee_policy=ExtensionPolicy.permit_all())
                    .build_client_verifier())
        try:
            verifier.verify(certificate, served)
            return
        except VerificationError as error:
            problem = str(error)
        issuers = [each for url in _issuer_urls(certificate) for each in self._issuers(url)]
        if issuers:
            try:
                verifier.verify(certificate, served + issuers)
                return
            except VerificationError as error:
                problem = str(error)
        issuer = certificate.issuer.rfc4514_string()
        raise CertificateRefused("bad-certificate", f"the signing certificate (issuer {issuer}) does not chain up to "
                                 f"a CA in SNS_SIGNING_CA_FILE: {problem}")

    def _issuers(self, url: str) -> list[x509.Certificate]:
        try:
            return self._download(self.issuer_session, url, "caIssuers")
        except CertificateRefused:
            return []  # the chain then fails, naming its issuer

    def _download(self, session: requests.Session, url: str, field: str) -> list[x509.Certificate]:
        try:
            with session.get(url, timeout=self.timeout, allow_redirects=False, stream=True) as response:
                body = response.raw.read(MAX_CERTIFICATE_BYTES + 1, decode_content=True)
        except (requests.RequestException, RefusedAddress, OSError) as error:
            raise CertificateRefused("certificate-unavailable", f"{field} {url} could not be fetched: {error}") \
                from error
        if response.status_code != 200 or len(body) > MAX_CERTIFICATE_BYTES:
            raise CertificateRefused("certificate-unavailable", f"{field} {url} answered {response.status_code}")
        try:
            return _parsed(body)
        except ValueError:
            raise CertificateRefused("bad-certificate", f"{field} {url} is not a certificate") from None
