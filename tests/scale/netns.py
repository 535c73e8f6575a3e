"""Hosts on this machine: network namespaces joined by veth pairs to one bridge (Linux, root).

The bridge's own address is the test process's way in; each host runs processes with
`ip netns exec`. Everything made is removed by close(), also after a failure.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def available() -> str | None:
    """None when namespaces can be made here, else why not."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    probe = f"nsprobe{uuid.uuid4().hex[:6]}"
    try:
        _ip("netns", "add", probe)
    except (OSError, subprocess.CalledProcessError) as exc:
        return f"ip netns add failed: {exc}"
    _ip("netns", "del", probe)
    return None


@dataclass
class Host:
    name: str  # the namespace
    address: str
    processes: list[subprocess.Popen] = field(default_factory=list)

    def start(self, command: list[str], *, env: dict[str, str], cwd: str, log: str) -> subprocess.Popen:
        with open(log, "ab") as out:
            process = subprocess.Popen(["ip", "netns", "exec", self.name, *command], env=env, cwd=cwd,
                                       stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append(process)
        return process

    def run(self, command: list[str], *, env: dict[str, str], cwd: str) -> str:
        done = subprocess.run(["ip", "netns", "exec", self.name, *command], env=env, cwd=cwd,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def pids(self) -> list[int]:
        listed = subprocess.run(["ip", "netns", "pids", self.name], capture_output=True, text=True).stdout
        return [int(pid) for pid in listed.split()]

    def kill(self) -> None:
        """Pull the plug: every process of the host dies at once, with no chance to clean up."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass


class Network:
    def __init__(self) -> None:
        tag = uuid.uuid4().hex[:5]
        self.tag = tag
        self.subnet = f"10.{random.randint(100, 250)}.{random.randint(1, 250)}"
        self.bridge = f"nbr{tag}"
        self.gateway = f"{self.subnet}.1"
        self.hosts: dict[str, Host] = {}
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")

    def add_host(self, label: str) -> Host:
        number = len(self.hosts) + 2
        name, outside = f"n{self.tag}{label}", f"v{self.tag}{number}"
        host = Host(name=name, address=f"{self.subnet}.{number}")
        self.hosts[label] = host
        _ip("netns", "add", name)
        _ip("link", "add", outside, "type", "veth", "peer", "name", "eth0", "netns", name)
        _ip("link", "set", outside, "master", self.bridge, "up")
        _ip("-n", name, "addr", "add", f"{host.address}/24", "dev", "eth0")
        _ip("-n", name, "link", "set", "eth0", "up")
        _ip("-n", name, "link", "set", "lo", "up")
        return host

    def close(self) -> None:
        for host in self.hosts.values():
            host.kill()
            subprocess.run(["ip", "netns", "del", host.name], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)

    @staticmethod
    def wait_until(predicate, timeout: float, what: str):  # noqa: ANN001, ANN205
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = predicate()
            except Exception:  # noqa: BLE001  (a server still starting refuses in many ways)
                value = None
            if value:
                return value
            time.sleep(0.2)
        raise AssertionError(f"{what} not within {timeout} s")
