"""A municipality's internal network for the tests: Open Zaak and Open Klant (the fakes) served over TLS by
a CA of the municipality's own, under names that resolve to addresses in 10.20.30.0/24.

Two stand-ins make it so without touching the host's network: a DNS that answers for the names under
`gemeente.test` (every other name goes to the system's resolver), and a route that carries connections
to 10.20.30.0/24 to 127.0.0.1, where the fakes listen. Both sit below the service's address checks,
which see the names and the 10.20.30.x addresses as they would inside a municipality's network.
"""
from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import urllib3.util.connection
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from tests.fake_sns import issue, pem, self_signed
from tests.zgw.fakes import Tls

NETWORK = "10.20.30.0/24"
INSIDE = "10.20.30.40"
OPEN_ZAAK, OPEN_KLANT = "open-zaak.gemeente.test", "open-klant.gemeente.test"


@dataclass
class Internal:
    """The names' addresses (change them to re-point a name), the CA file a service must trust, the TLS
    of each fake, and every address a connection was made to through the route."""
    addresses: dict[str, str]
    ca_file: str
    openzaak_tls: Tls
    klant_tls: Tls
    connected_to: list[str] = field(default_factory=list)


def _tls(ca_key: Any, ca: Any, name: str, directory: Path) -> Tls:
    key = ec.generate_private_key(ec.SECP256R1())
    (directory / f"{name}.pem").write_bytes(pem(issue(ca_key, ca, key, name)))
    (directory / f"{name}.key").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(directory / f"{name}.pem", directory / f"{name}.key")
    return Tls(context, name)


def internal_network(directory: Path, monkeypatch: Any) -> Internal:
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = self_signed(ca_key, "Gemeente Test CA", ca=True)
    (directory / "gemeente-ca.pem").write_bytes(pem(ca))
    made = Internal({OPEN_ZAAK: INSIDE, OPEN_KLANT: INSIDE}, str(directory / "gemeente-ca.pem"),
                    _tls(ca_key, ca, OPEN_ZAAK, directory), _tls(ca_key, ca, OPEN_KLANT, directory))
    monkeypatch.setattr(socket, "getaddrinfo", _dns(made, socket.getaddrinfo))
    monkeypatch.setattr(urllib3.util.connection, "create_connection",
                        _route(made, urllib3.util.connection.create_connection))
    return made


def _dns(internal: Internal, system: Callable[..., Any]) -> Callable[..., Any]:
    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if isinstance(name, str) and name.endswith(".gemeente.test"):
            if name not in internal.addresses:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            address = internal.addresses[name]
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))]
        return system(host, port, *args, **kwargs)
    return getaddrinfo


def _route(internal: Internal, connect: Callable[..., Any]) -> Callable[..., Any]:
    inside = ipaddress.ip_network(NETWORK)

    def create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> Any:
        host, port = address
        try:
            routed = ipaddress.ip_address(host) in inside
        except ValueError:
            routed = False
        internal.connected_to.append(host)
        return connect(("127.0.0.1" if routed else host, port), *args, **kwargs)
    return create_connection
