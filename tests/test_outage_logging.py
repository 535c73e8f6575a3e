"""Nothing dropped in silence, nothing logged a thousand times: a send message whose notification is
gone is logged and counted; an outage of Redis or the database is logged by each process once when it
starts and once when it ends, with the count of failed tries, and never as a traceback per try."""
from __future__ import annotations

import json
import logging
import re
import threading
import time
import uuid
from pathlib import Path

import pytest
from notifications_python_client.errors import HTTPError
from notifications_python_client.notifications import NotificationsAPIClient
from prometheus_client.parser import text_string_to_metric_families
from requests.exceptions import RequestException

from models.db import database, init_database, is_postgres
from models.migrations import migrate
from tests.conftest import wait_for
from tests.factories import create_key, create_sample_template, create_service
from tests.faults import send_texts, wait_until_final
from tests.private_servers import private_postgres, private_redis, service_env, service_processes
from workers.sending import deliver_sms

STARTED = re.compile(r"^(Redis|the database) unreachable \(")
ENDED = re.compile(r"^(Redis|the database) reachable again after [\d.]+ s; (\d+) tries failed meanwhile$")


def test_a_message_whose_notification_is_gone_is_logged_and_counted(client, worker, caplog):
    def _missing(actor: str) -> float:
        """What /metrics says (the worker runs in this process)."""
        families = text_string_to_metric_families(client.get("/metrics").get_data(as_text=True))
        return sum(sample.value for family in families for sample in family.samples
                   if sample.name == "notify_messages_without_notification_total" and sample.labels == {"actor": actor})

    gone = str(uuid.uuid4())
    before = _missing("deliver_sms")
    with caplog.at_level(logging.WARNING, logger="pipeline.stages.delivery"):
        message = deliver_sms.send(gone)
        wait_for(lambda: _missing("deliver_sms") == before + 1)
    [line] = [r for r in caplog.records if gone in r.getMessage()]
    assert line.levelno == logging.WARNING
    assert line.getMessage() == f"no notification {gone} for message {message.message_id}: nothing sent"


def _lines(log: str) -> list[dict]:
    return [json.loads(line) for line in log.splitlines() if line.startswith("{")]


def _outage_lines(log: str, dependency: str) -> tuple[list[str], list[int]]:
    """The lines that started an outage of `dependency`, and the failed tries each ending line counts."""
    messages = [entry["message"] for entry in _lines(log)]
    started = [m for m in messages if STARTED.match(m) and m.startswith(dependency)]
    ended = [int(match.group(2)) for m in messages if (match := ENDED.match(m)) and match.group(1) == dependency]
    return started, ended


def _load(api: NotificationsAPIClient, template_id: str, stop: threading.Event) -> None:
    """Texts sent one after another until stopped, whatever the answers (503s during the outage)."""
    while not stop.is_set():
        try:
            api.send_sms_notification("0612345678", template_id)
        except (HTTPError, RequestException):
            time.sleep(0.02)


def _through_an_outage(processes, server, stop_it, start_it, dependency: str, logged: tuple[str, ...]) -> None:
    service = create_service()
    template_id = str(create_sample_template(service=service, body="Hi").id)
    api = NotificationsAPIClient(create_key(service=service), base_url=processes.url)
    ids, _ = send_texts(api, template_id, 1)
    wait_until_final(ids, timeout=120)  # every process is up and working
    stop = threading.Event()
    senders = [threading.Thread(target=_load, args=(api, template_id, stop)) for _ in range(2)]
    for sender in senders:
        sender.start()
    try:
        time.sleep(1)
        stop_it(server)
        time.sleep(5)
        start_it(server)
        wait_for(lambda: all(_outage_lines(processes.log(name), dependency)[1] for name in logged), timeout=90)
    finally:
        stop.set()
        for sender in senders:
            sender.join()
    for name in logged:
        log = processes.log(name)
        started, ended = _outage_lines(log, dependency)
        assert len(started) == 1 and len(ended) == 1, (name, started, ended)
        assert "Traceback" not in log, (name, [e for e in _lines(log) if "Traceback" in json.dumps(e)][:3])
    # The web answered 503 to each send meanwhile, the workers met it on every queue: counted, not logged.
    assert _outage_lines(processes.log("web"), dependency)[1][0] > 1


def test_a_redis_outage_is_logged_once_when_it_starts_and_once_when_it_ends(tmp_path: Path):
    with private_redis() as server, \
            service_processes(service_env(REDIS_URL=server.url), worker_processes=1, logs=tmp_path) as processes:
        _through_an_outage(processes, server, lambda s: s.kill(), lambda s: s.start(), "Redis",
                           ("web", "worker", "scheduler"))
        worker_log = processes.log("worker")
        for noise in ("Consumer encountered", "Restarting consumer", "acks not sent", "could not queue"):
            assert noise not in worker_log


@pytest.mark.skipif(not is_postgres(), reason="stops a PostgreSQL server of its own")
def test_a_database_outage_is_logged_once_when_it_starts_and_once_when_it_ends(tmp_path: Path):
    suite_database = database.obj
    with private_postgres() as postgres:
        init_database(postgres.url)  # this process's factories work on it too
        try:
            migrate()
            with service_processes(service_env(DATABASE_URL=postgres.url), worker_processes=1,
                                   logs=tmp_path) as processes:
                _through_an_outage(processes, postgres, lambda s: s.stop(), lambda s: s.start(), "the database",
                                   ("web", "worker"))
        finally:
            database.close()
            database.initialize(suite_database)
