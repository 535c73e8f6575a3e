"""The audit trail: every change through the admin API and the CLI is in the service's history,
with who, what, before and after, and never a secret."""
from __future__ import annotations

import json

from models.audit import Actor, acting_as
from tests.admin_helpers import admin_headers, errors, post_key, post_service


def _history(client, service_id: str, **query) -> list[dict]:
    response = client.get(f"/admin/services/{service_id}/history", query_string=query, headers=admin_headers())
    assert response.status_code == 200, response.get_json()
    return response.get_json()["events"]


def test_each_admin_change_is_recorded_newest_first(client):
    service = post_service(client, name="Tax office")
    sid = service["id"]
    client.patch(f"/admin/services/{sid}", json={"name": "Tax office NL", "sms_daily_limit": 10},
                 headers=admin_headers())
    key = post_key(client, sid, name="main")
    client.delete(f"/admin/services/{sid}/api-keys/{key['id']}", headers=admin_headers())
    client.put(f"/admin/services/{sid}/callbacks/delivery-status",
               json={"url": "https://example.nl/cb", "bearer_token": "token-of-the-service"}, headers=admin_headers())
    events = _history(client, sid)
    assert [e["action"] for e in events] == [
        "callback.delivery-status.set", "api_key.revoke", "api_key.create", "service.update", "service.create"]
    assert {e["actor"]["kind"] for e in events} == {"admin-api"}
    assert events[0]["actor"]["name"] == "notify-admin"
    update = events[3]
    assert (update["before"], update["after"]) == ({"name": "Tax office", "sms_daily_limit": 250000},
                                                  {"name": "Tax office NL", "sms_daily_limit": 10})
    assert events[2]["after"] == {"name": "main", "key_type": "live"} and events[2]["subject_id"] == key["id"]
    assert events[1]["before"]["revoked_at"] is None and events[1]["after"]["revoked_at"] is not None
    # Never a secret: neither the key's secret nor the callback's bearer token appear anywhere.
    text = json.dumps(events)
    assert key["key"][-36:] not in text and "token-of-the-service" not in text
    assert events[0]["after"] == {"url": "https://example.nl/cb", "bearer_token": "(changed)"}


def test_an_update_that_changes_nothing_is_not_recorded(client):
    sid = post_service(client, name="Tax office")["id"]
    client.patch(f"/admin/services/{sid}", json={"name": "Tax office"}, headers=admin_headers())
    assert [e["action"] for e in _history(client, sid)] == ["service.create"]


def test_a_refused_change_leaves_no_record(client):
    sid = post_service(client, name="Tax office")["id"]
    post_service(client, name="Permits")
    response = client.patch(f"/admin/services/{sid}", json={"name": "Permits"}, headers=admin_headers())
    assert response.status_code == 400
    assert [e["action"] for e in _history(client, sid)] == ["service.create"]


def test_senders_team_and_guest_list_changes(client):
    sid = post_service(client, name="Tax office")["id"]
    first = client.post(f"/admin/services/{sid}/reply-to-addresses", json={"email_address": "a@example.nl"},
                        headers=admin_headers()).get_json()
    second = client.post(f"/admin/services/{sid}/reply-to-addresses", json={"email_address": "b@example.nl"},
                         headers=admin_headers()).get_json()
    changed = client.patch(f"/admin/services/{sid}/reply-to-addresses/{second['id']}",
                           json={"email_address": "c@example.nl", "is_default": True}, headers=admin_headers())
    assert changed.status_code == 200 and changed.get_json()["is_default"] is True
    member = client.post(f"/admin/services/{sid}/users", json={"email_address": "Ann@Example.nl"},
                         headers=admin_headers()).get_json()
    assert client.delete(f"/admin/services/{sid}/users/{member['id']}", headers=admin_headers()).status_code == 204
    guest = client.post(f"/admin/services/{sid}/guest-list", json={"recipient": "guest@example.nl"},
                        headers=admin_headers()).get_json()
    assert client.delete(f"/admin/services/{sid}/guest-list/{guest['id']}", headers=admin_headers()).status_code == 204
    events = _history(client, sid)
    assert [e["action"] for e in events[:6]] == [
        "guest_list.remove", "guest_list.add", "team_member.remove", "team_member.add",
        "reply_to_address.update", "reply_to_address.add"]
    assert events[4]["before"] == {"email_address": "b@example.nl", "is_default": False}
    assert events[4]["after"] == {"email_address": "c@example.nl", "is_default": True}
    assert events[2]["before"] == {"email_address": "ann@example.nl", "mobile_number": None}
    listed = client.get(f"/admin/services/{sid}/reply-to-addresses", headers=admin_headers()).get_json()
    assert ([(r["id"], r["is_default"]) for r in listed["reply_to_addresses"]]
            == [(first["id"], False), (second["id"], True)])


def test_the_default_cannot_be_unset_only_replaced(client):
    sid = post_service(client, name="Tax office")["id"]
    only = client.post(f"/admin/services/{sid}/sms-senders", json={"sms_sender": "TaxOffice"},
                       headers=admin_headers()).get_json()
    response = client.patch(f"/admin/services/{sid}/sms-senders/{only['id']}", json={"is_default": False},
                            headers=admin_headers())
    assert errors(response) == (400, [("BadRequestError", "This is the default: make another one the default instead")])


def test_settings_of_another_service_are_not_found(client):
    mine = post_service(client, name="Tax office")["id"]
    theirs = post_service(client, name="Permits")["id"]
    contact = client.post(f"/admin/services/{theirs}/letter-contacts", json={"contact_block": "Permits\nStreet 1"},
                          headers=admin_headers()).get_json()
    response = client.patch(f"/admin/services/{mine}/letter-contacts/{contact['id']}",
                            json={"contact_block": "Mine now"}, headers=admin_headers())
    assert errors(response) == (404, [("NoResultFound", "No result found")])
    guest = client.post(f"/admin/services/{theirs}/guest-list", json={"recipient": "guest@example.nl"},
                        headers=admin_headers()).get_json()
    assert client.delete(f"/admin/services/{mine}/guest-list/{guest['id']}", headers=admin_headers()).status_code == 404
    assert client.delete(f"/admin/services/{mine}/users/abc", headers=admin_headers()).status_code == 404
    bad = client.patch(f"/admin/services/{mine}/sms-senders/not-a-uuid", json={}, headers=admin_headers())
    assert errors(bad) == (400, [("ValidationError", "setting_id is not a valid UUID")])


def test_history_limit_and_errors(client):
    sid = post_service(client, name="Tax office")["id"]
    for n in range(3):
        client.patch(f"/admin/services/{sid}", json={"rate_limit": 100 + n}, headers=admin_headers())
    assert [e["after"] for e in _history(client, sid, limit=2)] == [{"rate_limit": 102}, {"rate_limit": 101}]
    bad = client.get(f"/admin/services/{sid}/history?limit=x", headers=admin_headers())
    assert errors(bad) == (400, [("ValidationError", "limit x is not of type integer")])
    unknown = client.get("/admin/services/00000000-0000-4000-8000-000000000000/history", headers=admin_headers())
    assert unknown.status_code == 404


def test_cli_changes_are_recorded_as_the_operator(app):
    runner = app.test_cli_runner()
    created = json.loads(runner.invoke(args=["create-service", "--name", "Tax office"]).stdout)
    runner.invoke(args=["create-api-key", "--service-id", created["id"], "--name", "ops", "--key-type", "test"])
    events = json.loads(runner.invoke(args=["service-history", "--service-id", created["id"]]).stdout)["events"]
    assert [(e["action"], e["actor"]["kind"]) for e in events] == [("api_key.create", "cli"), ("service.create", "cli")]
    assert events[0]["actor"]["name"].endswith("(CLI)")


def test_a_declared_actor_is_recorded(client):
    from core.services import update_service

    sid = post_service(client, name="Tax office")["id"]
    with acting_as(Actor("user", "42", "ann@example.nl")):
        update_service(sid, name="Renamed")
    event = _history(client, sid)[0]
    assert event["actor"] == {"kind": "user", "id": "42", "name": "ann@example.nl"}
