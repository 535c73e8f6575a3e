"""The admin API's case events: PUT/GET/DELETE /admin/services/<id>/case-events, the subscription at Open
Notificaties (made and read back against the fake), the events per case and trying one again. Credentials
are sealed at rest and never answered."""
from __future__ import annotations

import uuid

from models.case_event import CaseEvent, CaseEventLink
from models.db import database
from tests.admin_helpers import admin_headers, errors
from tests.conftest import wait_for
from tests.factories import create_sample_template
from tests.zgw.linked import BSN, CASE_TYPE, citizen, events, seed_case_type


def _path(service, rest=""):
    return f"/admin/services/{service.id}/case-events{rest}"


def _body(zgw, service, **changes):
    sms = create_sample_template(service=service, template_type="sms", name="Zaak", body="Zaak ((zaak.identificatie))")
    return {"zaken_root": zgw.zaken_root, "catalogi_root": zgw.catalogi_root, "klant_root": zgw.klant_root,
            "client_id": zgw.client_id, "client_secret": zgw.secret, "klant_token": zgw.klant_token,
            "nrc_root": zgw.nrc_root, "nrc_client_id": zgw.nrc_client_id, "nrc_secret": zgw.nrc_secret,
            "case_types": [CASE_TYPE], "templates": {"received": {"sms": str(sms.id)}}, **changes}


def test_a_link_is_set_read_and_never_answers_its_credentials(client, zgw, service, live_server):
    answer = client.put(_path(service), json=_body(zgw, service), headers=admin_headers())
    assert answer.status_code == 200, answer.get_json()
    link = answer.get_json()
    assert link["callback_url"] == f"{live_server}/case-events/{link['id']}"
    assert (link["zaken_root"], link["case_types"], link["credentials_set"]) == (
        zgw.zaken_root, [CASE_TYPE], {"client_secret": True, "klant_token": True, "nrc_secret": True})
    assert link["subscription"] == {"url": None, "state": None, "checked_at": None, "status": None, "code": None}
    for secret in (zgw.secret, zgw.klant_token, zgw.nrc_secret):
        assert secret not in answer.get_data(as_text=True)
    sealed = database.execute_sql("SELECT client_secret, klant_token, nrc_secret, callback_auth FROM case_event_link"
                                  ).fetchone()
    stored = CaseEventLink.get()
    assert all(value.startswith("v2:") for value in sealed)
    assert (stored.client_secret, stored.klant_token) == (zgw.secret, zgw.klant_token)
    assert stored.callback_auth.startswith("Bearer ") and stored.callback_auth not in answer.get_data(as_text=True)

    # Changed without credentials: the ones set are kept.
    body = _body(zgw, service, case_types=["A", "B"])
    for name in ("client_secret", "klant_token", "nrc_secret"):
        del body[name]
    again = client.put(_path(service), json=body, headers=admin_headers()).get_json()
    assert (again["id"], again["case_types"]) == (link["id"], ["A", "B"])
    assert CaseEventLink.get().client_secret == zgw.secret
    assert client.get(_path(service), headers=admin_headers()).get_json() == again


def test_a_link_is_refused_in_the_words_of_its_fields(client, zgw, service):
    body = _body(zgw, service, zaken_root="ftp://open-zaak.example.nl/zaken/api/v1/",
                 catalogi_root="https://10.0.0.5/catalogi/api/v1/", klant_root="https://example.nl/x?y=1")
    del body["client_secret"]
    assert errors(client.put(_path(service), json=body, headers=admin_headers())) == (400, [
        ("ValidationError", "zaken_root is not a valid https url"),
        ("ValidationError", "catalogi_root must be a public internet address"),
        ("ValidationError", "klant_root must not have a query or a fragment"),
        ("ValidationError", "client_secret is required")])
    letter = create_sample_template(service=service, template_type="letter", name="Brief")
    wrong = _body(zgw, service, templates={"received": {"sms": str(letter.id)}})
    assert errors(client.put(_path(service), json=wrong, headers=admin_headers())) == (400, [
        ("BadRequestError", "templates received sms template is a letter template")])
    unknown = _body(zgw, service, templates={"received": {"sms": str(uuid.uuid4())}})
    assert errors(client.put(_path(service), json=unknown, headers=admin_headers()))[0] == 400
    assert client.get(_path(service), headers=admin_headers()).status_code == 404


def test_the_subscription_is_made_read_back_and_made_again(client, zgw, service, live_server):
    client.put(_path(service), json=_body(zgw, service), headers=admin_headers())
    made = client.post(_path(service, "/subscription"), headers=admin_headers()).get_json()
    assert made["subscription"]["state"] == "holds"
    [held] = zgw.subscriptions()
    assert made["subscription"]["url"] == held["url"] and held["callbackUrl"] == made["callback_url"]
    assert client.get(_path(service, "/subscription"), headers=admin_headers()).get_json()["subscription"][
        "state"] == "holds"

    again = client.post(_path(service, "/subscription"), headers=admin_headers()).get_json()
    [renewed] = zgw.subscriptions()  # the new one holds, the one before it is removed
    assert again["subscription"]["url"] == renewed["url"] != held["url"]

    # Open Notificaties refusing our credentials is said so, with its answer.
    CaseEventLink.update(nrc_secret="not-the-secret-open-notificaties-knows").execute()
    refused = client.post(_path(service, "/subscription"), headers=admin_headers()).get_json()
    assert (refused["subscription"]["state"], refused["subscription"]["status"]) == ("refused", 403)


def test_events_are_listed_per_case_and_one_that_ended_without_a_message_is_tried_again(
        client, zgw, service, live_server, worker):
    client.put(_path(service), json=_body(zgw, service, case_types=[]), headers=admin_headers())
    client.post(_path(service, "/subscription"), headers=admin_headers())
    case = seed_case_type(zgw)
    citizen(zgw)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-42", omschrijving="Vergunning", bsn=BSN)
    zgw.set_status(zaak, case.received)
    wait_for(lambda: [e for e in events() if e.state == "case-type-not-taking-part"])

    listed = client.get(_path(service, "/events?zaak=ZAAK-42"), headers=admin_headers()).get_json()["events"]
    assert [(e["zaak_identificatie"], e["state"], e["detail"]) for e in listed] == [
        ("ZAAK-42", "case-type-not-taking-part", {"case_type": CASE_TYPE})]
    assert client.get(_path(service, "/events?zaak=OTHER"), headers=admin_headers()).get_json() == {"events": []}
    assert BSN not in client.get(_path(service, "/events"), headers=admin_headers()).get_data(as_text=True)

    body = _body(zgw, service)
    del body["templates"]
    client.put(_path(service), json=body, headers=admin_headers())  # the case type takes part now
    retried = client.post(_path(service, f"/events/{listed[0]['id']}/retry"), headers=admin_headers())
    assert retried.status_code == 200 and retried.get_json()["state"] == "pending"
    wait_for(lambda: CaseEvent.get_by_id(listed[0]["id"]).state == "sent")
    assert errors(client.post(_path(service, f"/events/{listed[0]['id']}/retry"), headers=admin_headers())) == (
        400, [("BadRequestError", f"event {listed[0]['id']} is sent: only one that ended without a message is"
                                  " tried again")])


def test_removing_the_link_removes_its_subscription_and_events(client, zgw, service, live_server):
    client.put(_path(service), json=_body(zgw, service), headers=admin_headers())
    client.post(_path(service, "/subscription"), headers=admin_headers())
    assert client.delete(_path(service), headers=admin_headers()).status_code == 204
    assert zgw.subscriptions() == []
    assert CaseEventLink.select().count() == 0
    assert client.get(_path(service), headers=admin_headers()).status_code == 404
