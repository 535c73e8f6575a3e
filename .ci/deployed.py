#!/usr/bin/env python3
"""CI's deployed step: the service as a deployment runs it, not as the tests do.

1. A fresh virtual environment from requirements.txt alone (`pip install --require-hashes`), holding no
   test tool; every module of the application imported in it (tools/import_everything.py).
2. On PostgreSQL, a database of the step's own (DEPLOYED_DATABASE_URL, made afresh for each run): the
   Procfile's release step, then every other process type of the Procfile through honcho, from that
   environment; once with RabbitMQ carrying the queues, once with Redis.
3. Each run is driven with the official Python client (.ci/deployed_client.py, run by the dev
   environment's python, which has it): a text, an email and a letter reach their final status, their
   status callbacks arrive, a received text reads back.

The step fails on a process that exits early or logs an import error or a traceback, printing what the
processes said. Whatever happens, it stops every process it started. Needs Python 3.11, PostgreSQL,
Redis and RabbitMQ on 127.0.0.1 (the addresses below, or DEPLOYED_*), and the dev environment
(NOTIFY_VENV, default .venv; `python3 dev.py lint` or `test` makes it).
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV_PYTHON = Path(os.environ.get("NOTIFY_VENV") or ROOT / ".venv") / "bin" / "python"
DATABASE_URL = os.environ.get("DEPLOYED_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test_deployed")
REDIS_URL = os.environ.get("DEPLOYED_REDIS_URL", "redis://127.0.0.1:6379/0")
RABBITMQ_URL = os.environ.get("DEPLOYED_RABBITMQ_URL", "amqp://guest:guest@127.0.0.1:5672/%2F")
# The test and development tools: none may be in what a deployment installs.
TOOLS = {"pytest", "playwright", "hypothesis", "notifications-python-client", "schemathesis", "mypy", "ruff", "uv"}
TROUBLE = re.compile(r"ImportError|ModuleNotFoundError|Traceback")
READY_SECONDS = 120
MARK = "NOTIFY_DEPLOYED_RUN"  # in the environment of every process a run starts, to find them all at its end
INBOUND_NUMBER = "+3197010000777"


class StepFailed(Exception):
    """What went wrong, said once at the end; the processes' output has been printed before it."""


def say(text: str) -> None:
    print(f"== deployed: {text}", flush=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _clean_env(venv: Path, **settings: str) -> dict[str, str]:
    """Nothing of the environment this step runs in (a dev venv, the suites' settings): only what a
    deployment would set."""
    keep = {name: os.environ[name] for name in ("HOME", "LANG", "TMPDIR") if name in os.environ}
    return {**keep, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
            "PYTHONUNBUFFERED": "1", **settings}


def _run(args: list[str], env: dict[str, str], what: str, timeout: float = 600) -> str:
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    output = done.stdout + done.stderr
    if done.returncode != 0 or TROUBLE.search(output):
        print(output, flush=True)
        raise StepFailed(f"{what} exited {done.returncode}" + (", and said the above" if done.returncode == 0 else ""))
    return done.stdout


def build_venv(venv: Path) -> Path:
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--require-hashes", "-r",
          str(ROOT / "requirements.txt")], _clean_env(venv), "pip install --require-hashes -r requirements.txt")
    names = json.loads(_run([str(python), "-c", "import importlib.metadata as m, json; print(json.dumps("
                             "[d.metadata['Name'] for d in m.distributions()]))"], _clean_env(venv), "listing"))
    installed = {re.sub(r"[-_.]+", "-", name).lower() for name in names}
    if tools := sorted(TOOLS & installed):
        raise StepFailed(f"requirements.txt installs test tools: {', '.join(tools)}")
    say(f"{len(installed)} distributions from requirements.txt, no test tool ({time.monotonic() - started:.0f} s)")
    return python


def import_everything(python: Path, instance: Path) -> None:
    done = subprocess.run([str(python), str(ROOT / "tools" / "import_everything.py")], cwd=ROOT, timeout=300,
                          env=_clean_env(python.parent.parent, INSTANCE_DIR=str(instance)),
                          capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout + done.stderr, flush=True)
        failed = re.findall(r"^cannot import (\S+?): (.*?)(?: \(/.*)?$", done.stdout, re.MULTILINE)
        raise StepFailed("modules that do not import from requirements.txt alone: "
                         + "; ".join(f"{module} ({why})" for module, why in failed))
    say("every module of the application imports")


PSQL_ADMIN = """
import sys, psycopg2
from urllib.parse import urlsplit, urlunsplit
url, action = sys.argv[1:]
parts = urlsplit(url)
name = parts.path.lstrip("/")
connection = psycopg2.connect(urlunsplit(parts._replace(path="/postgres")))
connection.autocommit = True
connection.cursor().execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
if action == "create":
    connection.cursor().execute(f'CREATE DATABASE "{name}"')
connection.close()
"""

FORGET_REDIS = """
import sys, redis
client = redis.Redis.from_url(sys.argv[1])
for key in client.scan_iter(sys.argv[2] + ":*", count=1000):
    client.delete(key)
"""


@contextmanager
def rabbitmq_vhost() -> Iterator[str]:
    """A vhost of the run's own when rabbitmqctl can make one (queue names carry no namespace on
    RabbitMQ: docs/operations.md), so a suite using the default one at the same time is left alone."""
    vhost = f"notify-deployed-{secrets.token_hex(4)}"
    ctl = shutil.which("rabbitmqctl") or ("/usr/sbin/rabbitmqctl" if Path("/usr/sbin/rabbitmqctl").exists() else None)
    made = ctl is not None and subprocess.run([ctl, "-q", "add_vhost", vhost], capture_output=True).returncode == 0
    if not made:
        yield RABBITMQ_URL
        return
    try:
        subprocess.run([ctl, "-q", "set_permissions", "-p", vhost, "guest", ".*", ".*", ".*"], capture_output=True,
                       check=True)
        yield RABBITMQ_URL.rsplit("/", 1)[0] + "/" + vhost
    finally:
        subprocess.run([ctl, "-q", "delete_vhost", vhost], capture_output=True)


def _answers(url: str) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through a proxy
    try:
        opener.open(url, timeout=5).close()
    except urllib.error.HTTPError:
        return True  # an answer all the same
    except OSError:
        return False
    return True


class Processes:
    """The Procfile's process types through honcho, in a session of their own, their output in a file."""

    def __init__(self, venv: Path, env: dict[str, str], log: Path, web_port: int) -> None:
        kinds = [line.split(":", 1)[0] for line in (ROOT / "Procfile").read_text().splitlines()
                 if re.match(r"^[a-z]+:", line) and not line.startswith("release:")]
        self.log, self.kinds = log, kinds
        with log.open("w") as out:
            self.honcho = subprocess.Popen([str(venv / "bin" / "honcho"), "start", "--port", str(web_port), *kinds],
                                           cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                           start_new_session=True)

    def check(self) -> None:
        """Fails, naming the line, on an import error or traceback logged, or a process that stopped."""
        lines = self.log.read_text(errors="replace").splitlines()
        if trouble := [line for line in lines if TROUBLE.search(line)]:
            named = next((line for line in trouble if "Error" in line), trouble[0])
            raise StepFailed(f"a process logged: {' '.join(named.split())}")
        stopped = [line for line in lines if re.search(r"stopped \(rc=|worker process \d+ exited", line)]
        if stopped or self.honcho.poll() is not None:
            raise StepFailed(f"a process exited early: {' '.join((stopped or ['honcho stopped'])[0].split())}")

    def wait_ready(self, web: str, console: str) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while not (_answers(f"{web}/_live") and _answers(f"{console}/sign-in")):
            self.check()
            if time.monotonic() > deadline:
                raise StepFailed(f"the web or the console did not answer within {READY_SECONDS} s")
            time.sleep(0.5)

    def stop(self) -> None:
        if self.honcho.poll() is None:
            with suppress(ProcessLookupError):
                os.killpg(self.honcho.pid, signal.SIGTERM)
            try:
                self.honcho.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        with suppress(ProcessLookupError):
            os.killpg(self.honcho.pid, signal.SIGKILL)  # whatever of its session is left
        self.honcho.wait()


def stop_marked(mark: str) -> None:
    """Every process that carries this run's mark in its environment (all it started, a daemon that left
    its parent's session included): SIGTERM, then SIGKILL for what is left after 10 s."""
    def marked() -> set[int]:
        found = set()
        for environ in Path("/proc").glob("[0-9]*/environ"):
            with suppress(OSError):  # gone meanwhile, or not ours to read
                if f"{MARK}={mark}".encode() in environ.read_bytes().split(b"\0"):
                    found.add(int(environ.parent.name))
        return found - {os.getpid()}

    for signum, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        for pid in marked():
            with suppress(ProcessLookupError):
                os.kill(pid, signum)
        deadline = time.monotonic() + wait
        while marked() and time.monotonic() < deadline:
            time.sleep(0.1)


def _cli(env: dict[str, str], *args: str) -> dict:
    return json.loads(_run(["flask", "--app", "app", *args], env, f"flask --app app {args[0]}", timeout=120))


def operator_setup(env: dict[str, str]) -> dict[str, str]:
    """A live service, its live key and a template per channel, made with the operator CLI (README)."""
    service = _cli(env, "create-service", "--name", "Gemeente Deployed", "--live", "--permissions",
                   "email,sms,letter,inbound_sms")["id"]
    key = _cli(env, "create-api-key", "--service-id", service, "--name", "deployed", "--key-type", "live")
    templates = {
        kind: _cli(env, "create-template", "--service-id", service, "--type", kind, "--name", kind, *extra)["id"]
        for kind, extra in (
            ("sms", ["--body", "Beste ((name)), uw afspraak is morgen."]),
            ("email", ["--subject", "Uw aanvraag ((ref))", "--body", "Beste ((name)),\n\nOntvangen."]),
            ("letter", ["--subject", "Besluit op uw aanvraag", "--body", "Beste ((name)),\n\nToegekend."]))}
    return {"service_id": service, "key": key["key"], **{f"{kind}_template": template
                                                          for kind, template in templates.items()}}


def deployment_env(venv: Path, work: Path, broker_url: str | None, mark: str) -> dict[str, str]:
    """What an operator sets, with secrets of the run's own; letters handed over and answered every
    second, failed callbacks retried after half a second."""
    web_port, console_port = _free_port(), _free_port()
    (work / "print").mkdir(parents=True)
    (work / "worker-metrics").mkdir()
    return _clean_env(
        venv, DATABASE_URL=DATABASE_URL, REDIS_URL=REDIS_URL, QUEUE_NAMESPACE=mark, PORT=str(web_port),
        INSTANCE_DIR=str(work / "instance"), LISTEN_ADDRESS="127.0.0.1", WEB_CONCURRENCY="1",
        **{name: secrets.token_urlsafe(32) for name in ("SECRET_KEY", "ADMIN_CLIENT_SECRET", "PROVIDER_WEBHOOK_TOKEN")},
        BASE_URL=f"http://127.0.0.1:{web_port}", CONSOLE_PORT=str(console_port),
        ADMIN_URL=f"http://127.0.0.1:{console_port}", SMTP_URL=f"smtp://127.0.0.1:{_free_port()}",
        PRINT_PROVIDER="directory", PRINT_DROP_DIR=str(work / "print"), PRINT_BATCH_SECONDS="1",
        CALLBACKS_ALLOW_HTTP_LOOPBACK="1", CALLBACK_MIN_BACKOFF_MS="500", dramatiq_prom_host="127.0.0.1",
        dramatiq_prom_port=str(_free_port()), dramatiq_prom_db=str(work / "worker-metrics"),
        **({"BROKER_URL": broker_url} if broker_url else {}), **{MARK: mark})


def drive(env: dict[str, str], work: Path) -> None:
    """The operator CLI's service, key and templates, then the official client's checks."""
    given = {**operator_setup(env), "base_url": env["BASE_URL"], "admin_client_secret": env["ADMIN_CLIENT_SECRET"],
             "provider_webhook_token": env["PROVIDER_WEBHOOK_TOKEN"], "print_dir": env["PRINT_DROP_DIR"],
             "mailbox_dir": str(work / "mailbox"), "inbound_number": INBOUND_NUMBER}
    client = subprocess.run([str(DEV_PYTHON), str(ROOT / ".ci" / "deployed_client.py"), json.dumps(given)],
                            cwd=ROOT, timeout=600)
    if client.returncode != 0:
        raise StepFailed("the official client's checks failed (above)")


def run_deployment(python: Path, broker: str, work: Path) -> None:
    """One deployment on a fresh database: release step, every process, driven by the client."""
    started = time.monotonic()
    venv, mark = python.parent.parent, f"deployed-{secrets.token_hex(4)}"
    with rabbitmq_vhost() if broker == "rabbitmq" else nullcontext() as broker_url:
        env = deployment_env(venv, work, broker_url, mark)
        _run([str(python), "-c", PSQL_ADMIN, DATABASE_URL, "create"], env, "making the database")
        subprocess.Popen([str(python), "-m", "local_mailbox", "--port", env["SMTP_URL"].rsplit(":", 1)[1], "--dir",
                          str(work / "mailbox")], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.STDOUT, start_new_session=True)
        processes = None
        try:
            release = next(line.split(":", 1)[1].strip() for line in (ROOT / "Procfile").read_text().splitlines()
                           if line.startswith("release:"))
            say(f"{broker}: {_run(['sh', '-c', release], env, 'the release step').strip()}")
            processes = Processes(venv, env, work / "processes.log", int(env["PORT"]))
            processes.wait_ready(env["BASE_URL"], env["ADMIN_URL"])
            say(f"{broker}: {', '.join(processes.kinds)} answer ({time.monotonic() - started:.0f} s)")
            try:
                drive(env, work)
            except StepFailed:
                processes.check()  # a process that failed says more than the client's symptom of it
                raise
            processes.check()
            say(f"{broker}: passed ({time.monotonic() - started:.0f} s)")
        except BaseException:
            if processes is not None:
                print(f"--- what the processes said ({broker}):\n{processes.log.read_text(errors='replace')[-60000:]}")
            raise
        finally:
            if processes is not None:
                processes.stop()
            stop_marked(mark)  # the local mailbox, and anything honcho's stop left
            subprocess.run([str(python), "-c", FORGET_REDIS, REDIS_URL, mark], env=env, capture_output=True)
            subprocess.run([str(python), "-c", PSQL_ADMIN, DATABASE_URL, "drop"], env=env, capture_output=True)


def check_servers() -> None:
    """The step needs all three: skipped, it would check nothing and still pass."""
    missing = []
    for name, url, port in (("PostgreSQL", DATABASE_URL, 5432), ("Redis", REDIS_URL, 6379),
                            ("RabbitMQ", RABBITMQ_URL, 5672)):
        parts = urllib.parse.urlsplit(url)
        try:
            socket.create_connection((parts.hostname or "127.0.0.1", parts.port or port), timeout=5).close()
        except OSError:
            missing.append(f"{name} at {parts.hostname}:{parts.port or port}")
    if missing:
        raise StepFailed(f"nothing answers: {', '.join(missing)}")


def main() -> int:
    # A SIGTERM (CI stopping the job) unwinds like an error, so every process started is stopped.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="notify-deployed-"))
    try:
        if not DEV_PYTHON.exists():
            raise StepFailed(f"no dev environment at {DEV_PYTHON.parent.parent} to run the official client from")
        check_servers()
        python = build_venv(work / "venv")
        import_everything(python, work / "import-instance")
        for broker in ("rabbitmq", "redis"):
            run_deployment(python, broker, work / broker)
    except StepFailed as failure:
        say(f"FAILED: {failure}")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    say(f"passed on PostgreSQL with RabbitMQ and with Redis ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
