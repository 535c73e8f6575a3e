"""Organisations through the admin API: domains, members, services, brands, rate agreements, usage,
history, the platform admin's search, and what a member of one organisation sees of another (nothing)."""
from __future__ import annotations

import datetime

from core.appearance import change_appearance
from core.brands import create_email_brand
from models.appearance import appearance_of
from models.audit import AuditEvent
from models.db import utcnow
from tests.admin_helpers import admin_headers, errors, post_service
from tests.console.users import create_console_user
from tests.factories import create_notification


def _post(client, path: str, body: dict, **query: str):
    return client.post(path, json=body, query_string=query, headers=admin_headers())


def _organisation(client, name: str = "Gemeente Utrecht", kind: str = "gemeente", **fields) -> dict:
    response = _post(client, "/admin/organisations", {"name": name, "kind": kind, **fields})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def test_an_organisation_is_made_changed_and_listed_with_its_domains(client):
    org = _organisation(client, language="en", time_zone="Europe/London")
    assert {k: org[k] for k in ("name", "kind", "language", "time_zone", "rate_table", "domains")} == {
        "name": "Gemeente Utrecht", "kind": "gemeente", "language": "en", "time_zone": "Europe/London",
        "rate_table": "standard", "domains": []}
    assert _post(client, f"/admin/organisations/{org['id']}/domains", {"domain": "Utrecht.NL"}).status_code == 201
    _organisation(client, "Waterschap Rivierenland", "waterschap")
    changed = client.patch(f"/admin/organisations/{org['id']}", json={"kind": "other"}, headers=admin_headers())
    assert changed.get_json()["kind"] == "other"

    found = client.get("/admin/organisations", query_string={"search": "utrecht.nl"}, headers=admin_headers())
    assert [(o["name"], o["domains"]) for o in found.get_json()["organisations"]] == [("Gemeente Utrecht",
                                                                                       ["utrecht.nl"])]
    history = client.get(f"/admin/organisations/{org['id']}/history", headers=admin_headers()).get_json()
    assert [(e["action"], e["actor"]["kind"], e["after"]) for e in history["events"]] == [
        ("organisation.update", "admin-api", {"kind": "other"}),
        ("domain.add", "admin-api", {"domain": "utrecht.nl"}),
        ("organisation.create", "admin-api", {"name": "Gemeente Utrecht", "kind": "gemeente", "language": "en",
                                              "time_zone": "Europe/London", "rate_table": "standard"})]


def test_bad_settings_are_refused_by_name(client):
    response = _post(client, "/admin/organisations", {"name": "X", "kind": "gemeente", "time_zone": "Mars/Base",
                                                      "rate_table": "nowhere"})
    assert errors(response) == (400, [
        ("ValidationError", "time_zone Mars/Base is not a time zone (an IANA name, like Europe/Amsterdam)"),
        ("ValidationError", "rate_table nowhere has no rates")])
    _organisation(client, "Provincie Utrecht", "provincie")
    assert errors(_post(client, "/admin/organisations", {"name": "provincie utrecht", "kind": "provincie"})) == (
        400, [("BadRequestError", "Organisation name 'provincie utrecht' already exists")])


def test_a_domain_claimed_by_two_organisations_is_refused(client):
    first, second = _organisation(client), _organisation(client, "Gemeente Zeist")
    _post(client, f"/admin/organisations/{first['id']}/domains", {"domain": "utrecht.nl"})
    response = _post(client, f"/admin/organisations/{second['id']}/domains", {"domain": "@UTRECHT.nl"})
    assert errors(response) == (400, [("BadRequestError",
                                       "The email domain utrecht.nl already belongs to Gemeente Utrecht")])
    response = _post(client, f"/admin/organisations/{second['id']}/domains", {"domain": "not a domain"})
    assert errors(response) == (400, [("ValidationError", "not a domain is not an email domain (write it as it "
                                                          "comes after the @, like gemeente.nl)")])


def test_the_last_admin_cannot_be_removed_or_made_a_member(client):
    org = _organisation(client)
    anne, bob = create_console_user(name="Anne"), create_console_user(name="Bob")
    _post(client, f"/admin/organisations/{org['id']}/members", {"email_address": anne.email_address, "role": "admin"})
    path = f"/admin/organisations/{org['id']}/members/{anne.id}"
    assert errors(client.delete(path, headers=admin_headers())) == (400, [(
        "BadRequestError", "An organisation needs at least one admin: make another member admin first")])
    assert client.patch(path, json={"role": "member"}, headers=admin_headers()).status_code == 400
    _post(client, f"/admin/organisations/{org['id']}/members", {"email_address": bob.email_address, "role": "admin"})
    assert client.delete(path, headers=admin_headers()).status_code == 204
    listed = client.get(f"/admin/organisations/{org['id']}/members", headers=admin_headers()).get_json()
    assert [(m["name"], m["role"]) for m in listed["members"]] == [("Bob", "admin")]
    unknown = _post(client, f"/admin/organisations/{org['id']}/members",
                    {"email_address": "nobody@example.nl", "role": "member"})
    assert errors(unknown) == (400, [("BadRequestError",
                                      "There is no console account with the email address nobody@example.nl")])


def test_a_moved_service_keeps_its_brand_only_where_the_new_organisation_offers_it(client):
    kept, dropped = create_email_brand(name="Shared"), create_email_brand(name="Old body")
    old, new = _organisation(client, "Old body"), _organisation(client, "New body")
    for org, brands in ((old, (kept, dropped)), (new, (kept,))):
        for brand in brands:
            assert _post(client, f"/admin/organisations/{org['id']}/brands",
                         {"kind": "email", "brand_id": str(brand.id)}).status_code == 201
    stays, loses = post_service(client, name="Stays"), post_service(client, name="Loses")
    for sid, brand in ((stays["id"], kept), (loses["id"], dropped)):
        _post(client, f"/admin/organisations/{old['id']}/services", {"service_id": sid})
        change_appearance(sid, email_brand_id=str(brand.id))
    # Not offered by its organisation: refused.
    other = create_email_brand(name="Elsewhere")
    refused = client.patch(f"/admin/services/{stays['id']}/appearance", json={"email_brand_id": str(other.id)},
                           headers=admin_headers())
    assert errors(refused) == (400, [("ValidationError",
                                      "email_brand_id is not a brand of the service's organisation")])

    for sid in (stays["id"], loses["id"]):
        assert _post(client, f"/admin/organisations/{new['id']}/services", {"service_id": sid}).status_code == 201

    assert appearance_of(stays["id"]).email_brand.id == kept.id
    assert appearance_of(loses["id"]).email_brand is None
    events = AuditEvent.select().where(AuditEvent.service_id == loses["id"]).order_by(AuditEvent.created_at)
    assert [(e.action, e.before, e.after) for e in events][-2:] == [
        ("service.organisation", {"organisation": "Old body"}, {"organisation": "New body"}),
        ("service.appearance", {"email_brand_id": str(dropped.id)}, {"email_brand_id": None})]
    listed = client.get(f"/admin/organisations/{old['id']}/services", headers=admin_headers()).get_json()
    assert listed == {"services": []}


def test_usage_per_service_and_in_total_is_priced_from_the_rate_agreement(client):
    org = _organisation(client)
    today = utcnow()
    assert _post(client, "/admin/rates", {"notification_type": "sms", "valid_from": "2020-01-01", "rate": 0.01,
                                          "rate_table": "gemeenten"}).status_code == 201
    client.patch(f"/admin/organisations/{org['id']}", json={"rate_table": "gemeenten"}, headers=admin_headers())
    a, b = post_service(client, name="Parkeren"), post_service(client, name="Afval")
    for sid in (a["id"], b["id"]):
        _post(client, f"/admin/organisations/{org['id']}/services", {"service_id": sid})
    from models.service import Service
    sa, sb = Service.get_by_id(a["id"]), Service.get_by_id(b["id"])
    create_notification(service=sa, notification_type="sms", status="delivered", billable_units=2, created_at=today)
    create_notification(service=sb, notification_type="sms", status="delivered", billable_units=1, created_at=today)
    create_notification(service=sb, notification_type="letter", status="delivered", billable_units=2,
                        created_at=today)

    body = client.get(f"/admin/organisations/{org['id']}/usage", query_string={"year": today.year,
                                                                               "month": today.month},
                      headers=admin_headers()).get_json()
    per_service = {s["service_name"]: (s["sms"]["billable_units"], s["sms"]["cost_in_pounds"],
                                       s["letter"]["billable_sheets"]) for s in body["services"]}
    assert per_service == {"Parkeren": (2, 0.02, 0), "Afval": (1, 0.01, 2)}
    assert body["total"]["sms"] == {"notifications": 2, "billable_units": 3, "cost_in_pounds": 0.03}
    # Letters: the agreement has no letter prices, so the standard table's apply (0.68 + 0.05).
    assert body["total"]["letter"]["cost_in_pounds"] == 0.73
    assert body["total"]["total_cost_in_pounds"] == 0.76
    assert client.get(f"/admin/services/{a['id']}/usage", query_string={"year": today.year, "month": today.month},
                      headers=admin_headers()).get_json()["sms"]["cost_in_pounds"] == 0.02
    assert (today - datetime.timedelta(days=40)).year >= 2000


def test_a_member_of_one_organisation_sees_nothing_of_another(client):
    mine, theirs = _organisation(client, "Mine"), _organisation(client, "Theirs")
    member = create_console_user()
    _post(client, f"/admin/organisations/{mine['id']}/members", {"email_address": member.email_address,
                                                                 "role": "member"})
    sid = post_service(client, name="Their service")["id"]
    _post(client, f"/admin/organisations/{theirs['id']}/services", {"service_id": sid})
    as_member = {"on_behalf_of": member.id}
    base = f"/admin/organisations/{theirs['id']}"
    for path in ("", "/members", "/services", "/brands", "/history"):
        assert client.get(base + path, query_string=as_member, headers=admin_headers()).status_code == 404, path
    assert client.get(base + "/usage", query_string={**as_member, "year": 2026, "month": 1},
                      headers=admin_headers()).status_code == 404
    for path, body in (("/domains", {"domain": "x.nl"}), ("/members", {"email_address": "a@b.nl", "role": "admin"}),
                       ("/brands", {"kind": "email", "brand_id": str(mine["id"])})):
        assert _post(client, base + path, body, **as_member).status_code == 404, path
    assert client.patch(base, json={"name": "Mine too"}, query_string=as_member,
                        headers=admin_headers()).status_code == 404
    assert _post(client, f"/admin/services/{sid}/go-live/organisation-approve", {}, **as_member).status_code == 404
    listed = client.get("/admin/organisations", query_string=as_member, headers=admin_headers()).get_json()
    assert [o["name"] for o in listed["organisations"]] == ["Mine"]
    # Their own, as a member (not an admin): seen, but domains are an admin's to change.
    assert client.get(f"/admin/organisations/{mine['id']}", query_string=as_member,
                      headers=admin_headers()).status_code == 200
    refused = _post(client, f"/admin/organisations/{mine['id']}/domains", {"domain": "mine.nl"}, **as_member)
    assert errors(refused) == (403, [("BadRequestError",
                                      "Only an admin of the organisation or a platform admin can do this")])


def test_the_search_finds_users_and_services_by_name_email_or_id(client):
    anne = create_console_user(name="Anne de Vries", email_address="anne@utrecht.nl")
    service = post_service(client, name="Utrecht parkeren")
    found = client.get("/admin/search", query_string={"q": "UTRECHT"}, headers=admin_headers()).get_json()
    assert [u["email_address"] for u in found["users"]] == ["anne@utrecht.nl"]
    assert [s["name"] for s in found["services"]] == ["Utrecht parkeren"]
    by_id = client.get("/admin/search", query_string={"q": service["id"]}, headers=admin_headers()).get_json()
    assert ([u["name"] for u in by_id["users"]], [s["id"] for s in by_id["services"]]) == ([], [service["id"]])
    by_user = client.get("/admin/search", query_string={"q": anne.id}, headers=admin_headers()).get_json()
    assert [u["name"] for u in by_user["users"]] == ["Anne de Vries"]
