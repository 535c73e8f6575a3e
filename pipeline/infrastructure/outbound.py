"""Addresses the service connects out to: services' callback URLs and SMS gateways; and what every
outbound HTTP call says it is (USER_AGENT: this release, so a receiver's logs name it).

A URL is checked where it is saved (`url_problem`) and its host again each time a connection is made
(`connectable_addresses`, through the connection classes below), because a name can resolve elsewhere
later. The connection then goes to the very address that was checked, while TLS (SNI, certificate)
and the Host header keep the name, so a name re-pointed between the check and the connection (DNS
rebinding) gains nothing.

Refused: any scheme but https; a user name or password in the URL; hosts that are, or resolve to,
loopback, private, shared (100.64/10), link-local (169.254.169.254, the clouds' metadata service,
included), multicast, reserved or unspecified addresses, in every notation a resolver takes (127.1,
2130706433, 0x7f000001, [::ffff:127.0.0.1], 6to4 and NAT64 forms of those); names of one label
(the resolver's search domains make them local) and the local and metadata names (localhost and
*.localhost, *.internal, *.local, *.home.arpa, metadata.goog). When any address of a name is refused,
the name is. CALLBACKS_ALLOW_HTTP_LOOPBACK (tests, a local set-up) lets loopback through, by https or
plain http; plain http goes nowhere else, but for CA certificates (SelfVerifyingDataAdapter), which
are trusted only once they chain up to a trusted root whatever carried them.

The ZGW APIs alone (PrivateNetworksAdapter, `networks=private_networks()`) may also reach addresses
inside the networks CASE_EVENTS_PRIVATE_NETWORKS lists, by https only, under any name but the metadata
names (inside, the addresses decide: a cluster's *.svc.cluster.local is such a name); loopback and
link-local only where a listed network names them. Callbacks and SMS gateways never do.
"""
from __future__ import annotations

import functools
import ipaddress
import socket
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import requests
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError
from urllib3.poolmanager import PoolManager

from config import get_settings
from pipeline.domain.errors import Refusal
from version import __version__

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Networks = tuple[Network, ...]
# (host, port) -> the addresses it resolves to, as text; raises OSError (socket.gaierror) when it does not.
Resolver = Callable[[str, int], list[str]]

USER_AGENT = f"notify-nl/{__version__}"

NOT_HTTPS = Refusal("not_https", "is not a valid https url")
HAS_CREDENTIALS = Refusal("url_has_credentials", "must not contain a user name or password")
NOT_PUBLIC = Refusal("url_not_public", "must be a public internet address")

_LOOPBACK_NAMES = ("localhost", ".localhost")
_LOCAL_SUFFIXES = (".internal", ".local", ".home.arpa", ".localdomain")
_METADATA_NAMES = frozenset({"metadata.goog", "metadata.google.internal", "instance-data.ec2.internal"})
_THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NUMERIC_HOST = frozenset("0123456789abcdefxABCDEFX.")
_DEFAULT_PORTS = {"http": 80, "https": 443}
# What CASE_EVENTS_PRIVATE_NETWORKS may list: ranges no public host has (RFC 1918, shared 100.64/10, IPv6
# unique local), and loopback and link-local for whoever names them on purpose.
LISTABLE = tuple(ipaddress.ip_network(block) for block in (
    "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7",
    "127.0.0.0/8", "::1/128", "169.254.0.0/16", "fe80::/10"))


class RefusedAddress(Exception):
    """The host is, or resolves to, an address the service does not connect to."""


def system_resolver(host: str, port: int) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


def loopback_allowed() -> bool:
    return get_settings().callbacks_allow_http_loopback


def network_problem(text: str) -> str | None:
    """Why one entry of CASE_EVENTS_PRIVATE_NETWORKS cannot be listed, or None."""
    try:
        loose = ipaddress.ip_network(text, strict=False)
    except ValueError:
        return f"{text} is not a network in CIDR notation (such as 10.0.0.0/8)"
    try:
        network = ipaddress.ip_network(text)
    except ValueError:
        return f"{text} has host bits set: did you mean {loose}?"
    if not any(network.version == block.version and network.subnet_of(block)  # type: ignore[arg-type]
               for block in LISTABLE):
        return (f"{text} is not a private range: only addresses no public host has are listed (inside "
                f"{', '.join(str(block) for block in LISTABLE)})")
    return None


@functools.lru_cache(maxsize=8)
def parsed_networks(texts: tuple[str, ...]) -> Networks:
    """The networks listed, or none at all when one entry cannot be listed: a process with such a
    setting refuses to start (pipeline/infrastructure/provider_settings.py), and any other reaches less."""
    if any(network_problem(text) for text in texts):
        return ()
    return tuple(ipaddress.ip_network(text) for text in texts)


def private_networks() -> Networks:
    """The networks inside which the ZGW APIs may be reached (CASE_EVENTS_PRIVATE_NETWORKS)."""
    return parsed_networks(get_settings().case_events_private_networks)


def _literal(host: str) -> Address | None:
    """The address a host written as one stands for; None for a name. IPv4 in every form inet_aton
    (and so the resolver) takes: 127.1, 2130706433, 0x7f000001, 0177.0.0.1, with a final dot or not."""
    host = host.rstrip(".")
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if not host or not set(host) <= _NUMERIC_HOST:
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def _unwrapped(address: Address) -> Address:
    """An IPv6 address carrying an IPv4 one (mapped, 6to4, NAT64) reaches that one."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address.sixtofour is not None:
            return address.sixtofour
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def address_allowed(address: Address, *, allow_loopback: bool, networks: Networks = ()) -> bool:
    address = _unwrapped(address)
    if any(address in network for network in networks):
        return True
    if address.is_loopback:
        return allow_loopback
    if isinstance(address, ipaddress.IPv4Address) and address in _THIS_NETWORK:
        return False
    # is_global alone lets multicast through (224.0.0.0/4 is neither private nor shared).
    return address.is_global and not (address.is_multicast or address.is_reserved or address.is_link_local
                                      or address.is_private or address.is_unspecified)


def _is_loopback_name(name: str) -> bool:
    return name == _LOOPBACK_NAMES[0] or name.endswith(_LOOPBACK_NAMES[1])


def _name_allowed(host: str, *, allow_loopback: bool, networks: Networks = ()) -> bool:
    name = host.rstrip(".").lower()
    if networks:  # inside, names of one label and local suffixes are the rule: their addresses decide
        return name not in _METADATA_NAMES
    if _is_loopback_name(name):
        return allow_loopback
    return "." in name and name not in _METADATA_NAMES and not name.endswith(_LOCAL_SUFFIXES)


def _is_loopback_host(host: str) -> bool:
    literal = _literal(host)
    return _unwrapped(literal).is_loopback if literal is not None else _is_loopback_name(host.rstrip(".").lower())


def _check(host: str, text: str, *, plain_http: bool, allow_loopback: bool, networks: Networks) -> None:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise RefusedAddress(f"{host} resolves to {text}, which is not an address") from None
    if not address_allowed(address, allow_loopback=allow_loopback, networks=networks) or \
            (plain_http and not _unwrapped(address).is_loopback):
        where = "a public internet address or one in a listed network" if networks else "a public internet address"
        raise RefusedAddress(f"{host} is, or resolves to, {text}: not {where}")


def connectable_addresses(host: str, port: int, *, plain_http: bool, allow_loopback: bool,
                          resolver: Resolver | None = system_resolver, networks: Networks = ()) -> list[str]:
    """The addresses to connect to for this host, every one of them checked; raises RefusedAddress
    (when one address of a name is refused, the name is: whoever controls it chose them all) or the
    resolver's OSError. Without a resolver a name is checked, not looked up, and nothing is returned.
    `networks`: private networks whose addresses are allowed too (the ZGW APIs' only)."""
    literal = _literal(host)
    if literal is None and not _name_allowed(host, allow_loopback=allow_loopback, networks=networks):
        raise RefusedAddress(f"{host} is not a public internet name")
    if literal is not None:
        found = [str(literal)]
    elif resolver is None:
        return []
    else:
        found = resolver(host, port)
    if not found:
        raise socket.gaierror(socket.EAI_NONAME, f"{host} resolves to nothing")
    for text in found:
        _check(host, text, plain_http=plain_http, allow_loopback=allow_loopback, networks=networks)
    return found


def url_problem(url: str, *, allow_loopback: bool, resolver: Resolver | None = system_resolver,
                networks: Networks = ()) -> Refusal | None:
    """Why this URL is refused as an outbound address ("<field> <problem>"'s problem), or None. With a
    resolver a name is looked up too; one that does not resolve now passes (it is checked again at
    every connection). Without one, only what the URL itself says is checked. `networks`: as
    connectable_addresses'."""
    if any(c.isspace() or not c.isprintable() for c in url):
        return NOT_HTTPS
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:  # an unclosed [, a port that is not a number or out of range
        return NOT_HTTPS
    if parts.scheme not in _DEFAULT_PORTS or not host:
        return NOT_HTTPS
    if "@" in parts.netloc:
        return HAS_CREDENTIALS
    plain_http = parts.scheme == "http"
    if plain_http and not (allow_loopback and _is_loopback_host(host)):
        return NOT_HTTPS
    try:
        connectable_addresses(host, port or _DEFAULT_PORTS[parts.scheme], plain_http=plain_http,
                              allow_loopback=allow_loopback, resolver=resolver, networks=networks)
    except RefusedAddress:
        return NOT_PUBLIC
    except OSError:
        pass
    return None


class _Checked(HTTPConnection):
    """Connects only to the checked addresses of the connection's host, each tried in turn, through
    urllib3's own `connect`: for the time of it the connection's `host` is the address (urllib3
    connects to its host), and a name stays the TLS server name (SNI and the certificate's check),
    as urllib3 documents for a custom SNI hostname. The name is its host again before any request
    line or Host header is written from it."""

    plain_http = False

    @staticmethod
    def networks() -> Networks:
        """Private networks whose addresses this connection may reach too: none but for the ZGW APIs'."""
        return ()

    def connect(self) -> None:
        name = self.host
        try:
            addresses = connectable_addresses(name, self.port, plain_http=self.plain_http,
                                              allow_loopback=loopback_allowed(), resolver=system_resolver,
                                              networks=self.networks())
        except socket.gaierror as error:
            raise NameResolutionError(name, self, error) from error
        tls = self if isinstance(self, HTTPSConnection) else None
        server_name = tls.server_hostname if tls else None
        if tls and _literal(name) is None:
            tls.server_hostname = server_name or name
        try:
            for address in addresses[:-1]:
                self.host = address
                try:
                    return super().connect()
                except ConnectTimeoutError:  # NewConnectionError too: on to the next address, as a resolver does
                    continue
            self.host = addresses[-1]
            return super().connect()
        finally:
            self.host = name
            if tls:
                tls.server_hostname = server_name


class CheckedHTTPConnection(_Checked):
    plain_http = True


class CheckedHTTPSConnection(_Checked, HTTPSConnection):
    pass


class PublicHTTPConnection(_Checked):
    """Plain http to a checked public address (or loopback, as allowed). Only for what is verified on
    its own whatever the connection: a CA certificate named in another certificate's Authority
    Information Access, which must still chain up to a trusted root."""


class _PrivateNetworksHTTPConnection(CheckedHTTPConnection):
    networks = staticmethod(private_networks)


class _PrivateNetworksHTTPSConnection(CheckedHTTPSConnection):
    networks = staticmethod(private_networks)


class _CheckedHTTPPool(HTTPConnectionPool):
    ConnectionCls = CheckedHTTPConnection


class _PublicHTTPPool(HTTPConnectionPool):
    ConnectionCls = PublicHTTPConnection


class _CheckedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = CheckedHTTPSConnection


class _PrivateNetworksHTTPPool(HTTPConnectionPool):
    ConnectionCls = _PrivateNetworksHTTPConnection


class _PrivateNetworksHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _PrivateNetworksHTTPSConnection


CHECKED_POOLS = {"http": _CheckedHTTPPool, "https": _CheckedHTTPSPool}
_PRIVATE_NETWORKS_POOLS = {"http": _PrivateNetworksHTTPPool, "https": _PrivateNetworksHTTPSPool}
_SELF_VERIFYING_POOLS = {"http": _PublicHTTPPool, "https": _CheckedHTTPSPool}


def checked_pool_manager(**options: Any) -> PoolManager:
    """A urllib3 PoolManager whose every connection goes through connectable_addresses; RefusedAddress
    comes out of its requests as it is, never retried."""
    manager = PoolManager(**options)
    manager.pool_classes_by_scheme = CHECKED_POOLS
    return manager


class CheckedAdapter(requests.adapters.HTTPAdapter):
    """The same for requests: mount it on a session with trust_env off, so that no proxy from the
    environment makes the connection instead."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = CHECKED_POOLS


class PrivateNetworksAdapter(requests.adapters.HTTPAdapter):
    """CheckedAdapter's checks, with the addresses inside CASE_EVENTS_PRIVATE_NETWORKS allowed too (read
    at each connection, as the addresses are): for the ZGW APIs, never anything else."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _PRIVATE_NETWORKS_POOLS


class SelfVerifyingDataAdapter(requests.adapters.HTTPAdapter):
    """CheckedAdapter's checks, with plain http to public addresses too (PublicHTTPConnection): for
    fetching what is verified on its own, such as CA certificates, never anything else."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _SELF_VERIFYING_POOLS


def session(*, checked: bool = True, adapter: requests.adapters.HTTPAdapter | None = None) -> requests.Session:
    """A requests session for calls out, saying USER_AGENT. `checked`: every connection goes to an
    address checked as it is made (CheckedAdapter, or the given adapter of its kind), and no proxy or
    .netrc from the environment makes it instead; unchecked only for our own webhooks at BASE_URL."""
    made = requests.Session()
    made.headers["User-Agent"] = USER_AGENT
    if checked:
        made.trust_env = False
        made.mount("https://", adapter or CheckedAdapter())
        made.mount("http://", adapter or CheckedAdapter())
    return made
