"""Faults of processes and servers during load: a worker process killed mid-send, Redis and
PostgreSQL restarted. Every text answered 201 is delivered, once; requests that meet an outage
answer 503 in the spec's error shape, and the first one after it is served.
"""
from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest
import requests
from notifications_python_client.authentication import create_jwt_token
from notifications_python_client.notifications import NotificationsAPIClient

from config import get_settings
from models.db import database, init_database, is_postgres
from models.migrations import migrate
from models.notification import Notification
from tests.conftest import wait_for
from tests.factories import create_key, create_sample_template, create_service
from tests.fake_gateway import FakeGateway
from tests.faults import PHONE, assert_each_sent_once, send_texts, wait_until_final
from tests.private_servers import private_postgres, private_redis, service_env, service_processes
from tests.provider_gateways import provider_gateways


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def _api(base_url: str) -> tuple[NotificationsAPIClient, str]:
    service = create_service()
    template = create_sample_template(service=service, body="Your code is 1234")
    return NotificationsAPIClient(create_key(service=service), base_url=base_url), str(template.id)


def _assert_unavailable(response: requests.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["Retry-After"] == "5"
    assert response.json() == {"status_code": 503, "errors": [
        {"error": "ServiceUnavailableError", "message": "Service temporarily unavailable, try again later"}]}


def _raw_send(api: NotificationsAPIClient, template_id: str) -> requests.Response:
    """A send as the client makes it, keeping the whole answer (headers too)."""
    token = create_jwt_token(api.api_key, api.service_id)
    return requests.post(f"{api.base_url}/v2/notifications/sms",
                         json={"phone_number": PHONE, "template_id": template_id},
                         headers={"Authorization": f"Bearer {token}"}, timeout=30)


@pytest.fixture
def gateway():
    with FakeGateway(token="gateway-token") as running:
        running.report(get_settings().provider_webhook_token)
        yield running


def _gateway_env(gateway: FakeGateway) -> dict[str, str]:
    return {"SMS_GATEWAY_URL": gateway.url, "SMS_GATEWAY_TOKEN": "gateway-token"}


@pytest.mark.parametrize("kinds", [["json"], ["spryng", "cm", "twilio"]], ids="+".join)
def test_a_killed_worker_process_is_replaced_and_no_text_is_lost_or_sent_twice(live_server, kinds):
    api, template_id = _api(live_server)
    with provider_gateways(kinds) as fakes:
        for fake in fakes:
            fake.report(get_settings().provider_webhook_token)
            fake.hang_next(8, 5.0)  # the first texts are taken but answered late: workers are inside the call
        env = service_env(SMS_GATEWAY_URL="", SMS_GATEWAYS=get_settings().sms_gateways or "")
        with service_processes(env, web=False, scheduler=False, base_url=live_server) as processes:
            supervisor = processes.running["worker"]
            ids, refused = send_texts(api, template_id, 40)
            wait_for(lambda: sum(len(fake.messages) for fake in fakes) >= 8, timeout=30)
            masters = wait_for(lambda: len(_children(supervisor.pid)) == 2 and _children(supervisor.pid), timeout=30)
            # A worker process dies in the middle of its provider calls (with any process forked beside it).
            # Once one dies its parent stops the rest, so a later victim may already be gone.
            for victim in wait_for(lambda: _children(masters[0]), timeout=30):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(victim, signal.SIGKILL)

            # Its dramatiq parent exits; the supervisor starts another in its place, the other goes on.
            wait_for(lambda: masters[0] not in _children(supervisor.pid) and len(_children(supervisor.pid)) == 2,
                     timeout=30)
            assert supervisor.poll() is None and masters[1] in _children(supervisor.pid)
            assert refused == []
            assert set(wait_until_final(ids, timeout=90).values()) == {"delivered"}
            assert_each_sent_once(fakes, ids)

            os.killpg(supervisor.pid, signal.SIGTERM)  # stopping as honcho does: the whole group
            assert supervisor.wait(timeout=60) == 0


def test_redis_restarted_during_load(gateway):
    with private_redis() as redis_server, \
            service_processes(service_env(**_gateway_env(gateway), REDIS_URL=redis_server.url)) as processes:
        api, template_id = _api(processes.url)

        def outage(i: int) -> None:
            if i == 15:
                redis_server.kill()
                _assert_unavailable(_raw_send(api, template_id))
            if i == 20:
                redis_server.start()

        ids, refused = send_texts(api, template_id, 40, between=outage)

        # The sends made while Redis was down were refused (503), nothing else: the first one
        # after it came back was served.
        assert [error.status_code for error in refused] == [503] * 5 and len(ids) == 35
        assert set(wait_until_final(ids, timeout=120).values()) == {"delivered"}
        assert Notification.select().count() == len(ids)  # a refused send left no row behind
        assert_each_sent_once(gateway, ids)


@pytest.mark.skipif(not is_postgres(), reason="restarts a PostgreSQL server of its own")
def test_postgres_restarted_during_load(gateway):
    suite_database = database.obj
    with private_postgres() as postgres:
        init_database(postgres.url)  # this process's models (factories, statuses) work on it too
        try:
            migrate()
            with service_processes(service_env(**_gateway_env(gateway), DATABASE_URL=postgres.url)) as processes:
                api, template_id = _api(processes.url)

                def outage(i: int) -> None:
                    if i == 15:
                        postgres.stop()
                        _assert_unavailable(_raw_send(api, template_id))
                    if i == 20:
                        postgres.start()

                ids, refused = send_texts(api, template_id, 40, between=outage)

                assert [error.status_code for error in refused] == [503] * 5 and len(ids) == 35
                assert set(wait_until_final(ids, timeout=120).values()) == {"delivered"}
                assert Notification.select().count() == len(ids)  # a refused send left no row behind
                assert_each_sent_once(gateway, ids)
        finally:
            database.close()
            database.initialize(suite_database)
