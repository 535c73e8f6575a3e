"""The only SMS gateway stops answering for 30 seconds and resets connections when it comes back,
under 300 live texts sent through the official client, on the Procfile's processes.

The texts that reached it during the silence were taken, their answers lost: their outcome is
unknown and their receipts settle them. Connections reset before the gateway read them are tried
again, never left to the unknown-outcome wait. Every text is delivered, each exactly once (the fake
gateway counts them per reference).
"""
from __future__ import annotations

from pathlib import Path

from notifications_python_client.notifications import NotificationsAPIClient

from config import get_settings
from tests.factories import create_key, create_sample_template, create_service
from tests.fake_gateway import FakeGateway
from tests.fault_link import FaultLink
from tests.faults import assert_each_sent_once, send_texts, wait_until_final
from tests.private_servers import service_env, service_processes

TEXTS = 300
SILENCE_SECONDS = 30
RESETTING_SECONDS = 20


def test_a_gateway_silent_for_30_seconds_then_resetting_connections_delivers_every_text_once(tmp_path: Path):
    with FakeGateway(token="gateway-token") as gateway, FaultLink(gateway.url) as link:
        gateway.report(get_settings().provider_webhook_token)
        env = service_env(SMS_GATEWAY_URL=link.url, SMS_GATEWAY_TOKEN="gateway-token",
                          SMS_GATEWAY_COOLDOWN_SECONDS="10")
        with service_processes(env, logs=tmp_path) as processes:
            service = create_service()
            template_id = str(create_sample_template(service=service, body="Your code is 1234").id)
            api = NotificationsAPIClient(create_key(service=service), base_url=processes.url)
            first, _ = send_texts(api, template_id, 1)
            wait_until_final(first, timeout=60)  # the workers are up and the connections kept alive

            link.silence(SILENCE_SECONDS)
            link.reset_new(RESETTING_SECONDS)
            ids, refused = send_texts(api, template_id, TEXTS)

            assert refused == []
            assert set(wait_until_final(ids, timeout=600).values()) == {"delivered"}
            assert_each_sent_once(gateway, first + ids)
            worker_log = processes.log("worker")
            assert "Traceback" not in worker_log and "technical-failure" not in worker_log
            # Both faults happened, and each was taken for what it is.
            # (Whether a connection was still waiting when the silence ended, to be closed without its
            # answer, depends on when the client gave up: not a fault of the service.)
            assert link.counts["answer dropped"] > 0
            assert "outcome of the send of" in worker_log  # the silence: unknown, settled by receipts
            assert link.counts["reset new"] + link.counts["reset idle"] > 0
            assert "before reading the request" in worker_log or "before the request was sent" in worker_log
