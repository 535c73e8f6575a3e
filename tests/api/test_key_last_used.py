"""An API key's "last used": written when the key authenticates, at most once a minute per process."""
from __future__ import annotations

from models import api_key
from models.api_key import ApiKey
from tests.admin_helpers import admin_headers, post_key, post_service, service_headers


def _listed(client, sid: str) -> dict:
    return client.get(f"/admin/services/{sid}/api-keys", headers=admin_headers()).get_json()["api_keys"][0]


def test_last_used_is_set_by_a_request_and_not_rewritten_within_the_minute(client):
    sid = post_service(client, name="Tax office")["id"]
    key = post_key(client, sid, key_type="test")
    assert _listed(client, sid)["last_used_at"] is None
    assert client.get("/v2/templates", headers=service_headers(key["key"])).status_code == 200
    first = _listed(client, sid)["last_used_at"]
    assert first is not None
    ApiKey.update(last_used_at=None).where(ApiKey.id == key["id"]).execute()
    client.get("/v2/templates", headers=service_headers(key["key"]))
    assert _listed(client, sid)["last_used_at"] is None  # within the minute: no second write
    api_key._last_written.clear()  # as if the minute had passed
    client.get("/v2/templates", headers=service_headers(key["key"]))
    assert _listed(client, sid)["last_used_at"] is not None


def test_a_refused_token_does_not_count_as_use(client):
    sid = post_service(client, name="Tax office")["id"]
    key = post_key(client, sid, key_type="test")
    client.delete(f"/admin/services/{sid}/api-keys/{key['id']}", headers=admin_headers())
    assert client.get("/v2/templates", headers=service_headers(key["key"])).status_code == 403
    assert _listed(client, sid)["last_used_at"] is None
