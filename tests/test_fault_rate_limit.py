"""A gateway that takes 10 texts a second and answers 429 above it, under a backlog of 300 live texts
sent through the official client faster than that, on the Procfile's processes: every text is
delivered once, none fails, and the 429s stay few, whether the gateway's pace setting is its real
limit or twice it (then its 429s hold every worker off and the pace ramps up again after them)."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

from config import get_settings
from tests.factories import create_key, create_sample_template, create_service
from tests.fake_gateway import FakeGateway
from tests.faults import PHONE, assert_each_sent_once, wait_until_final
from tests.private_servers import service_env, service_processes
from tests.rate_limited_front import RateLimitedFront

TEXTS = 300
TAKES_PER_SECOND = 10
SENDERS = 6  # client threads: the texts are accepted several times faster than the gateway takes them
# (the gateway's max_per_second setting, the most 429s allowed)
# Measured on a 2-core machine: 0 and 10; with no pace at all (only the 429s' hold-off), 28.
SETTINGS = {"set to its limit": (TAKES_PER_SECOND, 3), "set to twice its limit": (2 * TAKES_PER_SECOND, 20)}


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_a_backlog_at_a_rate_limited_gateway_draws_few_429s(tmp_path: Path, setting: str):
    pace, most_429s = SETTINGS[setting]
    with FakeGateway(token="gateway-token") as gateway, \
            RateLimitedFront(gateway.url, per_second=TAKES_PER_SECOND) as front:
        gateway.report(get_settings().provider_webhook_token)
        env = service_env(SMS_GATEWAYS=json.dumps([{"name": "limited", "url": front.url, "token": "gateway-token",
                                                    "international": True, "max_per_second": pace}]))
        with service_processes(env, logs=tmp_path) as processes:
            service = create_service()
            template_id = str(create_sample_template(service=service, body="Your code is 1234").id)
            api = NotificationsAPIClient(create_key(service=service), base_url=processes.url)

            with ThreadPoolExecutor(SENDERS) as senders:
                ids = list(senders.map(lambda i: api.send_sms_notification(PHONE, template_id)["id"], range(TEXTS)))

            assert set(wait_until_final(ids, timeout=300).values()) == {"delivered"}
            assert_each_sent_once(gateway, ids)
            assert front.refused <= most_429s, f"{front.refused} answered 429"
            worker_log = processes.log("worker")
            assert "Traceback" not in worker_log and "technical-failure" not in worker_log
