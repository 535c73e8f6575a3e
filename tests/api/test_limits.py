"""Rate limits, daily limits and idempotency, held in Redis and shared by every web process."""
from __future__ import annotations

import datetime
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import peewee
import pytest
import requests

from core.tokens import create_token
from models.api_key import ApiKey
from models.db import utcnow
from models.notification import Notification
from pipeline.domain.errors import TooManyRequestsError
from pipeline.infrastructure import daily_limits, redis_state, throughput
from tests.conftest import gunicorn_server
from tests.factories import auth_headers, create_key, create_sample_template, create_service
from tests.responses import errors


def _sms(service):
    template = create_sample_template(service=service, body="Hi")
    return {"phone_number": "0612345678", "template_id": str(template.id)}


def test_rate_limit_per_key_type(client):
    service = create_service(rate_limit=3)
    body = _sms(service)
    live, test = create_key(service=service), create_key(service=service, key_type="test", name="t")
    for _ in range(3):
        assert client.post("/v2/notifications/sms", json=body, headers=auth_headers(live)).status_code == 201
    refused = client.post("/v2/notifications/sms", json=body, headers=auth_headers(live))
    assert errors(refused) == (429, [("RateLimitError",
                                      "Exceeded rate limit for key type live of 3 requests per 60 seconds")])
    assert client.post("/v2/notifications/sms", json=body, headers=auth_headers(test)).status_code == 201
    assert client.get("/v2/notifications", headers=auth_headers(live)).status_code == 200  # GETs are not limited


def test_daily_limit_and_test_keys_do_not_count(client):
    service = create_service(sms_daily_limit=2)
    body = _sms(service)
    live, test = create_key(service=service), create_key(service=service, key_type="test", name="t")
    for _ in range(3):
        assert client.post("/v2/notifications/sms", json=body, headers=auth_headers(test)).status_code == 201
    for _ in range(2):
        assert client.post("/v2/notifications/sms", json=body, headers=auth_headers(live)).status_code == 201
    refused = client.post("/v2/notifications/sms", json=body, headers=auth_headers(live))
    assert errors(refused) == (429, [("TooManyRequestsError", "Exceeded send limits (sms: 2) for today")])
    assert Notification.select().where(Notification.key_type == "live").count() == 2


def test_international_daily_limit(client):
    service = create_service(international_sms_daily_limit=1)
    body = {**_sms(service), "phone_number": "+44 7900 900123"}
    key = create_key(service=service)
    assert client.post("/v2/notifications/sms", json=body, headers=auth_headers(key)).status_code == 201
    refused = client.post("/v2/notifications/sms", json=body, headers=auth_headers(key))
    assert errors(refused) == (429, [("TooManyRequestsError", "Exceeded send limits (international_sms: 1) for today")])
    domestic = client.post("/v2/notifications/sms", json=_sms(service), headers=auth_headers(key))
    assert domestic.status_code == 201


def test_refused_sends_do_not_use_up_the_daily_limit(client):
    service = create_service(sms_daily_limit=1)
    body = _sms(service)
    key = create_key(service=service)
    bad = client.post("/v2/notifications/sms", json={**body, "phone_number": "0201234567"}, headers=auth_headers(key))
    assert bad.status_code == 400
    assert client.post("/v2/notifications/sms", json=body, headers=auth_headers(key)).status_code == 201


def test_idempotency_key_returns_the_first_response(client):
    service = create_service()
    body = _sms(service)
    key = create_key(service=service)
    headers = {**auth_headers(key), "Idempotency-Key": "order-17"}
    first = client.post("/v2/notifications/sms", json=body, headers=headers)
    again = client.post("/v2/notifications/sms", json=body,
                        headers={**auth_headers(key), "Idempotency-Key": "order-17"})
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
    assert Notification.select().count() == 1
    other = client.post("/v2/notifications/sms", json=body,
                        headers={**auth_headers(key), "Idempotency-Key": "order-18"})
    assert other.get_json()["id"] != first.get_json()["id"]


def test_a_refused_request_is_not_remembered(client):
    service = create_service()
    body = _sms(service)
    key = create_key(service=service)
    headers = lambda: {**auth_headers(key), "Idempotency-Key": "k1"}  # noqa: E731
    refused = client.post("/v2/notifications/sms", json={**body, "phone_number": "x"}, headers=headers())
    assert refused.status_code == 400
    assert client.post("/v2/notifications/sms", json=body, headers=headers()).status_code == 201


def _daily_count(service, kind="sms") -> int | None:
    value = redis_state.client().get(daily_limits.daily_counts(service.id, {kind: 0})[0][0])
    return None if value is None else int(value)


@pytest.mark.parametrize("new_tokens", [False, True], ids=["one token", "a new token per request"])
def test_only_sends_use_up_the_daily_limit(client, new_tokens):
    # Whether the client repeats its token or makes a new one per request as the official clients
    # do, requests that do not send (refused, replayed) count nothing.
    service = create_service(sms_daily_limit=2)
    body = _sms(service)
    key = create_key(service=service)
    once = auth_headers(key)

    def headers(**extra: str) -> dict[str, str]:
        token = create_token(str(service.id), key[-36:], unique=True) if new_tokens else once["Authorization"][7:]
        return {**once, "Authorization": f"Bearer {token}", **extra}

    assert client.post("/v2/notifications/sms", json=body, headers=headers()).status_code == 201
    for _ in range(3):
        refused = client.post("/v2/notifications/sms", json={**body, "phone_number": "0201234567"}, headers=headers())
        assert refused.status_code == 400
    assert _daily_count(service) == 1
    replayed = {"Idempotency-Key": "once"}
    assert client.post("/v2/notifications/sms", json=body, headers=headers(**replayed)).status_code == 201
    assert client.post("/v2/notifications/sms", json=body, headers=headers(**replayed)).status_code == 201
    assert _daily_count(service) == 2
    over = client.post("/v2/notifications/sms", json=body, headers=headers())
    assert errors(over) == (429, [("TooManyRequestsError", "Exceeded send limits (sms: 2) for today")])
    assert _daily_count(service) == 2
    assert Notification.select().where(Notification.service == service.id).count() == 2


def test_a_test_key_makes_no_daily_count(client):
    service = create_service(sms_daily_limit=1)
    body = _sms(service)
    headers = auth_headers(create_key(service=service, key_type="test"))
    for _ in range(3):
        assert client.post("/v2/notifications/sms", json=body, headers=headers).status_code == 201
    assert _daily_count(service) is None


def test_a_revoked_key_counts_nothing(client):
    service = create_service(sms_daily_limit=5)
    body = _sms(service)
    key = create_key(service=service)
    headers = auth_headers(key)
    assert client.post("/v2/notifications/sms", json=body, headers=headers).status_code == 201
    ApiKey.update(revoked_at=datetime.datetime(2026, 1, 1)).where(ApiKey.service == service.id).execute()
    refused = client.post("/v2/notifications/sms", json=body, headers=headers)
    assert errors(refused) == (403, [("AuthError", "Invalid token: API key revoked")])
    assert _daily_count(service) == 1


def _unsaved_sms(service) -> Notification:
    """A row as send_notification hands it to record(): not yet written."""
    return Notification(id=uuid.uuid4(), service=service.id, key_type="live", notification_type="sms", status="created",
                        template_id=uuid.uuid4(), template_version=1, body="Hello", to="+31612345678",
                        normalised_to="+31612345678", created_at=utcnow())


def test_sends_recorded_together_are_counted_each_in_turn(service):
    # The sends of one round are counted in one round trip, each as an INCR of its own would count
    # it: the ones within the limit are written, the ones beyond it refused and given back.
    limit = 5
    daily = daily_limits.daily_counts(service.id, {"sms": limit})
    enqueued: list = []
    start = threading.Barrier(12)

    def send(_: int) -> str:
        start.wait()
        try:
            row = _unsaved_sms(service)
            throughput.seam().record([row], enqueued.extend, daily)
            return str(row.id)
        except TooManyRequestsError as exc:
            return str(exc)

    with ThreadPoolExecutor(max_workers=12) as pool:
        outcomes = list(pool.map(send, range(12)))
    assert outcomes.count("Exceeded send limits (sms: 5) for today") == 7
    assert _daily_count(service) == limit
    assert Notification.select().where(Notification.service == service.id).count() == limit
    assert len(enqueued) == limit


def test_a_send_the_database_refuses_gives_back_its_count(service):
    daily = daily_limits.daily_counts(service.id, {"sms": 5})
    row = _unsaved_sms(service)
    row.service_id = uuid.uuid4()  # no such service: the INSERT is refused
    with pytest.raises(peewee.IntegrityError):
        throughput.seam().record([row], lambda rows: None, daily)
    assert _daily_count(service) == 0
    throughput.seam().record([_unsaved_sms(service)], lambda rows: None, daily)
    assert _daily_count(service) == 1


@pytest.fixture
def gunicorn_url():
    """The app under gunicorn with several worker processes, as in production."""
    with gunicorn_server("--workers", "3") as url:
        yield url


def test_limits_and_idempotency_hold_across_web_processes(gunicorn_url):
    if time.time() % 60 > 50:  # the counts below must fall in one fixed 60-second window
        time.sleep(60 - time.time() % 60)
    service = create_service(rate_limit=20)
    body = _sms(service)
    key = create_key(service=service)

    def post(headers: dict) -> requests.Response:
        return requests.post(f"{gunicorn_url}/v2/notifications/sms", json=body, headers=headers, timeout=10)

    with ThreadPoolExecutor(max_workers=8) as pool:
        same_key = list(pool.map(post, [{**auth_headers(key), "Idempotency-Key": "once"} for _ in range(8)]))
    assert {r.status_code for r in same_key} <= {201, 409}
    assert len({r.json()["id"] for r in same_key if r.status_code == 201}) == 1
    assert Notification.select().count() == 1

    with ThreadPoolExecutor(max_workers=8) as pool:
        codes = [r.status_code for r in pool.map(post, [auth_headers(key) for _ in range(30)])]
    assert codes.count(201) == 19 and codes.count(429) == 11  # 20 per window, one used above


def test_request_threads_starting_together_share_one_redis_client(monkeypatch):
    import threading

    monkeypatch.setattr(redis_state, "_client", None)
    start = threading.Barrier(8)

    def first_use() -> int:
        start.wait()
        made = redis_state.client()
        made.ping()  # a replaced client's finaliser would close this connection under us
        return id(made)

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert len(set(pool.map(lambda _: first_use(), range(8)))) == 1
