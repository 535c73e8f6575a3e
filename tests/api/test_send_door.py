"""The send door (api/send_door.py) answers POST /v2/notifications/sms and /email without Flask; the
same request with a query string goes to the Flask app's routes. Callers must not be able to tell
which answered: the same bodies, statuses and headers, good or bad."""
from __future__ import annotations

import pytest

import api.send_door
from tests.factories import auth_headers, create_key, create_sample_template

NO_ID = ("id", "uri")


@pytest.fixture
def headers(service) -> dict[str, str]:
    return auth_headers(create_key(service=service))


@pytest.fixture
def templates(service) -> dict[str, str]:
    return {"sms": str(create_sample_template(service=service, body="Code ((code))").id),
            "email": str(create_sample_template(service=service, template_type="email", subject="Hi",
                                                body="Code ((code))").id)}


def _both(client, channel: str, **kwargs) -> tuple:
    """The door's answer and the app's (the query string sends it past the door)."""
    return (client.post(f"/v2/notifications/{channel}", **kwargs),
            client.post(f"/v2/notifications/{channel}?via=app", **kwargs))


def _without_ids(body: dict) -> dict:
    return {k: v for k, v in body.items() if k not in NO_ID}


@pytest.mark.parametrize("channel, recipient", [("sms", {"phone_number": "0612345678"}),
                                                ("email", {"email_address": "a@example.nl"})])
def test_an_accepted_send_is_answered_alike(client, headers, templates, channel, recipient):
    door, app = _both(client, channel, headers=headers,
                      json={**recipient, "template_id": templates[channel], "personalisation": {"code": "1"}})
    assert (door.status_code, app.status_code) == (201, 201)
    assert _without_ids(door.get_json()) == _without_ids(app.get_json())
    assert door.get_json()["id"] != app.get_json()["id"]  # two sends, one through each
    assert door.content_type == app.content_type == "application/json"
    assert door.headers["X-Request-Id"] and app.headers["X-Request-Id"]
    assert door.get_data().endswith(b"}\n") and app.get_data().endswith(b"}\n")


@pytest.mark.parametrize("kwargs_of, status", [
    (lambda headers, template: {"json": {"phone_number": "0612345678", "template_id": template}}, 401),
    (lambda headers, template: {"headers": {"Authorization": "Bearer x.y.z"}, "json": {}}, 403),
    (lambda headers, template: {"headers": headers, "data": b"{not json"}, 400),
    (lambda headers, template: {"headers": headers, "json": {"phone_number": "12", "template_id": template}}, 400),
    (lambda headers, template: {"headers": headers, "json": {"phone_number": "0612345678"}}, 400),
    (lambda headers, template: {"headers": headers, "json": {"phone_number": "06\u0000", "template_id": template}},
     400),
], ids=["no token", "bad token", "not JSON", "bad number", "no template", "NUL"])
def test_a_refusal_is_answered_alike(client, headers, templates, kwargs_of, status):
    door, app = _both(client, "sms", **kwargs_of(headers, templates["sms"]))
    assert (door.status_code, app.status_code) == (status, status)
    assert door.get_json() == app.get_json() and door.get_json()["status_code"] == status


def test_a_body_shorter_than_its_length_is_answered_alike(client, headers):
    door, app = _both(client, "sms", headers=headers, data=b"{}", environ_overrides={"CONTENT_LENGTH": "100"})
    assert (door.status_code, app.status_code) == (400, 400)
    assert door.get_json() == app.get_json() and door.get_json()["errors"][0]["error"] == "ClientDisconnected"


def test_the_callers_request_id_is_answered_back(client, headers, templates):
    door, app = _both(client, "sms", headers={**headers, "X-Request-Id": "trace-42"},
                      json={"phone_number": "0612345678", "template_id": templates["sms"],
                            "personalisation": {"code": "1"}})
    assert door.headers["X-Request-Id"] == app.headers["X-Request-Id"] == "trace-42"


def test_an_idempotency_key_replays_across_the_door_and_the_app(client, headers, templates):
    body = {"phone_number": "0612345678", "template_id": templates["sms"], "personalisation": {"code": "1"}}
    door, app = _both(client, "sms", headers={**headers, "Idempotency-Key": "once"}, json=body)
    assert (door.status_code, app.status_code) == (201, 201)
    assert door.get_json() == app.get_json()


def test_a_failure_nobody_foresaw_is_a_500_in_the_error_shape(client, headers, templates, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(api.send_door, "accept", broken)
    door = client.post("/v2/notifications/sms", headers=headers,
                       json={"phone_number": "0612345678", "template_id": templates["sms"]})
    assert door.status_code == 500
    assert door.get_json() == {"status_code": 500,
                               "errors": [{"error": "Exception", "message": "Internal server error"}]}


def test_other_methods_and_paths_stay_with_the_app(client, headers):
    refused = client.put("/v2/notifications/sms", headers=headers, json={})
    assert refused.status_code == 405 and refused.get_json()["errors"][0]["error"] == "MethodNotAllowed"
    # GET is the app's route for one notification by id
    assert client.get("/v2/notifications/sms", headers=headers).get_json()["errors"] == [
        {"error": "ValidationError", "message": "id is not a valid UUID"}]
    assert client.post("/v2/notifications/sms/", headers=headers, json={}).status_code == 404
