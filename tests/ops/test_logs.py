"""JSON log lines that follow one send from the request through the workers, with no personal data."""
from __future__ import annotations

import io
import json
import logging
import re

import dramatiq
import pytest

from observability import logs
from tests.conftest import running_worker, wait_for

log = logging.getLogger("tests.ops.logs")


@dramatiq.actor(queue_name="ops-test-logs", max_retries=0)
def record_sending(notification_id: str, recipient: str) -> None:
    log.info("sending %s to %s with Authorization: Bearer abc.def.ghi", notification_id, recipient)


@pytest.fixture
def lines():
    stream = io.StringIO()
    logs.configure("test", stream=stream)
    yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    logs.configure("web")


def test_request_id_is_returned_and_made_up_when_missing_or_malformed(client):
    assert client.get("/_live", headers={"X-Request-Id": "lb-42.a"}).headers["X-Request-Id"] == "lb-42.a"
    for header in ({}, {"X-Request-Id": "bad id with spaces"}):
        assert re.fullmatch(r"[0-9a-f]{32}", client.get("/_live", headers=header).headers["X-Request-Id"])


def test_a_message_carries_the_request_id_to_the_worker_whose_lines_name_the_notification(lines):
    logs.bind(request_id="req-123", service_id="svc-1")  # as the web process does for a request
    record_sending.send("8a0f7a9e-6c55-4d3e-9a57-3f1f1a1f0001", "+31612345678")
    logs.clear()
    with running_worker():
        line = wait_for(lambda: next((entry for entry in lines() if entry["logger"] == "tests.ops.logs"), None))
    assert line["request_id"] == "req-123"
    assert line["notification_id"] == "8a0f7a9e-6c55-4d3e-9a57-3f1f1a1f0001"
    assert line["actor"] == "record_sending" and line["level"] == "INFO" and line["process_type"] == "test"
    assert "+31612345678" not in line["message"] and "***678" in line["message"]
    assert "abc.def.ghi" not in line["message"] and "Bearer ***" in line["message"]


def test_masking_keeps_dates_and_ids_and_hides_addresses():
    assert logs.mask("to someone@example.nl at 2026-11-23 21:29:25") == "to s***@example.nl at 2026-11-23 21:29:25"
    assert logs.mask("token=abc123 id 3f1c2d4e-1234-5678-9abc-123456789012") == \
        "token=*** id 3f1c2d4e-1234-5678-9abc-123456789012"


def test_links_lose_their_secret_and_keep_what_they_are_for():
    nid = "3f1c2d4e-1234-5678-9abc-123456789012"
    assert logs.mask('"GET /invitation/AbC_d-9xYz" 200') == '"GET /invitation/***" 200'
    assert logs.mask("https://admin.example.nl/reset-password/XyZ123?x=1") == \
        "https://admin.example.nl/reset-password/***?x=1"
    assert logs.mask(f"POST /unsubscribe/{nid}/sig_AB-c") == f"POST /unsubscribe/{nid}/***"
    assert logs.mask(f"/d/{nid}/{nid}/download?key=K_-1&token=abc.def") == f"/d/{nid}/{nid}/download?key=***&token=***"
    assert logs.mask("/language/en?next=%2Finvitation%2FTok123&x=1") == "/language/en?next=%2Finvitation%2F***&x=1"
    # Routes that merely resemble them keep their ids.
    assert logs.mask(f"/services/{nid}/unsubscribe-requests/{nid}") == f"/services/{nid}/unsubscribe-requests/{nid}"


def test_a_traceback_is_masked_like_the_message(lines):
    try:
        raise ValueError("no page at https://admin.example.nl/invitation/Tok3nValue for someone@example.nl")
    except ValueError:
        log.exception("Exception on /reset-password/OtherTok3n [GET]")
    [line] = [each for each in lines() if each["logger"] == "tests.ops.logs"]
    assert line["message"] == "Exception on /reset-password/*** [GET]"
    assert "/invitation/*** for s***@example.nl" in line["exc_info"]
    assert "Tok3nValue" not in line["exc_info"] and "someone@" not in line["exc_info"]
