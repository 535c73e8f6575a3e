#!/usr/bin/env python3
"""The two commands of the README, needing nothing but Python 3.11 on the machine, and the checks CI runs first.

    python3 dev.py run    install into .venv, migrate, start web + console + worker + jobs + scheduler (Procfile)
    python3 dev.py test   install into .venv, run the test suite
    python3 dev.py lint   install into .venv, run ruff over the tree and mypy over core/, pipeline/, models/

DATABASE_URL and REDIS_URL choose PostgreSQL and a Redis server; unset, a SQLite file and an
embedded Redis under instance/ are used. CLAMD_URL (tcp://host:3310 or unix:///run/clamav/clamd.ctl)
makes uploads and precompiled letters go to clamd; `run` says which scanner is in use.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"


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


def _ensure_venv() -> None:
    if not PYTHON.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    wanted = hashlib.sha256((ROOT / "requirements.txt").read_bytes()).hexdigest()
    marker = VENV / ".requirements.sha256"
    if not marker.exists() or marker.read_text() != wanted:
        subprocess.run([str(PYTHON), "-m", "pip", "install", "-q", "-r", str(ROOT / "requirements.txt")], check=True)
        marker.write_text(wanted)


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
    what it took, to the platform admin (decisions.md, "The local mailbox")."""
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
    # Start the embedded Redis once here, so web, worker and scheduler all find the same server.
    url = subprocess.run(
        [str(PYTHON), "-c", "from config import get_settings, redis_url; print(redis_url(get_settings()))"],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    ).stdout.strip()
    env["REDIS_URL"] = url
    catcher = _start_local_mailbox(env) if not env.get("SMTP_URL") else None
    try:
        # honcho gives each process its own PORT; every process must agree on the web's address.
        port = env.get("PORT", "6011")
        env.setdefault("BASE_URL", f"http://127.0.0.1:{port}")
        subprocess.run([str(PYTHON), "-m", "models.migrations"], cwd=ROOT, env=env, check=True)
        env.setdefault("CONSOLE_PORT", "6012")
        subprocess.run([str(PYTHON), "-c", SHOW_ADMIN], cwd=ROOT, env=env, check=True)
        subprocess.run([str(PYTHON), "-c", SHOW_CONSOLE], cwd=ROOT, env=env, check=True)
        honcho = [str(VENV / "bin" / "honcho"), "start", "--port", port,
                  "web", "console", "worker", "jobs", "scheduler"]
        return _until_stopped(subprocess.Popen(honcho, cwd=ROOT, env=env))
    finally:
        # The embedded Redis runs as a daemon outside the process group Ctrl-C reaches: it outlived
        # every run until stopped here.
        if catcher is not None:
            _stop(catcher)
        if own_redis:
            subprocess.run([str(PYTHON), "-c", STOP_REDIS], cwd=ROOT, env=env, check=False)


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
    code = subprocess.call([str(PYTHON), "-m", "pytest", *args], cwd=ROOT, env=_env())
    # pytest's 5 means no test ran: that is a failure, never a pass.
    return 1 if code == 5 else code


def lint() -> int:
    """Both checks, each run even when the other fails; their settings are in pyproject.toml."""
    ruff = subprocess.call([str(VENV / "bin" / "ruff"), "check", "."], cwd=ROOT, env=_env())
    mypy = subprocess.call([str(PYTHON), "-m", "mypy"], cwd=ROOT, env=_env())
    return ruff or mypy


COMMANDS = {"run": lambda args: run(), "test": test, "lint": lambda args: lint()}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        return 2
    _ensure_venv()
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
