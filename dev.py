#!/usr/bin/env python3
"""The two commands of the README, needing nothing but Python 3.11 on the machine, and the checks CI runs first.

    python3 dev.py run    install what runs (requirements.txt) into .venv, migrate, start web + console + worker
                          + jobs + scheduler (Procfile); once they all answer, print the console's address again
    python3 dev.py test   install that and the test tools (requirements-dev.txt) into .venv, run the test suite;
                          nothing it started is left running
    python3 dev.py lint   the same install, then ruff over the tree, mypy over core/, pipeline/, models/, and
                          tools/private_names.py (no private name of the libraries we lean on)
    python3 dev.py lock   make requirements.txt and requirements-dev.txt again from pyproject.toml (with hashes,
                          from PyPI); `lock --upgrade` takes the newest versions pyproject.toml allows

DATABASE_URL and REDIS_URL choose PostgreSQL and a Redis server; unset, a SQLite file and an
embedded Redis under instance/ are used. `run` listens on 127.0.0.1 only; LISTEN_ADDRESS=0.0.0.0 opens
the API and the console to the network. CLAMD_URL (tcp://host:3310 or unix:///run/clamav/clamd.ctl)
makes uploads and precompiled letters go to clamd; `run` says which scanner is in use.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# NOTIFY_VENV puts the virtual environment elsewhere: CI's newest-releases step (.ci/newest-releases).
VENV = Path(os.environ.get("NOTIFY_VENV") or ROOT / ".venv")
PYTHON = VENV / "bin" / "python"
RUNTIME_LOCK = ROOT / "requirements.txt"
DEV_LOCK = ROOT / "requirements-dev.txt"
# How long `run` waits for every process to answer before it says they did not.
READY_WITHIN_SECONDS = 300
# The environment variable that marks every process one `dev.py test` started.
RUN_MARK = "NOTIFY_DEV_TEST_RUN"


SHOW_ADMIN = """
from config import get_settings
s = get_settings()
print(f"API and admin API at {s.base_url}")
print(f"admin client id:     {s.admin_client_id}")
print(f"admin client secret: {s.admin_client_secret}")
print("create a service:    .venv/bin/flask --app app create-service --name 'My service'")
if s.clamd_url:
    print(f"virus scanner:       clamd at {s.clamd_url}")
else:
    print("virus scanner:       built-in, finds only the EICAR test file (set CLAMD_URL to use clamd)")
"""

# The web console, and on first start (no platform admin yet) a one-time link to become its admin.
SHOW_CONSOLE = """
from config import get_settings
from models.db import database, init_database
from core.accounts import setup_link_if_no_admin
s = get_settings()
init_database(s.database_url)
with database.connection_context():
    link = setup_link_if_no_admin()
print(f"web console at       {s.admin_url}")
if link:
    print(f"set up the first platform admin (one-time link, valid 24 hours): {link}")
"""

STOP_REDIS = """
import embedded_redis
from config import get_settings
embedded_redis.stop(get_settings().instance_dir)
"""

STOP_REDIS_IN = """
import sys
from pathlib import Path
import embedded_redis
for instance_dir in sys.argv[1:]:
    embedded_redis.stop(Path(instance_dir))
"""

# Exits 0 once the web and the console answer HTTP and the worker processes the Procfile starts have
# each registered (workers/registry.py); 1 after READY_WITHIN_SECONDS or when dev.py has gone.
WAIT_READY = """
import os, sys, time, urllib.error, urllib.request
from workers.queue_stats import worker_processes
web, console, workers, since, bound, parent = sys.argv[1:]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy
def answers(url):
    try:
        opener.open(url, timeout=5).close()
    except urllib.error.HTTPError:
        pass  # an answer all the same
    except OSError:
        return False
    return True
deadline = time.monotonic() + float(bound)
while time.monotonic() < deadline and os.getppid() == int(parent):
    alive = [w for w in worker_processes() if w.alive and w.started_at >= float(since)]
    if len(alive) >= int(workers) and answers(web + "/_live") and answers(console + "/"):
        time.sleep(1)  # the processes' own start-up lines reach the terminal through honcho a moment later
        sys.exit(0)
    time.sleep(0.5)
sys.exit(1)
"""


def _say(text: str) -> None:
    """One line per phase, so a first run that installs for a minute or two is not silent."""
    print(f"dev.py: {text}", flush=True)


def _packages(lock: Path) -> int:
    return sum(1 for line in lock.read_text().splitlines() if re.match(r"[A-Za-z0-9]", line))


def _ensure_venv(lock: Path) -> None:
    """Install `lock` (hashes checked) into .venv unless this very lock is installed already. The dev
    lock holds every pin of the runtime one (tests/test_locks.py), so installing it installs both."""
    if not PYTHON.exists():
        _say("creating the virtual environment .venv")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    covered = [RUNTIME_LOCK, DEV_LOCK] if lock == DEV_LOCK else [lock]
    wanted = {path: hashlib.sha256(path.read_bytes()).hexdigest() for path in covered}
    markers = {path: VENV / f".{path.name}.sha256" for path in covered}
    if all(markers[path].exists() and markers[path].read_text() == wanted[path] for path in covered):
        return
    _say(f"installing {_packages(lock)} packages from {lock.name} into .venv (the first time takes a minute or two)")
    subprocess.run([str(PYTHON), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--require-hashes",
                    "-r", str(lock)], check=True)
    for path in covered:
        markers[path].write_text(wanted[path])


def _ensure_node_client() -> None:
    """The Node contract tests need the official client; skipped when Node is not installed."""
    if not shutil.which("npm"):
        return
    node_dir = ROOT / "tests" / "contract" / "node"
    if not (node_dir / "node_modules" / "notifications-node-client").exists():
        subprocess.run(["npm", "ci", "--silent", "--no-audit", "--no-fund"], cwd=node_dir, check=True)


def _ensure_axe() -> None:
    """The console's browser tests inject axe-core from tests/console/node_modules."""
    if not shutil.which("npm"):
        return
    console_dir = ROOT / "tests" / "console"
    if not (console_dir / "node_modules" / "axe-core" / "axe.min.js").exists():
        subprocess.run(["npm", "ci", "--silent", "--no-audit", "--no-fund"], cwd=console_dir, check=True)


def _ensure_look_deps() -> None:
    """axe-core for the tests that look at what recipients see (tests/look); skipped without Node."""
    if not shutil.which("npm"):
        return
    look_dir = ROOT / "tests" / "look"
    if not (look_dir / "node_modules" / "axe-core").exists():
        subprocess.run(["npm", "ci", "--silent", "--no-audit", "--no-fund"], cwd=look_dir, check=True)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_local_mailbox(env: dict[str, str]) -> subprocess.Popen:
    """The mail catcher of local_mailbox.py; the email provider sends to it and the console shows
    what it took, to the platform admin (docs/decisions/console.md, "Where do emails go on a machine
    without `SMTP_URL`?")."""
    port = _free_port()
    directory = Path(env.get("INSTANCE_DIR", ROOT / "instance")) / "mailbox"
    catcher = subprocess.Popen([str(PYTHON), "-m", "local_mailbox", "--port", str(port), "--dir", str(directory)],
                               cwd=ROOT, env=env)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.05)
    env["SMTP_URL"] = f"smtp://127.0.0.1:{port}"
    env["LOCAL_MAILBOX_DIR"] = str(directory)
    return catcher


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run() -> int:
    env = _env()
    own_redis = not env.get("REDIS_URL")
    catcher = waiter = None
    try:
        if own_redis:
            _say("starting the embedded Redis (REDIS_URL is not set)")
        # Started once here, so web, worker and scheduler all find the same server.
        env["REDIS_URL"] = subprocess.run(
            [str(PYTHON), "-c", "from config import get_settings, redis_url; print(redis_url(get_settings()))"],
            cwd=ROOT, env=env, check=True, capture_output=True, text=True,
        ).stdout.strip()
        if not env.get("SMTP_URL"):
            _say("starting the local mailbox (SMTP_URL is not set)")
            catcher = _start_local_mailbox(env)
        # Only this machine reaches the web, the console (and its one-time set-up link) and the workers'
        # metrics unless LISTEN_ADDRESS opens the first two (gunicorn.conf.py and the Procfile read it).
        env["LISTEN_ADDRESS"] = env.get("LISTEN_ADDRESS") or "127.0.0.1"
        env["dramatiq_prom_host"] = env.get("dramatiq_prom_host") or "127.0.0.1"
        # honcho gives each process its own PORT; every process must agree on the web's address.
        port = env.get("PORT", "6011")
        env.setdefault("BASE_URL", f"http://127.0.0.1:{port}")
        env.setdefault("CONSOLE_PORT", "6012")
        _say("migrating the database")
        subprocess.run([str(PYTHON), "-m", "models.migrations"], cwd=ROOT, env=env, check=True)
        subprocess.run([str(PYTHON), "-c", SHOW_ADMIN], cwd=ROOT, env=env, check=True)
        # The set-up link is made once (only its hash is kept), so its lines are kept to say again.
        console = subprocess.run([str(PYTHON), "-c", SHOW_CONSOLE], cwd=ROOT, env=env, check=True,
                                 capture_output=True, text=True).stdout
        sys.stdout.write(console)
        _say("starting web, console, worker, jobs and scheduler (Procfile); their lines follow")
        honcho = subprocess.Popen([str(VENV / "bin" / "honcho"), "start", "--port", port,
                                   "web", "console", "worker", "jobs", "scheduler"], cwd=ROOT, env=env)
        waiter = _announce_when_ready(honcho, f"http://127.0.0.1:{port}", env, console)
        return _until_stopped(honcho)
    finally:
        # The embedded Redis runs as a daemon outside the process group Ctrl-C reaches: it outlived
        # every run until stopped here.
        for process in (waiter, catcher):
            if process is not None:
                _stop(process)
        if own_redis:
            subprocess.run([str(PYTHON), "-c", STOP_REDIS], cwd=ROOT, env=env, check=False)


def _announce_when_ready(honcho: subprocess.Popen, web: str, env: dict[str, str], console: str) -> subprocess.Popen:
    """Once the web, the console and every worker process answer, say so and print the console's
    address and set-up link again: the start-up's many lines have scrolled them away by then."""
    workers = sum(int(n) for n in re.findall(r"workers\.supervise\b.*?--processes (\d+)",
                                             (ROOT / "Procfile").read_text()))
    console_url = f"http://127.0.0.1:{env['CONSOLE_PORT']}"
    # A session of its own: the Ctrl-C meant for honcho's processes must not interrupt it mid-poll.
    waiter = subprocess.Popen([str(PYTHON), "-c", WAIT_READY, web, console_url, str(workers), str(time.time()),
                               str(READY_WITHIN_SECONDS), str(os.getpid())],
                              cwd=ROOT, env=env, start_new_session=True)

    def announce() -> None:
        ready = waiter.wait() == 0
        if honcho.poll() is not None:
            return
        if ready:
            lines = f"dev.py: everything answers: the API at {web}, the console, {workers} worker processes\n"
            sys.stdout.write(lines + console)  # one write: the processes' own lines cannot cut into it
        else:
            _say(f"not everything answered within {READY_WITHIN_SECONDS} s: see the lines above")
        sys.stdout.flush()

    threading.Thread(target=announce, daemon=True).start()
    return waiter


def _until_stopped(honcho: subprocess.Popen) -> int:
    """Wait for honcho; Ctrl-C or SIGTERM asks it to stop its processes (it does so once however
    often it is asked), and we wait for that instead of dying first and leaving them behind."""
    def forward(signum: int, frame: object) -> None:
        honcho.send_signal(signal.SIGTERM)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, forward)
    return honcho.wait()


def test(args: list[str]) -> int:
    _ensure_node_client()
    _ensure_axe()
    _ensure_look_deps()
    # The run's temporary files, the suite's instance directory and embedded Redis among them, lie in a
    # directory of its own; every process it starts inherits a mark, daemons that leave its tree too.
    run_dir = Path(tempfile.mkdtemp(prefix="notify-test-"))
    run_dir.chmod(0o755)  # the tests' PostgreSQL servers run as the postgres user, inside it
    env = {**_env(), "TMPDIR": str(run_dir), RUN_MARK: uuid.uuid4().hex}
    pytest = subprocess.Popen([str(PYTHON), "-m", "pytest", *args], cwd=ROOT, env=env)
    try:
        code = _wait_for_pytest(pytest)
    finally:
        _stop_leftovers(run_dir, env)
    # pytest's 5 means no test ran: that is a failure, never a pass.
    return 1 if code == 5 else code


def _wait_for_pytest(pytest: subprocess.Popen) -> int:
    """Wait until pytest has torn down. A Ctrl-C reaches pytest from the terminal (our process group)
    and it stops after its teardown: we must not die meanwhile, nor kill it as subprocess.call does,
    which cut that teardown short and left its servers running. SIGTERM asks it to stop the same way."""
    signal.signal(signal.SIGINT, lambda signum, frame: None)
    signal.signal(signal.SIGTERM, lambda signum, frame: pytest.send_signal(signal.SIGINT))
    return pytest.wait()


def _stop_leftovers(run_dir: Path, env: dict[str, str]) -> None:
    """Stop whatever the test run left running, then remove its directory. A run stopped before its
    teardown (killed, or never past collection) left its embedded Redis: a daemon that keeps no mark
    (redis-server writes its process title over its environment), found by the pid file it keeps in
    an instance directory. Every other process is found by its mark (Linux's /proc shows each process's
    environment; elsewhere the suite's own teardown is all there is)."""
    if instances := [str(pid_file.parent) for pid_file in run_dir.rglob("embedded-redis.pid")]:
        subprocess.run([str(PYTHON), "-c", STOP_REDIS_IN, *instances], cwd=ROOT, env=env, check=False)
    needle = f"{RUN_MARK}={env[RUN_MARK]}".encode()
    left = [pid for pid in _marked(needle) if _signal(pid, signal.SIGTERM)]
    deadline = time.monotonic() + 10
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [pid for pid in left if pid in _marked(needle)]
    for pid in left:
        _signal(pid, signal.SIGKILL)
    shutil.rmtree(run_dir, ignore_errors=True)


def _marked(needle: bytes) -> set[int]:
    found = set()
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes().split(b"\0"):
                found.add(int(environ.parent.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found - {os.getpid()}


def _signal(pid: int, signum: int) -> bool:
    try:
        os.kill(pid, signum)
        return True
    except ProcessLookupError:
        return False


def lint() -> int:
    """The three checks, each run even when another fails; ruff's and mypy's settings are in pyproject.toml."""
    ruff = subprocess.call([str(VENV / "bin" / "ruff"), "check", "."], cwd=ROOT, env=_env())
    mypy = subprocess.call([str(PYTHON), "-m", "mypy"], cwd=ROOT, env=_env())
    private_names = subprocess.call([str(PYTHON), str(ROOT / "tools" / "private_names.py")], cwd=ROOT, env=_env())
    return ruff or mypy or private_names


def lock(args: list[str]) -> int:
    """Both locks from pyproject.toml, hashes taken from PyPI, for every platform (--universal). uv keeps
    the versions the locks already pin unless told (--upgrade, --upgrade-package NAME); the dev lock is
    made within the runtime one (-c), so a package both hold is pinned alike in both."""
    compile_ = [str(VENV / "bin" / "uv"), "pip", "compile", "pyproject.toml", "--universal", "--python-version",
                "3.11", "--generate-hashes", "--quiet", "--custom-compile-command", "python3 dev.py lock", *args]
    subprocess.run([*compile_, "-o", RUNTIME_LOCK.name], cwd=ROOT, check=True)
    subprocess.run([*compile_, "--all-extras", "-c", RUNTIME_LOCK.name, "-o", DEV_LOCK.name], cwd=ROOT, check=True)
    return 0


# Each command with the lock it needs: `run` only what runs, the others the test and lint tools too.
COMMANDS = {"run": (RUNTIME_LOCK, lambda args: run()), "test": (DEV_LOCK, test),
            "lint": (DEV_LOCK, lambda args: lint()), "lock": (DEV_LOCK, lock)}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        return 2
    needs, command = COMMANDS[sys.argv[1]]
    _ensure_venv(needs)
    return command(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
