"""A provider's outage and a Redis that comes back empty, under load, on the Procfile's processes.

Every text answered 201 is delivered, once: an outage of the only SMS gateway is waited out (no text
ends `technical-failure` or stays `created`), and a receipt the webhook took is never lost.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

from config import get_settings
from tests.factories import create_key, create_sample_template, create_service
from tests.fake_gateway import FakeGateway
from tests.faults import assert_each_sent_once, send_texts, wait_until_final
from tests.private_servers import private_redis, service_env, service_processes

TEXTS = 200


@pytest.fixture
def gateway():
    with FakeGateway(token="gateway-token") as running:
        running.report(get_settings().provider_webhook_token)
        yield running


def _env(gateway: FakeGateway, **overrides: str) -> dict[str, str]:
    return service_env(SMS_GATEWAY_URL=gateway.url, SMS_GATEWAY_TOKEN="gateway-token", **overrides)


def _api(base_url: str) -> tuple[NotificationsAPIClient, str]:
    service = create_service()
    template = create_sample_template(service=service, body="Your code is 1234")
    return NotificationsAPIClient(create_key(service=service), base_url=base_url), str(template.id)


def _ready(api: NotificationsAPIClient, template_id: str) -> list[str]:
    """One text through before the fault starts (the worker processes are up and consuming); its id."""
    ids, _ = send_texts(api, template_id, 1)
    wait_until_final(ids, timeout=60)
    return ids


# Each fault starts once a first text is through. The 500s take the gateway out of rotation for the
# circuit breaker's cool-down (30 s) after their first failures: every text waits that out too, one
# WARNING line a retry. Texts that reached the hanging gateway time out after 10 s: their outcome is
# unknown, and their receipts move them on.
GATEWAY_FAULTS = {
    "answering 500 for 10 seconds": (lambda gateway: gateway.fail_for(10, status=500), True),
    "taking texts and answering 12 seconds late": (lambda gateway: gateway.hang_for(3, hang=12), False),
}


@pytest.mark.parametrize("fault", list(GATEWAY_FAULTS))
def test_the_only_gateway_in_trouble_is_waited_out(gateway, tmp_path: Path, fault: str):
    start, waits = GATEWAY_FAULTS[fault]
    with service_processes(_env(gateway), logs=tmp_path) as processes:
        api, template_id = _api(processes.url)
        first = _ready(api, template_id)
        start(gateway)
        ids, refused = send_texts(api, template_id, TEXTS)

        assert refused == []
        assert set(wait_until_final(ids, timeout=240).values()) == {"delivered"}
        assert_each_sent_once(gateway, first + ids)
        worker_log = processes.log("worker")
        assert "Traceback" not in worker_log and "technical-failure" not in worker_log
        if waits:
            assert " not sent, trying again in " in worker_log  # each retry is one WARNING line with its reason


def test_redis_coming_back_empty_under_load_loses_no_receipt(gateway):
    sent = 150
    with private_redis() as redis_server, \
            service_processes(_env(gateway, REDIS_URL=redis_server.url)) as processes:
        api, template_id = _api(processes.url)
        first = _ready(api, template_id)

        def outage(i: int) -> None:
            if i == 60:
                redis_server.kill()
                redis_server.wipe()  # every queued message, outbox and counter gone
                time.sleep(5)
                redis_server.start()

        ids, refused = send_texts(api, template_id, sent, between=outage)

        assert refused == []  # Redis was back before the next send
        # Sends whose queue messages were lost are sent again by the sweeps; receipts the webhook
        # took while Redis was down were in the database already.
        assert set(wait_until_final(ids, timeout=180).values()) == {"delivered"}
        assert_each_sent_once(gateway, first + ids)
