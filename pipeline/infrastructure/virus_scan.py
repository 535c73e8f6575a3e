"""Virus scanning of uploaded files (send a file by email) and precompiled letters.

Two scanners behind one small interface:
- EicarScanner, the built-in default: knows one signature, the EICAR test file, so the whole
  pending-virus-check -> virus-scan-failed path can be exercised without a real engine.
- ClamdScanner: a client for a real clamd daemon speaking the INSTREAM protocol over TCP or a
  Unix socket. (The `clamd` package on PyPI is unmaintained and the protocol is a few lines.)
Connection problems raise ScannerUnavailable, which the caller retries; a scan never "passes"
because the scanner could not be reached.
"""

from __future__ import annotations

import base64
import binascii
import re
import socket
import struct
import urllib.parse
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from io import BytesIO
from typing import NamedTuple, Protocol, runtime_checkable


class ScanResult(NamedTuple):
    clean: bool
    signature: str | None  # the engine's name for what it found; None when clean


class ScannerUnavailable(Exception):
    """The scanner could not give an answer (down, timed out, or replied ERROR). Retryable."""


@runtime_checkable
class Scanner(Protocol):
    def scan(self, data: bytes) -> ScanResult: ...


# The 68-byte EICAR test string, assembled at import time: written out whole in this file, it
# would make anti-virus software quarantine the repository. First part is stored reversed.
EICAR = b"}7)CC7)^P(45XZP\\4[PA@%P!O5X"[::-1] + b"$EICAR-STANDARD-ANTIVIRUS-" + b"TEST-FILE!$H+H*"
EICAR_SIGNATURE = "Eicar-Test-Signature"

# Like ClamAV, look inside the containers we accept (PDF streams, zip-based office files), but
# with a budget so a small "decompression bomb" cannot make the default scanner eat the memory.
_INFLATE_BUDGET = 64 * 1024 * 1024
_PDF_STREAM = re.compile(rb"stream\r?\n(.*?)\r?\n?endstream", re.DOTALL)
_HEX = re.compile(rb"[0-9A-Fa-f\s]+")


@dataclass
class _Budget:
    bytes_left: int = _INFLATE_BUDGET


class EicarScanner:
    """Finds the EICAR test signature anywhere in the bytes, in inflated PDF streams or zip members."""

    def scan(self, data: bytes) -> ScanResult:
        found = any(EICAR in part for part in self._parts(data, _Budget(), depth=0))
        return ScanResult(clean=False, signature=EICAR_SIGNATURE) if found else ScanResult(clean=True, signature=None)

    def _parts(self, data: bytes, budget: _Budget, depth: int) -> Iterator[bytes]:
        yield data
        if depth >= 2 or budget.bytes_left <= 0:  # a PDF inside a zip is as deep as we go
            return
        if b"%PDF-" in data[:1024]:
            for match in _PDF_STREAM.finditer(data):
                inflated = self._inflate(self._unwrap_ascii(match.group(1)), budget)
                if inflated:
                    yield from self._parts(inflated, budget, depth + 1)
        if data.startswith(b"PK\x03\x04"):
            try:
                with zipfile.ZipFile(BytesIO(data)) as archive:
                    for info in archive.infolist():
                        if info.file_size > budget.bytes_left:
                            continue
                        member = archive.read(info)
                        budget.bytes_left -= len(member)
                        yield from self._parts(member, budget, depth + 1)
            except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError,
                    EOFError, zlib.error):
                return  # not a zip we can open (damaged, encrypted): the raw bytes were scanned

    @staticmethod
    def _unwrap_ascii(raw: bytes) -> bytes:
        """Undo an ASCII85 or ASCIIHex layer (reportlab writes /ASCII85Decode /FlateDecode by default)."""
        text = raw.strip()
        try:
            if text.endswith(b"~>"):
                return base64.a85decode(text[:-2])
            if text.endswith(b">") and _HEX.fullmatch(text[:-1]):
                hex_digits = re.sub(rb"\s", b"", text[:-1])
                return binascii.unhexlify(hex_digits + b"0" * (len(hex_digits) % 2))
        except (ValueError, binascii.Error):
            pass  # not that encoding after all
        return raw

    @staticmethod
    def _inflate(raw: bytes, budget: _Budget) -> bytes:
        try:
            inflated = zlib.decompressobj().decompress(raw, budget.bytes_left)
        except zlib.error:
            return b""  # not Flate (or damaged): the raw bytes were scanned already
        budget.bytes_left -= len(inflated)
        return inflated


def clamd_url_problem(url: str) -> str | None:
    """Why a clamd URL (CLAMD_URL) cannot be used, or None."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError for a port that is not a number or out of range)
    except ValueError:
        return "has a port that is not a number from 1 to 65535"
    if (parts.scheme == "tcp" and parts.hostname) or (parts.scheme == "unix" and (parts.netloc or parts.path)):
        return None
    return "must be tcp://host:port or unix:///path"


class ClamdScanner:
    """clamd INSTREAM client. `url` is tcp://host:port (port defaults to 3310) or unix:///path."""

    CHUNK_SIZE = 64 * 1024  # well under clamd's default StreamMaxLength; any size works
    _MAX_REPLY = 4096

    def __init__(self, url: str, *, timeout: float = 30.0) -> None:
        problem = clamd_url_problem(url)
        if problem:
            raise ValueError(f"clamd URL {url!r} {problem}")
        parts = urllib.parse.urlsplit(url)
        self.timeout = timeout
        if parts.scheme == "tcp":
            self._address: tuple[str, int] | str = (parts.hostname or "", parts.port or 3310)
        else:
            self._address = parts.netloc + parts.path  # unix:///run/clamd.sock or unix://run/clamd.sock
        self.url = url

    def __repr__(self) -> str:
        return f"ClamdScanner({self.url!r}, timeout={self.timeout})"

    def _connect(self) -> socket.socket:
        if isinstance(self._address, tuple):
            return socket.create_connection(self._address, timeout=self.timeout)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(self.timeout)
            sock.connect(self._address)
        except OSError:
            sock.close()
            raise
        return sock

    def scan(self, data: bytes) -> ScanResult:
        try:
            with self._connect() as sock:
                try:
                    sock.sendall(b"zINSTREAM\0")
                    for start in range(0, len(data), self.CHUNK_SIZE):
                        chunk = data[start:start + self.CHUNK_SIZE]
                        sock.sendall(struct.pack(">I", len(chunk)) + chunk)
                    sock.sendall(struct.pack(">I", 0))  # zero-length chunk: end of stream
                except (BrokenPipeError, ConnectionResetError):
                    pass  # clamd hangs up mid-stream when over its size limit, after writing why
                reply = self._read_reply(sock)
        except OSError as error:  # refused, unreachable, timed out (socket.timeout is an OSError)
            raise ScannerUnavailable(f"clamd at {self.url}: {error}") from error
        return self._parse(reply)

    def _read_reply(self, sock: socket.socket) -> str:
        reply = b""
        while b"\0" not in reply and len(reply) < self._MAX_REPLY:
            piece = sock.recv(1024)
            if not piece:
                break
            reply += piece
        return reply.split(b"\0", 1)[0].decode("utf-8", "replace").strip()

    def _parse(self, reply: str) -> ScanResult:
        # "stream: OK" | "stream: <signature> FOUND" | "<message> ERROR"
        if reply == "stream: OK":
            return ScanResult(clean=True, signature=None)
        if reply.startswith("stream: ") and reply.endswith(" FOUND"):
            return ScanResult(clean=False, signature=reply[len("stream: "):-len(" FOUND")])
        raise ScannerUnavailable(f"clamd at {self.url} answered {reply or 'nothing'!r}")


def scanner_from_url(url: str | None) -> Scanner:
    """None or "" -> the built-in EicarScanner; tcp://host:port or unix:///path -> ClamdScanner."""
    if not url:
        return EicarScanner()
    return ClamdScanner(url)

