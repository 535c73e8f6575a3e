"""One SFTP connection to the print house: where (PRINT_SFTP_URL), as whom (PRINT_SFTP_KEY_FILE) and
to which server (PRINT_SFTP_HOST_KEY, the server's host key pinned).

The host key is checked right after the key exchange, before we authenticate: a server offering
another key learns nothing of ours and is sent nothing. That, a key the server refuses and a key
file we cannot read are PrintHeld (an operator must act); a connection that fails or drops is
PrintTransferError (worth retrying).
"""
from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import socket
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import paramiko

from pipeline.infrastructure.print_provider.base import PrintHeld, PrintTransferError

# The host key types a pin may name, and the algorithms each is offered under (RSA keys sign with SHA-2).
_ALGORITHMS = {
    "ssh-ed25519": ("ssh-ed25519",),
    "ecdsa-sha2-nistp256": ("ecdsa-sha2-nistp256",),
    "ecdsa-sha2-nistp384": ("ecdsa-sha2-nistp384",),
    "ecdsa-sha2-nistp521": ("ecdsa-sha2-nistp521",),
    "ssh-rsa": ("rsa-sha2-512", "rsa-sha2-256"),
}
TRANSFER_ERRORS = (OSError, EOFError, paramiko.SSHException)


@dataclass(frozen=True)
class SftpTarget:
    user: str
    host: str
    port: int
    root: str  # the drop's folder on the server; "." is the login folder

    @classmethod
    def parse(cls, url: str) -> SftpTarget:
        """sftp://user@host[:port][/path]: the path is taken as written (absolute), none is the login folder."""
        problem = cls.problem(url)
        if problem:
            raise ValueError(f"PRINT_SFTP_URL {problem}")
        parts = urllib.parse.urlsplit(url)
        assert parts.hostname and parts.username  # checked by problem()
        path = urllib.parse.unquote(parts.path).rstrip("/") or ("/" if parts.path else ".")
        return cls(urllib.parse.unquote(parts.username), parts.hostname, parts.port or 22, path)

    @staticmethod
    def problem(url: str) -> str | None:
        """Why PRINT_SFTP_URL cannot be used, or None (never quoting a password it holds)."""
        try:
            parts = urllib.parse.urlsplit(url)
            parts.port  # noqa: B018  (raises ValueError for a port that is not a number or out of range)
        except ValueError:
            return "must look like sftp://user@host:22/path (its port is not a number from 1 to 65535)"
        if parts.password is not None:
            return "takes no password: the print house is reached with PRINT_SFTP_KEY_FILE"
        if parts.scheme != "sftp" or not parts.hostname or not parts.username:
            return f"must look like sftp://user@host:22/path, not {url!r}"
        return None

    def __str__(self) -> str:
        return f"sftp://{self.user}@{self.host}:{self.port}{self.root if self.root != '.' else ''}"


def fingerprint(blob: bytes) -> str:
    """OpenSSH's SHA256 fingerprint of a public key blob, as `ssh-keygen -l` prints it."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


@dataclass(frozen=True)
class HostKeyPin:
    """The one host key the print house's server may offer: its public key ("ssh-ed25519 AAAA...", as
    in its .pub file or known_hosts), or only its SHA256 fingerprint ("SHA256:..."); with a
    fingerprint alone, the key the server offers first is the one compared."""
    fingerprint: str
    key_type: str | None

    @classmethod
    def parse(cls, text: str) -> HostKeyPin:
        fields = text.split()
        if len(fields) == 1 and fields[0].startswith("SHA256:"):
            return cls(fields[0].rstrip("="), None)
        if len(fields) >= 2 and fields[0] in _ALGORITHMS:
            try:
                blob = base64.b64decode(fields[1], validate=True)
            except binascii.Error:
                blob = b""
            if blob:
                return cls(fingerprint(blob), fields[0])
        raise ValueError(f"PRINT_SFTP_HOST_KEY must be the server's public key (\"ssh-ed25519 AAAA...\") "
                         f"or its SHA256 fingerprint (\"SHA256:...\"), not {text!r}")

    @classmethod
    def problem(cls, text: str) -> str | None:
        """Why PRINT_SFTP_HOST_KEY cannot be used, or None."""
        try:
            cls.parse(text)
        except ValueError as error:
            return str(error).removeprefix("PRINT_SFTP_HOST_KEY ")
        return None

    def algorithms(self) -> tuple[str, ...] | None:
        """The host key algorithms to offer in the key exchange: the pinned key's own, so a server
        with several host keys shows the pinned one."""
        if self.key_type is None:
            return None
        return _ALGORITHMS[self.key_type]


@dataclass(frozen=True)
class SftpAccess:
    target: SftpTarget
    key_file: Path
    host_key: HostKeyPin
    timeout: float


def _private_key(path: Path) -> paramiko.PKey:
    try:
        return paramiko.PKey.from_path(path)
    except (OSError, paramiko.SSHException, ValueError) as error:
        raise PrintHeld(f"the private key file {path} cannot be read: {error}") from error


def _check_host_key(transport: paramiko.Transport, access: SftpAccess) -> None:
    offered = transport.get_remote_server_key()
    seen = fingerprint(offered.asbytes())
    if seen != access.host_key.fingerprint:
        raise PrintHeld(f"{access.target.host}:{access.target.port} offers host key {offered.get_name()} {seen}, "
                        f"not the one PRINT_SFTP_HOST_KEY pins ({access.host_key.fingerprint}): nothing sent")


@contextlib.contextmanager
def connect(access: SftpAccess) -> Iterator[paramiko.SFTPClient]:
    """An SFTP session as `access` says, closed on leaving; raises PrintHeld or PrintTransferError."""
    key = _private_key(access.key_file)
    target = access.target
    try:
        sock = socket.create_connection((target.host, target.port), timeout=access.timeout)
    except OSError as error:
        raise PrintTransferError(f"cannot reach {target}: {error}") from error
    transport = paramiko.Transport(sock)
    try:
        transport.banner_timeout = transport.auth_timeout = access.timeout
        algorithms = access.host_key.algorithms()
        if algorithms is not None:
            transport.get_security_options().key_types = algorithms
        try:
            transport.start_client(timeout=access.timeout)
        except TRANSFER_ERRORS as error:
            raise PrintTransferError(f"no SSH session with {target}: {error}") from error
        _check_host_key(transport, access)
        try:
            transport.auth_publickey(target.user, key)
        except paramiko.AuthenticationException as error:
            raise PrintHeld(f"{target} refused the key in {access.key_file} for user {target.user}: "
                            f"{error}") from error
        except TRANSFER_ERRORS as error:
            raise PrintTransferError(f"no SSH session with {target}: {error}") from error
        try:
            sftp = paramiko.SFTPClient.from_transport(transport)
        except TRANSFER_ERRORS as error:
            raise PrintTransferError(f"no SFTP session with {target}: {error}") from error
        if sftp is None:
            raise PrintTransferError(f"{target} opened no SFTP session")
        sftp.get_channel().settimeout(access.timeout)
        yield sftp
    finally:
        transport.close()
