"""Nothing is built or registered at import (docs/architecture.md#nothing-built-at-import): each process's
factory wires the
database, the broker and the listeners, and a process that only called its factory has them all."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import status_of
from tests.factories import create_notification
from tests.test_callbacks import Receiver, register

ROOT = Path(__file__).resolve().parent.parent

# Imports every process's entry point with a record of each broker made and each connection tried.
IMPORT_EVERY_ENTRY_POINT = """
import json, socket, sys
import dramatiq

built, connected = [], []
make_broker = dramatiq.Broker.__init__
def recording_broker(self, *args, **kwargs):
    built.append(type(self).__name__)
    make_broker(self, *args, **kwargs)
dramatiq.Broker.__init__ = recording_broker
connect = socket.socket.connect
def recording_connect(self, address):
    connected.append(repr(address))
    return connect(self, address)
socket.socket.connect = recording_connect

import app, cli, console, scheduler, workers, workers.supervise
from models.db import database
from pipeline.infrastructure import throughput
from pipeline.stages import status_changes
from workers.broker import current_broker

heard = []
status_changes.on_change(lambda *change: heard.append(change))
status_changes._notify("a-notification", "delivered")
try:
    current_broker()
    wired = True
except RuntimeError:
    wired = False
try:
    actor = type(workers.sending.deliver_sms.broker).__name__
except RuntimeError as error:
    actor = str(error)
try:
    seam = type(throughput.seam()).__name__
except RuntimeError as error:
    seam = str(error)
print(json.dumps({"brokers": built, "connections": connected, "database": database.obj is not None,
                  "wired": wired, "heard": heard, "actor": actor, "throughput": seam}))
"""


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=dict(os.environ), capture_output=True,
                          text=True, timeout=120)


def test_importing_the_entry_points_builds_no_broker_nor_database_and_connects_nowhere():
    done = _run(IMPORT_EVERY_ENTRY_POINT)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"brokers": [], "connections": [], "database": False, "wired": False,
                     # only the listener the script registered itself: the callbacks' waits for the factory
                     "heard": [["a-notification", "delivered"]],
                     "actor": "no broker yet: this process's factory calls workers.wire() to build it",
                     "throughput": "no throughput implementation yet: this process's factory calls workers.wire()"
                                   " to install it"}


def test_an_actor_sent_to_before_the_factory_ran_says_so():
    done = _run("import workers.sending\nworkers.sending.deliver_sms.send('x')")
    assert done.returncode != 0
    assert "no broker yet: this process's factory calls workers.wire() to build it" in done.stderr


@pytest.fixture
def receiver():
    receiver = Receiver()
    yield receiver
    receiver.close()


def test_a_status_change_in_a_process_that_only_called_the_factory_sends_the_callback(service, receiver, worker):
    register(service, receiver)
    notification = create_notification(service=service, status="sending")
    # Another process: the web app's factory, and no `import workers` of its own.
    done = _run(f"""
from app import create_app
from models.db import database
from pipeline.stages import status_changes
create_app()
with database.connection_context(), database.atomic():
    status_changes.transition({str(notification.id)!r}, "delivered")
""")
    assert done.returncode == 0, done.stderr
    assert status_of(notification.id) == "delivered"
    [request] = receiver.wait_for(1)
    assert request.json["id"] == str(notification.id) and request.json["status"] == "delivered"


def test_the_factory_wires_once_per_process():
    import workers

    before = workers.wire()
    assert workers.wire() is before
    assert workers.sending.deliver_sms.broker is before


def test_a_send_in_a_process_that_did_not_call_its_factory_says_so(service):
    done = _run(f"""
from models.db import database, init_database
from config import get_settings
from pipeline.stages import dispatch
init_database(get_settings().database_url)
with database.connection_context():
    dispatch.release({str(create_notification(service=service).id)!r})
""")
    assert done.returncode != 0
    assert "no throughput implementation yet: this process's factory calls workers.wire() to install it" in done.stderr


def test_the_factory_installs_the_throughput_implementation_the_setting_names():
    from config import get_settings
    from pipeline.infrastructure import throughput

    installed = throughput.seam()
    assert type(installed).__name__ == {"fast": "Fast", "reference": "Reference"}[get_settings().throughput]
    assert throughput.seam() is installed  # built once, at wiring
