"""`python3 dev.py run` as a newcomer runs it: a SQLite file, the embedded Redis and the local mailbox,
all under its instance directory, and nothing of it left running after Ctrl-C. Deployed without
SMTP_URL (no dev.py), the processes say at start-up that email goes nowhere."""
from __future__ import annotations

import os
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


def test_ctrl_c_stops_everything_it_started_with_the_embedded_redis_and_the_local_mailbox(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SMTP_URL", "ADMIN_URL",
                                                            "BASE_URL", "LOCAL_MAILBOX_DIR")}
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
        # Stopped once everything is up, as a person would: the two worker processes and the jobs one
        # ready, the web and the console answering.
        deadline = time.monotonic() + 180
        while (log_path.read_text().count("Worker process is ready for action.") < 3
               or not _listening(web_port) or not _listening(console_port)):
            assert run.poll() is None and time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.5)
        output = log_path.read_text()
        assert "local mailbox at" in output and "web console at" in output
        redis_pid = int((tmp_path / "embedded-redis.pid").read_text())
        mailbox_port = int(output.split("local mailbox at      smtp://127.0.0.1:")[1].split()[0])
        started = _descendants(run.pid) | {redis_pid}
        assert _running(redis_pid) and _listening(mailbox_port) and len(started) > 10

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
