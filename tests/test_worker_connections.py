"""A worker process's threads share WORKER_DB_CONNECTIONS PostgreSQL connections: a thread holds
one while it works on the database, not while it waits on a provider, so a worker keeps more sends
at the gateway than it holds connections, and a server's max_connections bounds threads no more."""
from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

import models.db
from config import get_settings
from models.db import (
    WORKER_APPLICATION_NAME,
    SharedConnections,
    connect_url,
    database,
    give_back_connection,
    init_database,
    is_postgres,
)
from tests.conftest import wait_for
from tests.factories import create_key, create_sample_template, create_service
from tests.fake_gateway import FakeGateway
from tests.faults import assert_each_sent_once, send_texts, wait_until_final
from tests.private_servers import service_env, service_processes

pytestmark = pytest.mark.skipif(not is_postgres(), reason="connections shared between threads are PostgreSQL's")


def _backend_pid(db) -> int:
    return db.execute_sql("SELECT pg_backend_pid()").fetchone()[0]


def _server_time():
    return database.execute_sql("SELECT clock_timestamp()").fetchone()[0]


def _worker_connections(since) -> int:
    """Connections of worker processes the server has open to this database, of those made since
    then (other databases on the server may have worker processes of their own)."""
    return database.execute_sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
                                " AND datname = current_database() AND backend_start >= %s",
                                [WORKER_APPLICATION_NAME, since]).fetchone()[0]


def _shared(size: int) -> Iterator[SharedConnections]:
    db = connect_url(get_settings().database_url, shared_connections=size)
    yield db
    db.close_all()


@pytest.fixture
def shared() -> Iterator[SharedConnections]:
    """A database handle whose threads share two connections."""
    yield from _shared(2)


@pytest.fixture
def single() -> Iterator[SharedConnections]:
    """A database handle whose threads share one connection."""
    yield from _shared(1)


def test_more_threads_than_connections_each_get_one_in_turn(shared: SharedConnections):
    since, backends = _server_time(), []

    def work() -> None:
        shared.connect()
        backends.append(shared.execute_sql("SELECT pg_backend_pid() FROM pg_sleep(0.05)").fetchone()[0])
        assert _worker_connections(since) <= 2
        shared.close()

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(backends) == 8 and len(set(backends)) <= 2


def test_a_thread_waits_for_a_connection_another_gives_back(single: SharedConnections):
    first = _backend_pid(single)
    taken: list[int] = []

    def take() -> None:
        taken.append(_backend_pid(single))
        single.close()

    waiting = threading.Thread(target=take)
    waiting.start()
    waiting.join(timeout=0.5)
    assert taken == []  # the one connection is this thread's
    single.close()
    waiting.join(timeout=10)
    assert taken == [first]  # the other thread got the same connection


def test_a_thread_that_finds_none_free_in_time_fails_and_the_connection_stays_usable(
        monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(models.db, "WORKER_WAIT_SECONDS", 0.2)
    single = next(_shared(1))
    held = _backend_pid(single)
    failed: list[str] = []

    def take() -> None:
        try:
            _backend_pid(single)
        except Exception as exc:  # noqa: BLE001  (what the waiting thread's work would raise)
            failed.append(str(exc))

    waiting = threading.Thread(target=take)
    waiting.start()
    waiting.join(timeout=10)
    assert failed == ["no database connection came free"]
    single.close()
    assert _backend_pid(single) == held  # the failed wait took none
    single.close()
    assert single.connect() and single.close()  # and the one connection came back each time
    single.close_all()


def test_a_connection_the_server_ended_is_replaced_before_use(shared: SharedConnections):
    ended = _backend_pid(shared)
    shared.close()
    database.execute_sql("SELECT pg_terminate_backend(%s)", [ended])
    wait_for(lambda: not database.execute_sql("SELECT 1 FROM pg_stat_activity WHERE pid = %s", [ended]).fetchone())
    assert _backend_pid(shared) != ended


def test_a_connection_inside_a_transaction_is_kept_until_it_ends():
    suite_database = database.obj
    shared = init_database(get_settings().database_url, shared_connections=2)
    try:
        with database.atomic():
            before = _backend_pid(database)
            give_back_connection()
            assert _backend_pid(database) == before
        give_back_connection()
        assert database.is_closed()
    finally:
        shared.close_all()
        database.initialize(suite_database)


def test_a_worker_keeps_more_sends_at_the_gateway_than_it_holds_connections(live_server):
    service = create_service()
    template = create_sample_template(service=service, body="Your code is 1234")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    with FakeGateway(token="gateway-token") as gateway:
        gateway.report(get_settings().provider_webhook_token)
        gateway.hang_next(8, 8.0)  # each of the first 8 sends waits 8 s for its answer
        env = service_env(SMS_GATEWAY_URL=gateway.url, SMS_GATEWAY_TOKEN="gateway-token", WORKER_DB_CONNECTIONS="2")
        since = _server_time()
        with service_processes(env, web=False, scheduler=False, worker_processes=1, worker_threads=8,
                               base_url=live_server):
            ids, refused = send_texts(api, str(template.id), 8)
            assert refused == []
            gateway.wait_for_messages(1, timeout=30)
            # All 8 reach the gateway while the first still waits for its answer: no thread holds
            # one of the 2 connections while it waits.
            gateway.wait_for_messages(8, timeout=4)
            assert 1 <= _worker_connections(since) <= 2
            assert set(wait_until_final(ids, timeout=60).values()) == {"delivered"}
        assert_each_sent_once(gateway, ids)
