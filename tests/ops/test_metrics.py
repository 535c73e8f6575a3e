"""/metrics in Prometheus's text format, and METRICS_TOKEN."""
from __future__ import annotations

import dataclasses

from prometheus_client.parser import text_string_to_metric_families

import config
from tests.conftest import status_of, wait_for
from tests.factories import auth_headers, create_key, create_sample_template


def _samples(client, headers=None) -> dict[tuple[str, tuple], float]:
    response = client.get("/metrics", headers=headers or {})
    assert response.status_code == 200 and response.content_type.startswith("text/plain")
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.get_data(as_text=True)) for s in family.samples}


def _value(samples, name, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_a_send_is_counted_from_accept_through_the_provider_to_delivered(client, service, worker):
    before = _samples(client)
    template = create_sample_template(service=service, body="Hi")
    response = client.post("/v2/notifications/sms", headers=auth_headers(create_key(service=service)),
                           json={"phone_number": "0612345678", "template_id": str(template.id)})
    wait_for(lambda: status_of(response.get_json()["id"]) == "delivered")
    after = _samples(client)

    def grew(name, **labels):
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert grew("notify_notifications_accepted_total", channel="sms", key_type="live") == 1
    assert grew("notify_status_transitions_total", channel="sms", status="sending") == 1
    assert grew("notify_status_transitions_total", channel="sms", status="delivered") == 1
    assert grew("notify_provider_call_duration_seconds_count", provider="simulated", channel="sms", outcome="sent") == 1
    assert grew("notify_http_request_duration_seconds_count", route="/v2/notifications/sms", method="POST",
                status="201") == 1
    assert _value(after, "notify_queue_messages", queue="send-sms", state="ready") == 0
    assert _value(after, "notify_queue_live_workers", queue="send-sms") == 1


def test_rate_limit_refusals_are_counted(client, service):
    service.rate_limit = 1
    service.save()
    template = create_sample_template(service=service, body="Hi")
    headers = auth_headers(create_key(service=service))
    before = _value(_samples(client), "notify_limit_refusals_total", limit="rate")
    answers = [client.post("/v2/notifications/sms", headers=headers,
                           json={"phone_number": "0612345678", "template_id": str(template.id)}).status_code
               for _ in range(2)]
    assert answers == [201, 429]
    assert _value(_samples(client), "notify_limit_refusals_total", limit="rate") - before == 1


def test_metrics_token_is_required_when_set(client):
    before = config.get_settings()
    config._settings = dataclasses.replace(before, metrics_token="scrape-me-please")
    try:
        guarded = client
        refused = guarded.get("/metrics")
        assert refused.status_code == 401
        assert refused.get_json() == {"status_code": 401, "errors": [
            {"error": "AuthError", "message": "Unauthorized: metrics token required"}]}
        assert guarded.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert guarded.get("/metrics", headers={"Authorization": "Bearer scrape-me-please"}).status_code == 200
    finally:
        config._settings = before
    assert client.get("/metrics").status_code == 200  # no token configured: open


def test_a_held_print_batch_is_exported_until_it_is_released(client):
    import datetime

    from models.db import utcnow
    from models.held_print_batch import HeldPrintBatch
    from pipeline.stages.letters import held

    assert _value(_samples(client), "notify_print_batches_held") == 0
    held.hold("batch-2026-11-26-a", "the server offered host key ssh-ed25519 SHA256:abc, not the one pinned")
    HeldPrintBatch.update(held_since=utcnow() - datetime.timedelta(minutes=30)).execute()
    samples = _samples(client)
    assert _value(samples, "notify_print_batches_held") == 1
    assert 1800 <= _value(samples, "notify_print_batch_oldest_held_seconds") < 1900
    held.release("batch-2026-11-26-a")
    samples = _samples(client)
    assert (_value(samples, "notify_print_batches_held"), _value(samples, "notify_print_batch_oldest_held_seconds")) \
        == (0, 0)
