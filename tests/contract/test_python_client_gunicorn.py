"""Sends through the official Python client to the web process as the Procfile runs it: gunicorn
with gunicorn.conf.py, so gevent workers on PostgreSQL and threads on SQLite. Concurrent sends
share INSERTs and Redis round trips there; each must still be recorded, answered and delivered."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from notifications_python_client.notifications import NotificationsAPIClient

from models.notification import Notification
from tests.conftest import gunicorn_server, status_of, wait_for
from tests.factories import create_key, create_sample_template


def test_concurrent_sends_are_each_recorded_and_delivered(service, worker):
    sms = create_sample_template(service=service, body="Code ((code))")
    email = create_sample_template(service=service, template_type="email", subject="Hi", body="Hello ((name))")
    key = create_key(service=service, key_type="test", name="test")
    with gunicorn_server() as url:
        api = NotificationsAPIClient(key, base_url=url)

        def send(n: int) -> dict:
            if n % 4 == 0:
                return api.send_email_notification(f"user{n}@example.nl", str(email.id), {"name": n}, reference=f"r{n}")
            return api.send_sms_notification("0612345678", str(sms.id), {"code": n}, reference=f"r{n}")

        with ThreadPoolExecutor(max_workers=16) as pool:
            responses = list(pool.map(send, range(64)))
        assert [r["reference"] for r in responses] == [f"r{n}" for n in range(64)]
        assert len({r["id"] for r in responses}) == 64
        for n, response in enumerate(responses):
            expected = f"Hello {n}" if n % 4 == 0 else f"Code {n}"
            assert response["content"]["body"] == expected
            stored = Notification.get_by_id(response["id"])
            assert (stored.reference, stored.body) == (f"r{n}", expected)

        wait_for(lambda: all(status_of(r["id"]) == "delivered" for r in responses), timeout=30)
        assert api.get_notification_by_id(responses[1]["id"])["status"] == "delivered"
        listed = api.get_all_notifications(reference="r5")["notifications"]
        assert [n["id"] for n in listed] == [responses[5]["id"]]
