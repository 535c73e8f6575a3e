"""`python3 dev.py run` as a newcomer runs it: a SQLite file, the embedded Redis and the local mailbox,
all under its instance directory; a line for each phase, the console's address and set-up link again
as its last lines once everything answers, every port it opens on 127.0.0.1 only (LISTEN_ADDRESS opens
the API and the console), and nothing of it left running after Ctrl-C. Deployed
without SMTP_URL (no dev.py), the processes say at start-up that email goes nowhere. `python3 dev.py
test` leaves nothing running either, even when pytest dies in the middle of a test."""
from __future__ import annotations

import ipaddress
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _running(pid: int) -> bool:
    """True while the process exists and is not a zombie (a daemon's parent may be slow to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = (task / "children").read_text().split()
        except FileNotFoundError:
            continue
        for child in map(int, children):
            found |= {child, *_descendants(child)}
    return found


def _listening_on(pids: set[int]) -> set[tuple[str, int]]:
    """The (address, port) of every TCP socket these processes listen on, from Linux's /proc."""
    inodes = set()
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").glob("*"):
            try:
                target = os.readlink(fd)
            except OSError:  # closed meanwhile, or the process is gone
                continue
            if target.startswith("socket:["):
                inodes.add(target.removeprefix("socket:[").removesuffix("]"))
    found = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            local, state, inode = line.split()[1], line.split()[3], line.split()[9]
            if state == "0A" and inode in inodes:  # 0A: LISTEN
                host, port = local.split(":")
                # The kernel prints each 32-bit word of the address in the host's (little-endian) order.
                raw = b"".join(bytes.fromhex(host)[i:i + 4][::-1] for i in range(0, len(host) // 2, 4))
                found.add((str(ipaddress.ip_address(raw)), int(port, 16)))
    return found


def _network_address() -> str | None:
    """This machine's address on its network (the one its default route leaves from), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # a UDP socket's connect sends nothing: it only picks the route
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if ipaddress.ip_address(address).is_loopback else address


def _answers_on(address: str, port: int) -> bool:
    try:
        socket.create_connection((address, port), timeout=2).close()
        return True
    except OSError:
        return False


PHASES = ["dev.py: starting the embedded Redis (REDIS_URL is not set)",
          "dev.py: starting the local mailbox (SMTP_URL is not set)",
          "dev.py: migrating the database",
          "dev.py: starting web, console, worker, jobs and scheduler (Procfile); their lines follow"]


SUMMARY = re.compile(r"^dev\.py: everything answers.*\n.*\nset up the first platform admin .*\n", re.MULTILINE)


def _lines_of(process_type: str, log: str) -> list[str]:
    return [line for line in log.splitlines() if f" {process_type}." in line.split("|", 1)[0]]


def test_run_says_each_phase_and_ends_with_the_console_and_its_link_then_ctrl_c_stops_everything(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SMTP_URL", "ADMIN_URL",
                                                            "BASE_URL", "LOCAL_MAILBOX_DIR", "LISTEN_ADDRESS",
                                                            "dramatiq_prom_host")}
    web_port, console_port = _free_port(), _free_port()
    env.update(INSTANCE_DIR=str(tmp_path), PORT=str(web_port), CONSOLE_PORT=str(console_port),
               WEB_CONCURRENCY="1", PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"))
    (tmp_path / "metrics").mkdir()
    log_path = tmp_path / "dev.log"
    with log_path.open("w") as log:
        # A session of its own, as a terminal's foreground job: Ctrl-C signals the whole group.
        run = subprocess.Popen([sys.executable, "dev.py", "run"], cwd=ROOT, env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        # Waited for as a person would: until it says everything answers, and prints the link again.
        deadline = time.monotonic() + 240
        while not SUMMARY.search(output := log_path.read_text()):
            assert run.poll() is None and time.monotonic() < deadline, output
            time.sleep(0.5)
        assert _listening(web_port) and _listening(console_port)
        before, after = output.split("dev.py: everything answers", 1)
        said = [line for line in before.splitlines() if line.startswith("dev.py: ")]
        assert said == PHASES, said
        # Every process had said it was ready before the summary: two worker processes, the jobs one,
        # the web and the console.
        assert before.count("Worker process is ready for action.") == 3
        assert all("Worker ready" in "".join(_lines_of(kind, before)) for kind in ("web", "console"))
        assert after.startswith(f": the API at http://127.0.0.1:{web_port}, the console, 3 worker processes\n")
        console_lines = [f"web console at       http://127.0.0.1:{console_port}",
                         f"set up the first platform admin (one-time link, valid 24 hours): http://127.0.0.1:"
                         f"{console_port}/invitation/"]
        last = after.splitlines()[1:3]
        assert last[0] == console_lines[0] and last[1].startswith(console_lines[1])
        assert "\n".join(last) + "\n" in before  # the same link as at first: made once, said twice
        redis_pid = int((tmp_path / "embedded-redis.pid").read_text())
        mailbox_port = int(output.split("local mailbox at      smtp://127.0.0.1:")[1].split()[0])
        started = _descendants(run.pid) | {redis_pid}
        assert _running(redis_pid) and _listening(mailbox_port) and len(started) > 10
        # Only this machine reaches any of it: the one-time set-up link above is not open to the network.
        listening = _listening_on(started)
        assert {(address, port) for address, port in listening if port in (web_port, console_port, mailbox_port)} \
            == {("127.0.0.1", web_port), ("127.0.0.1", console_port), ("127.0.0.1", mailbox_port)}
        assert {address for address, port in listening} == {"127.0.0.1"}, listening
        if network := _network_address():
            assert not _answers_on(network, web_port) and not _answers_on(network, console_port)

        os.killpg(run.pid, signal.SIGINT)
        assert run.wait(timeout=60) is not None
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGTERM)
            run.wait()
    deadline = time.monotonic() + 10
    while any(map(_running, started)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(redis_pid), "the embedded Redis outlived dev.py run"
    assert not _listening(mailbox_port), "the local mailbox outlived dev.py run"
    assert [pid for pid in started if _running(pid)] == []
    assert not (tmp_path / "embedded-redis.url").exists()


def test_listen_address_opens_the_api_and_the_console_to_the_network_and_not_the_mailbox(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SMTP_URL", "ADMIN_URL",
                                                            "BASE_URL", "LOCAL_MAILBOX_DIR")}
    web_port, console_port = _free_port(), _free_port()
    env.update(INSTANCE_DIR=str(tmp_path), PORT=str(web_port), CONSOLE_PORT=str(console_port), WEB_CONCURRENCY="1",
               PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"), LISTEN_ADDRESS="0.0.0.0")
    (tmp_path / "metrics").mkdir()
    log_path = tmp_path / "dev.log"
    with log_path.open("w") as log:
        run = subprocess.Popen([sys.executable, "dev.py", "run"], cwd=ROOT, env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    started: set[int] = set()
    try:
        # Listening is enough: the sockets are the servers' first act, before their apps are loaded.
        deadline = time.monotonic() + 240
        while not (_listening(web_port) and _listening(console_port)):
            assert run.poll() is None and time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.5)
        mailbox_port = int(log_path.read_text().split("local mailbox at      smtp://127.0.0.1:")[1].split()[0])
        started = _descendants(run.pid)
        listening = _listening_on(started)
        assert {("0.0.0.0", web_port), ("0.0.0.0", console_port), ("127.0.0.1", mailbox_port)} <= listening
        if network := _network_address():
            assert _answers_on(network, web_port) and _answers_on(network, console_port)
            assert not _answers_on(network, mailbox_port)
        os.killpg(run.pid, signal.SIGINT)
        assert run.wait(timeout=60) is not None
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGTERM)
            run.wait()
    deadline = time.monotonic() + 10
    while any(map(_running, started)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in started if _running(pid)] == []
    assert not (tmp_path / "embedded-redis.url").exists()


def test_a_test_run_whose_pytest_dies_mid_test_leaves_nothing_running(tmp_path):
    """pytest killed outright (a crash, the OOM killer) runs no teardown: dev.py test stops what it left,
    the embedded Redis and a daemon outside pytest's process tree included."""
    report = tmp_path / "leftovers.json"
    # SQLite and an embedded Redis of the inner run's own: it must not touch this suite's database.
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env["LEFTOVERS_REPORT"] = str(report)
    inner = subprocess.Popen([sys.executable, "dev.py", "test", "-q", "-p", "no:cacheprovider",
                              "tests/dev_test_leftovers.py"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while not report.exists() or not report.read_text():
            assert inner.poll() is None and time.monotonic() < deadline, inner.stdout.read() if inner.stdout else ""
            time.sleep(0.2)
        started = json.loads(report.read_text())
        assert started["redis"] is not None and all(map(_running, started.values())), started
        run_dir = Path(f"/proc/{started['pytest']}/environ").read_bytes().split(b"TMPDIR=", 1)[1].split(b"\0")[0]

        os.kill(started["pytest"], signal.SIGKILL)
        assert inner.wait(timeout=120) != 0
    finally:
        if inner.poll() is None:
            os.killpg(inner.pid, signal.SIGKILL)
            inner.wait()
    assert [name for name, pid in started.items() if _running(pid)] == []
    assert not Path(run_dir.decode()).exists()


def test_deployed_without_smtp_url_the_console_and_workers_say_email_goes_nowhere(tmp_path):
    from config import get_settings, redis_url

    env = {k: v for k, v in os.environ.items() if k not in ("SMTP_URL", "LOCAL_MAILBOX_DIR")}
    # The tests' own Redis: with none named, the processes would start an embedded one and leave it.
    env.update(INSTANCE_DIR=str(tmp_path), REDIS_URL=redis_url(get_settings()))
    # The console's app as gunicorn builds it, and the worker supervisor up to where it would start workers.
    start = ("from console import create_console_app; create_console_app()\n"
             "from workers import supervise; supervise.supervise = lambda slots, stop: None; supervise.main([])")
    quiet = subprocess.run([sys.executable, "-c", start], cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=120)
    said = quiet.stdout + quiet.stderr
    assert quiet.returncode == 0, said
    assert said.count("SMTP_URL is not set: every email, including the console's invitations, password reset "
                      "links and sign-in codes, goes to the simulated provider and reaches nobody") == 2, said

    env["SMTP_URL"] = "smtp://127.0.0.1:2525"
    configured = subprocess.run([sys.executable, "-c", start], cwd=ROOT, env=env, capture_output=True, text=True,
                                timeout=120)
    assert configured.returncode == 0 and "SMTP_URL is not set" not in configured.stdout + configured.stderr
