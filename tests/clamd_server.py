"""A private clamd (Debian's clamav-daemon) for tests: its own config, socket and signature database
in a temporary directory, listening on a free loopback TCP port and a Unix socket.

freshclam cannot reach ClamAV's mirrors here, so the database is written by the test: the EICAR
test file and one signature of our own, both as body signatures (.ndb, any offset), so clamd also
finds them inside what it unpacks (PDF streams, zip members). ClamAV names signatures from a
database it did not sign "<name>.UNOFFICIAL".

Use the `clamd` fixture (module scope: with a two-line database clamd is up in well under a second,
but one start per module is enough) by importing it into a test module.
"""
from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.infrastructure.virus_scan import EICAR
from tests.conftest import _free_port

OWN_MARKER = b"NOTIFY-NL-TEST-MALWARE-MARKER-7c1e"  # what our own signature matches
EICAR_FOUND = "Eicar-Test-Signature.UNOFFICIAL"
OWN_FOUND = "Notify-Test-Marker.UNOFFICIAL"
STREAM_MAX = 2 * 1024 * 1024  # StreamMaxLength: a longer INSTREAM is refused with an ERROR


def clamd_binary() -> str | None:
    # Debian installs it in /usr/sbin, which an ordinary user's PATH may lack.
    return shutil.which("clamd") or shutil.which("clamd", path="/usr/sbin:/usr/local/sbin")


class PrivateClamd:
    def __init__(self, directory: Path) -> None:
        binary = clamd_binary()
        assert binary is not None
        self.binary, self.directory, self.port = binary, directory, _free_port()
        self.socket_path = directory / "clamd.sock"
        self.tcp_url = f"tcp://127.0.0.1:{self.port}"
        self.unix_url = f"unix://{self.socket_path}"
        self.process: subprocess.Popen | None = None
        database = directory / "db"
        database.mkdir()
        (database / "notify-test.ndb").write_text(
            f"Eicar-Test-Signature:0:*:{EICAR.hex()}\nNotify-Test-Marker:0:*:{OWN_MARKER.hex()}\n")
        self.config = directory / "clamd.conf"
        self.config.write_text("\n".join([
            "Foreground yes", f"DatabaseDirectory {database}", f"LocalSocket {self.socket_path}",
            "TCPAddr 127.0.0.1", f"TCPSocket {self.port}", f"LogFile {directory / 'clamd.log'}",
            f"StreamMaxLength {STREAM_MAX}", "SelfCheck 0", "",
        ]))

    def start(self) -> None:
        self.process = subprocess.Popen([self.binary, "--config-file", str(self.config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while not self._answers():
            if self.process.poll() is not None:
                raise AssertionError(f"clamd exited with {self.process.returncode}: {self.log()[-2000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"clamd not ready within 30 s: {self.log()[-2000:]}")
            time.sleep(0.05)

    def kill(self) -> None:
        """Gone at once, as in a crash; its connections are cut mid-scan."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.socket_path.unlink(missing_ok=True)  # a killed clamd leaves its socket file behind

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        path = self.directory / "clamd.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"zPING\0")
                return sock.recv(16).startswith(b"PONG")
        except OSError:
            return False


@contextlib.contextmanager
def private_clamd() -> Iterator[PrivateClamd]:
    # Short: a Unix socket's path may be at most 108 bytes.
    directory = Path(tempfile.mkdtemp(prefix="clamd-", dir="/tmp"))
    server = PrivateClamd(directory)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def clamd() -> Iterator[PrivateClamd]:
    """A running private clamd; skipped only where Debian's clamav-daemon is not installed."""
    if clamd_binary() is None:
        pytest.skip("clamd is not installed (Debian package clamav-daemon)")
    with private_clamd() as server:
        yield server
