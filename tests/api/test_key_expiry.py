"""API keys with an expiry date: refused after it (as a revoked key is), rotated with an overlap, and
their managers warned by email 14 days before, once per key."""
from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

import pytest
from babel.dates import format_datetime

from core.keys import create_key, rotate_key
from core.tokens import create_token
from models.api_key import ApiKey
from models.db import utcnow
from models.notification import Notification
from models.platform import PLATFORM_SERVICE_ID
from tests.admin_helpers import admin_headers, errors, post_service, service_headers
from tests.console.users import create_console_user
from tests.factories import create_service

REVOKED = (403, [("AuthError", "Invalid token: API key revoked")])


def _in(**delta: float) -> str:
    return (utcnow() + datetime.timedelta(**delta)).isoformat() + "Z"


def test_a_key_with_an_expiry_works_until_it_then_is_refused_as_revoked(client):
    sid = post_service(client)["id"]
    response = client.post(f"/admin/services/{sid}/api-keys", headers=admin_headers(),
                           json={"name": "ci", "key_type": "live", "expires_at": _in(days=30)})
    assert response.status_code == 201
    created = response.get_json()
    assert created["expires_at"].endswith("Z")
    headers = service_headers(created["key"])
    assert client.get("/v2/templates", headers=headers).status_code == 200

    # The same token, remembered by the verified-token cache, is refused the moment the key expires.
    ApiKey.update(expires_at=utcnow() - datetime.timedelta(seconds=1)).where(ApiKey.id == created["id"]).execute()
    assert errors(client.get("/v2/templates", headers=headers)) == REVOKED
    listed = client.get(f"/admin/services/{sid}/api-keys", headers=admin_headers()).get_json()["api_keys"]
    assert listed[0]["expires_at"] is not None and listed[0]["revoked_at"] is None


@pytest.mark.parametrize("expires_at, message", [
    ("tomorrow", "expires_at tomorrow is not a valid date-time"),
    ("2020-01-01T00:00:00Z", "expires_at must be in the future"),
    (5, "expires_at 5 is not of type string, null"),
])
def test_an_expiry_must_be_a_future_date_time(client, expires_at, message):
    sid = post_service(client)["id"]
    response = client.post(f"/admin/services/{sid}/api-keys", headers=admin_headers(),
                           json={"name": "ci", "key_type": "live", "expires_at": expires_at})
    assert errors(response) == (400, [("ValidationError", message)])


def test_an_expiry_with_a_zone_is_kept_in_utc(client):
    sid = post_service(client)["id"]
    when = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=3)).replace(microsecond=0)
    local = when.astimezone(datetime.timezone(datetime.timedelta(hours=1))).isoformat()
    created = client.post(f"/admin/services/{sid}/api-keys", headers=admin_headers(),
                          json={"name": "ci", "key_type": "live", "expires_at": local}).get_json()
    assert created["expires_at"] == when.strftime("%Y-%m-%dT%H:%M:%S.000000Z")


def test_rotation_makes_a_new_key_and_the_old_one_works_for_the_overlap(client):
    sid = post_service(client)["id"]
    old = client.post(f"/admin/services/{sid}/api-keys", headers=admin_headers(),
                      json={"name": "ci", "key_type": "team"}).get_json()
    response = client.post(f"/admin/services/{sid}/api-keys/{old['id']}/rotate", headers=admin_headers(),
                           json={"overlap_seconds": 3600})
    assert response.status_code == 201
    body = response.get_json()
    assert (body["new_key"]["name"], body["new_key"]["key_type"], body["new_key"]["expires_at"]) == ("ci", "team", None)
    assert body["new_key"]["key"] != old["key"] and body["old_key"]["id"] == old["id"]
    ends = datetime.datetime.fromisoformat(body["old_key"]["expires_at"].rstrip("Z"))
    assert abs((ends - utcnow()) - datetime.timedelta(hours=1)) < datetime.timedelta(seconds=30)
    for key in (old["key"], body["new_key"]["key"]):
        assert client.get("/v2/templates", headers=service_headers(key)).status_code == 200

    ApiKey.update(expires_at=utcnow()).where(ApiKey.id == old["id"]).execute()  # the overlap is over
    assert errors(client.get("/v2/templates", headers=service_headers(old["key"]))) == REVOKED
    assert client.get("/v2/templates", headers=service_headers(body["new_key"]["key"])).status_code == 200
    again = client.post(f"/admin/services/{sid}/api-keys/{old['id']}/rotate", headers=admin_headers(),
                        json={"overlap_seconds": 60})
    assert errors(again) == (400, [("BadRequestError", "This API key has been revoked or has expired")])
    history = client.get(f"/admin/services/{sid}/history", headers=admin_headers()).get_json()["events"]
    assert [e["action"] for e in history[:2]] == ["api_key.create", "api_key.rotate"]


def test_rotation_never_lengthens_the_old_keys_life(client):
    service = create_service()
    old, _ = create_key(str(service.id), name="ci", key_type="live", expires_at=utcnow() + datetime.timedelta(hours=1))
    rotated, _, _ = rotate_key(str(service.id), str(old.id), overlap=datetime.timedelta(days=7))
    assert rotated.expires_at == old.expires_at


def test_rotation_overlap_is_bounded(client):
    sid = post_service(client)["id"]
    old = client.post(f"/admin/services/{sid}/api-keys", headers=admin_headers(),
                      json={"name": "ci", "key_type": "live"}).get_json()
    response = client.post(f"/admin/services/{sid}/api-keys/{old['id']}/rotate", headers=admin_headers(),
                           json={"overlap_seconds": 31 * 86400})
    assert errors(response) == (400, [
        ("ValidationError", "overlap_seconds 2678400 is greater than the maximum of 2592000")])


def test_rotate_and_expiry_are_in_the_openapi_document(client):
    spec = client.get("/openapi.json").get_json()
    rotate = spec["paths"]["/admin/services/{service_id}/api-keys/{key_id}/rotate"]["post"]
    assert "201" in rotate["responses"]
    create = spec["paths"]["/admin/services/{service_id}/api-keys"]["post"]
    assert "expires_at" in str(create)


def _warned() -> list[tuple[str, str]]:
    rows = Notification.select().where(Notification.service == PLATFORM_SERVICE_ID).order_by(Notification.to)
    return [(row.to, row.subject) for row in rows]


def test_managers_are_warned_once_14_days_before_a_key_expires():
    from workers.key_expiry import warn_expiring_keys

    service = create_service(name="Belastingen")
    manager = create_console_user(service=service, permissions=["manage_api_keys"], email_address="m@example.nl")
    create_console_user(service=service, permissions=["manage_service"], email_address="s@example.nl")
    create_console_user(service=service, permissions=["view_activity"], email_address="v@example.nl")
    soon, _ = create_key(str(service.id), name="ci", key_type="live",
                         expires_at=utcnow() + datetime.timedelta(days=13))
    create_key(str(service.id), name="later", key_type="live", expires_at=utcnow() + datetime.timedelta(days=20))
    create_key(str(service.id), name="never", key_type="live")

    warn_expiring_keys.fn()
    warn_expiring_keys.fn()  # a second run (or a redelivered message) warns no one again
    subject = "API-sleutel ci verloopt binnenkort"  # written by no page: in Dutch, the platform's language
    assert _warned() == [(manager.email_address, subject), ("s@example.nl", subject)]
    body = Notification.get(Notification.to == "m@example.nl").body
    # On the service's clock with the zone's abbreviation, as the console shows the expiry.
    expires = ApiKey.get_by_id(soon.id).expires_at.replace(tzinfo=datetime.UTC).astimezone(ZoneInfo("Europe/Amsterdam"))
    written = format_datetime(expires, "d MMM y HH:mm", locale="nl")  # "9 dec 2026 15:36", as the console writes it
    assert f"De API-sleutel ci van Belastingen verloopt op {written} {expires.tzname()}." in body
    assert expires.tzname() in ("CET", "CEST")
    assert f"/services/{service.id}/api-keys" in body
    assert ApiKey.get_by_id(soon.id).expiry_warned_at is not None


def test_a_key_rotated_with_a_short_overlap_is_not_warned_of():
    from workers.key_expiry import warn_expiring_keys

    service = create_service()
    create_console_user(service=service, permissions=["manage_api_keys"])
    old, _ = create_key(str(service.id), name="ci", key_type="live")
    rotate_key(str(service.id), str(old.id), overlap=datetime.timedelta(days=1))
    warn_expiring_keys.fn()
    assert _warned() == []


def test_the_token_of_an_expired_key_is_refused_even_when_just_verified(client):
    service = create_service()
    key, secret = create_key(str(service.id), name="k", key_type="live",
                             expires_at=utcnow() + datetime.timedelta(seconds=2))
    token = create_token(str(service.id), secret[-36:])
    assert client.get("/v2/templates", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    ApiKey.update(expires_at=utcnow()).where(ApiKey.id == key.id).execute()
    response = client.get("/v2/templates", headers={"Authorization": f"Bearer {token}"})
    assert errors(response) == REVOKED
