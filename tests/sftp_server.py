"""A real OpenSSH server (Debian's openssh-server, /usr/sbin/sshd) on 127.0.0.1 serving SFTP, for tests.

    with SftpServer(tmp_path) as server:         # or the `sftp_server` fixture below
        server.url          sftp://<current user>@127.0.0.1:<port><drop folder>
        server.drop         the drop folder on this machine (the server's outbox, inbox, sent...)
        server.key_file     the client's private key, in the server's authorized_keys
        server.host_key     the server's public host key line ("ssh-ed25519 AAAA...")
        server.settings(settings) the settings pointing PRINT_PROVIDER=sftp at it

It runs with its own sshd_config, host key and authorized_keys in a temporary folder, as the current
user (root logs in with a key only), with the sftp subsystem in-process (internal-sftp).
- kill_sessions(): SIGKILL every connection's processes, as a dropped connection; the listener stays.
- pause_sessions(): SIGSTOP them, to hold a transfer where it is (kill_sessions() ends them).
- stop() / start(): the whole server down and up again on the same port; new_host_key() first makes
  it offer another key.
"""
from __future__ import annotations

import dataclasses
import getpass
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "", "-f", str(path)], check=True)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


class SftpServer:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.drop = folder / "drop"
        self.drop.mkdir(parents=True)
        self.port = _free_port()
        self.user = getpass.getuser()
        self.key_file = folder / "client_key"
        _keygen(self.key_file)
        (folder / "authorized_keys").write_text((folder / "client_key.pub").read_text())
        self._host_key_file = folder / "host_key"
        _keygen(self._host_key_file)
        self._process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"sftp://{self.user}@127.0.0.1:{self.port}{self.drop}"

    @property
    def host_key(self) -> str:
        return (self.folder / "host_key.pub").read_text().strip()

    def settings(self, settings):
        return dataclasses.replace(settings, print_provider="sftp", print_sftp_url=self.url,
                                   print_sftp_key_file=self.key_file, print_sftp_host_key=self.host_key,
                                   print_sftp_timeout_seconds=5.0)

    def new_host_key(self) -> None:
        for path in (self._host_key_file, self.folder / "host_key.pub"):
            path.unlink()
        _keygen(self._host_key_file)

    def start(self) -> None:
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation folder
        config = self.folder / "sshd_config"
        config.write_text("\n".join([
            f"ListenAddress 127.0.0.1:{self.port}", f"HostKey {self._host_key_file}",
            f"AuthorizedKeysFile {self.folder / 'authorized_keys'}", f"PidFile {self.folder / 'sshd.pid'}",
            "Subsystem sftp internal-sftp", "StrictModes no", "UsePAM no", "PasswordAuthentication no",
            "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password", "MaxStartups 100",
            f"AllowUsers {self.user}", "",
        ]))
        with open(self.folder / "sshd.log", "ab") as log:  # sshd's own log, read when it fails to start
            self._process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=log, stderr=log)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self._process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(f"sshd did not start: {(self.folder / 'sshd.log').read_text()}") from None
                time.sleep(0.05)

    def sessions(self) -> list[int]:
        """The processes of every open connection (each a child of the listener, and theirs)."""
        assert self._process is not None
        found, todo = [], _children(self._process.pid)
        while todo:
            pid = todo.pop()
            found.append(pid)
            todo.extend(_children(pid))
        return found

    def _signal_sessions(self, signum: int) -> int:
        pids = self.sessions()
        for pid in pids:
            try:
                os.kill(pid, signum)
            except ProcessLookupError:
                pass
        return len(pids)

    def kill_sessions(self) -> int:
        return self._signal_sessions(signal.SIGKILL)

    def pause_sessions(self) -> int:
        return self._signal_sessions(signal.SIGSTOP)

    def stop(self) -> None:
        if self._process is not None:
            self.kill_sessions()
            self._process.kill()
            self._process.wait(timeout=10)
            self._process = None

    def __enter__(self) -> SftpServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def sftp_server(tmp_path):
    with SftpServer(tmp_path / "sftp") as server:
        yield server
