"""The ZGW fakes themselves (tests/zgw/fakes): Open Zaak and Open Klant serve what they were seeded with,
in their files' shapes, and refuse what their files do not allow; the world starts and stops cleanly.
The NRC's subscriptions and deliveries: tests/zgw/test_fakes_nrc.py."""
from __future__ import annotations

import socket
import threading
import time
from typing import Any

import jwt
import pytest
import requests

from tests.zgw.fakes import openklant_schemas as klant_schemas, openzaak_schemas as zaak_schemas, zgw_world
from tests.zgw.fakes.common import FOUT, VALIDATIE_FOUT, problems, zgw_token
from tests.zgw.fakes.world import ZgwWorld

BSN = "999993653"
CRS = {"Accept-Crs": "EPSG:4326", "Content-Crs": "EPSG:4326"}


def oz(world: ZgwWorld, **extra: str) -> dict[str, str]:
    return {"Authorization": zgw_token(world.client_id, world.secret), **extra}


def klant(world: ZgwWorld) -> dict[str, str]:
    return {"Authorization": f"Token {world.klant_token}"}


def refused(answer: requests.Response, status: int, code: str) -> dict[str, Any]:
    """The answer is the file's error shape with this status, and `code` is its code or an invalidParams one."""
    assert answer.status_code == status, answer.text
    assert answer.headers["Content-Type"] == "application/problem+json"
    body = answer.json()
    assert problems(VALIDATIE_FOUT if status == 400 else FOUT, body) == []
    assert body["status"] == status
    assert code in [body["code"], *(p["code"] for p in body.get("invalidParams", []))], body
    return body


def seed(world: ZgwWorld) -> dict[str, str]:
    zaaktype = world.add_zaaktype("Aanvraag parkeervergunning", "PARKEREN")
    partij = world.add_partij(voornaam="Jan", achternaam="Vries", voorvoegsel="de", bsn=BSN,
                              correspondentieadres={"adresregel1": "Dorpsstraat 1", "adresregel2": "1234 AB Ergens",
                                                    "land": "NL"})
    return {
        "zaaktype": zaaktype,
        "ontvangen": world.add_statustype(zaaktype, "Ontvangen", 1),
        "behandeling": world.add_statustype(zaaktype, "In behandeling", 2, informeren=False),
        "afgerond": world.add_statustype(zaaktype, "Afgerond", 3),
        "partij": partij,
        "email": world.add_digitaal_adres(partij, soort="email", adres="jan@example.nl", referentie="ZAAK-1"),
        "telefoon": world.add_digitaal_adres(partij, soort="telefoonnummer", adres="0612345678", voorkeur=True),
        "zaak": world.add_zaak(zaaktype, identificatie="ZAAK-1", omschrijving="Parkeren", bsn=BSN, betrokkene=partij),
    }


# --- Open Zaak ----------------------------------------------------------------------------------------

def test_open_zaak_serves_the_seeded_case_its_status_types_and_roles_in_the_files_shapes(zgw):
    s = seed(zgw)
    status = zgw.set_status(s["zaak"], s["ontvangen"])

    case = requests.get(s["zaak"], headers=oz(zgw, **CRS), timeout=5)
    assert case.status_code == 200 and case.headers["Content-Crs"] == "EPSG:4326"
    assert problems(zaak_schemas.ZAAK, case.json()) == []
    shown = ("url", "identificatie", "omschrijving", "zaaktype", "status", "bronorganisatie")
    assert {k: case.json()[k] for k in shown} == {
        "url": s["zaak"], "identificatie": "ZAAK-1", "omschrijving": "Parkeren", "zaaktype": s["zaaktype"],
        "status": status, "bronorganisatie": zgw.rsin}

    read = requests.get(status, headers=oz(zgw), timeout=5).json()
    assert problems(zaak_schemas.STATUS, read) == [] and read["statustype"] == s["ontvangen"]
    assert read["indicatieLaatstGezetteStatus"] is True and read["datumStatusGezet"].endswith("Z")

    kinds = {name: requests.get(s[name], headers=oz(zgw), timeout=5).json()
             for name in ("ontvangen", "behandeling", "afgerond")}
    assert all(problems(zaak_schemas.STATUSTYPE, kind) == [] for kind in kinds.values())
    assert [(k["volgnummer"], k["isEindstatus"], k["informeren"]) for k in kinds.values()] \
        == [(1, False, True), (2, False, False), (3, True, True)]
    zaaktype = requests.get(s["zaaktype"], headers=oz(zgw), timeout=5).json()
    assert problems(zaak_schemas.ZAAKTYPE, zaaktype) == [] and zaaktype["identificatie"] == "PARKEREN"

    rollen = requests.get(zgw.zaken_root + "rollen", params={"zaak": s["zaak"], "omschrijvingGeneriek": "initiator"},
                          headers=oz(zgw), timeout=5).json()
    assert problems(zaak_schemas.PAGINATED_ROL, rollen) == [] and rollen["count"] == 1
    [rol] = rollen["results"]
    assert (rol["betrokkene"], rol["betrokkeneIdentificatie"]["inpBsn"]) == (s["partij"], BSN)
    roltype = requests.get(rol["roltype"], headers=oz(zgw), timeout=5).json()
    assert problems(zaak_schemas.ROLTYPE, roltype) == [] and roltype["omschrijvingGeneriek"] == "initiator"


def test_a_later_status_takes_over_and_the_end_status_closes_the_case(zgw):
    s = seed(zgw)
    first = zgw.set_status(s["zaak"], s["ontvangen"])
    last = zgw.set_status(s["zaak"], s["afgerond"])
    listed = requests.get(zgw.zaken_root + "statussen", params={"zaak": s["zaak"]}, headers=oz(zgw), timeout=5).json()
    assert problems(zaak_schemas.PAGINATED_STATUS, listed) == []
    assert {r["url"]: r["indicatieLaatstGezetteStatus"] for r in listed["results"]} == {first: False, last: True}
    assert requests.get(s["zaak"], headers=oz(zgw, **CRS), timeout=5).json()["einddatum"] is not None
    types = requests.get(zgw.catalogi_root + "statustypen", params={"zaaktype": s["zaaktype"]}, headers=oz(zgw),
                         timeout=5).json()
    assert problems(zaak_schemas.PAGINATED_STATUSTYPE, types) == []
    assert [t["omschrijving"] for t in types["results"]] == ["Ontvangen", "In behandeling", "Afgerond"]


def test_a_case_without_a_bsn_has_no_betrokkene_identificatie(zgw):
    zaaktype = zgw.add_zaaktype("Melding")
    zaak = zgw.add_zaak(zaaktype, identificatie="ZAAK-2", omschrijving="Melding")
    [rol] = requests.get(zgw.zaken_root + "rollen", params={"zaak": zaak}, headers=oz(zgw), timeout=5).json()["results"]
    assert (rol["betrokkene"], rol["betrokkeneIdentificatie"]) == ("", None)


def _token(world: ZgwWorld, **change: Any) -> str:
    secret = change.pop("secret", world.secret)
    payload = {"iss": world.client_id, "iat": int(time.time()), "client_id": world.client_id, "user_id": "u",
               "user_representation": "U", **change}
    payload = {k: v for k, v in payload.items() if v is not None}
    return "Bearer " + jwt.encode(payload, secret, algorithm="HS256")


@pytest.mark.parametrize("make, code", [
    (lambda w: None, "permission_denied"),
    (lambda w: "Token " + w.klant_token, "permission_denied"),
    (lambda w: "Bearer not-a-jwt", "jwt-decode-error"),
    (lambda w: _token(w, secret="another-secret-long-enough-for-any-hmac-key-" * 2), "invalid-jwt-signature"),
    (lambda w: _token(w, client_id="stranger"), "invalid-client-identifier"),
    (lambda w: _token(w, iat=int(time.time()) - 3601), "jwt-expired"),
    (lambda w: _token(w, iat=int(time.time()) + 600), "jwt-immaturesignatureerror"),
    (lambda w: _token(w, iat=None), "jwt-missing-iat-claim"),
    (lambda w: _token(w, user_representation=None), "jwt-missing-claim"),
    (lambda w: "Bearer " + jwt.encode({"iss": w.client_id, "iat": int(time.time()), "client_id": w.client_id,
                                       "user_id": "u", "user_representation": "U"}, w.secret, algorithm="HS512"),
     "jwt-invalidalgorithmerror"),
])
def test_open_zaak_refuses_a_missing_wrong_or_expired_token_with_403(zgw, make, code):
    s = seed(zgw)
    header = make(zgw)
    answer = requests.get(s["zaak"], headers={**CRS, **({"Authorization": header} if header else {})}, timeout=5)
    refused(answer, 403, code)
    assert requests.get(s["zaak"], headers=oz(zgw, **CRS), timeout=5).status_code == 200


def test_open_zaak_refuses_what_the_files_do_not_allow(zgw):
    s = seed(zgw)
    zaak_uuid = s["zaak"].rsplit("/", 1)[1]
    refused(requests.get(s["zaak"], headers=oz(zgw, **{"Content-Crs": "EPSG:4326"}), timeout=5), 412,
            "precondition_failed")
    refused(requests.get(s["zaak"], headers=oz(zgw, **{"Accept-Crs": "EPSG:4326"}), timeout=5), 412,
            "precondition_failed")
    refused(requests.get(s["zaak"], headers=oz(zgw, **{**CRS, "Accept-Crs": "EPSG:28992"}), timeout=5), 406,
            "not_acceptable")
    refused(requests.get(zgw.zaken_root + "zaken/not-a-uuid", headers=oz(zgw, **CRS), timeout=5), 404, "not_found")
    refused(requests.get(zgw.zaken_root + f"zaken/{zaak_uuid}/", headers=oz(zgw, **CRS), timeout=5), 404, "not_found")
    refused(requests.get(zgw.zaken_root + "cases", headers=oz(zgw), timeout=5), 404, "not_found")
    refused(requests.put(zgw.zaken_root + f"statussen/{zaak_uuid}", headers=oz(zgw), timeout=5), 405,
            "method_not_allowed")
    refused(requests.get(zgw.zaken_root + "zaken", headers=oz(zgw, **CRS), timeout=5), 501, "not_implemented_by_fake")
    refused(requests.get(s["zaak"], params={"expand": "status"}, headers=oz(zgw, **CRS), timeout=5), 501,
            "not_implemented_by_fake")
    refused(requests.get(zgw.zaken_root + "rollen", params={"zaak_url": s["zaak"]}, headers=oz(zgw), timeout=5), 400,
            "unknown-parameters")
    refused(requests.get(zgw.zaken_root + "rollen", params={"zaak": "ZAAK-1"}, headers=oz(zgw), timeout=5), 400,
            "invalid")
    refused(requests.get(zgw.zaken_root + "rollen", params={"omschrijvingGeneriek": "Initiator"}, headers=oz(zgw),
                         timeout=5), 400, "invalid_choice")
    refused(requests.get(s["ontvangen"], headers=oz(zgw, Accept="text/html"), timeout=5), 406, "not_acceptable")
    refused(requests.get(zgw.catalogi_root + f"statustypen/{zaak_uuid}", headers=oz(zgw), timeout=5), 404, "not_found")


def test_open_zaak_answers_a_retrieve_with_an_etag_and_304_when_it_still_holds(zgw):
    s = seed(zgw)
    first = requests.get(s["zaak"], headers=oz(zgw, **CRS), timeout=5)
    assert first.headers["API-version"] == "1.5.1" and first.headers["ETag"].startswith('"')
    again = requests.get(s["zaak"], headers=oz(zgw, **CRS, **{"If-None-Match": first.headers["ETag"]}), timeout=5)
    assert (again.status_code, again.content) == (304, b"")
    zgw.set_status(s["zaak"], s["ontvangen"])
    changed = requests.get(s["zaak"], headers=oz(zgw, **CRS, **{"If-None-Match": first.headers["ETag"]}), timeout=5)
    assert changed.status_code == 200 and changed.headers["ETag"] != first.headers["ETag"]
    kind = requests.get(s["zaaktype"], headers=oz(zgw), timeout=5)
    assert kind.headers["API-version"] == "1.3.1"
    refused(requests.get(s["zaaktype"], params={"datumGeldigheid": "2026-01-01"}, headers=oz(zgw), timeout=5), 501,
            "not_implemented_by_fake")


def test_open_zaak_lists_page_as_the_files_paginate(zgw):
    s = seed(zgw)
    zgw.add_zaak(s["zaaktype"], identificatie="ZAAK-2", omschrijving="Tweede", bsn=BSN)
    zgw._openzaak.page_size = 1
    first = requests.get(zgw.zaken_root + "rollen", params={"betrokkeneIdentificatie__natuurlijkPersoon__inpBsn": BSN},
                         headers=oz(zgw), timeout=5).json()
    assert (first["count"], first["previous"], len(first["results"])) == (2, None, 1)
    second = requests.get(first["next"], headers=oz(zgw), timeout=5).json()
    assert second["next"] is None and second["previous"].startswith(zgw.zaken_root + "rollen?")
    assert {first["results"][0]["zaak"], second["results"][0]["zaak"]} >= {s["zaak"]}
    refused(requests.get(first["next"].replace("page=2", "page=3"), headers=oz(zgw), timeout=5), 404, "not_found")


# --- Open Klant ---------------------------------------------------------------------------------------

def test_open_klant_finds_the_partij_by_bsn_with_its_digital_addresses(zgw):
    s = seed(zgw)
    found = requests.get(zgw.klant_root + "partijen", headers=klant(zgw), timeout=5, params={
        "partijIdentificator__codeSoortObjectId": "bsn", "partijIdentificator__objectId": BSN,
        "expand": "digitaleAdressen"}).json()
    assert problems(klant_schemas.PAGINATED_EXPAND_PARTIJ, found) == [] and found["count"] == 1
    [partij] = found["results"]
    assert partij["url"] == s["partij"] and partij["voorkeursDigitaalAdres"]["url"] == s["telefoon"]
    assert partij["partijIdentificatie"]["contactnaam"] == {"voorletters": "", "voornaam": "Jan",
                                                           "voorvoegselAchternaam": "de", "achternaam": "Vries"}
    assert partij["correspondentieadres"]["adresregel1"] == "Dorpsstraat 1"
    assert {(a["soortDigitaalAdres"], a["adres"], a["referentie"], a["isStandaardAdres"])
            for a in partij["_expand"]["digitaleAdressen"]} == {("email", "jan@example.nl", "ZAAK-1", False),
                                                                ("telefoonnummer", "0612345678", "", True)}
    one = requests.get(s["partij"], params={"expand": "digitaleAdressen,betrokkenen"}, headers=klant(zgw), timeout=5)
    assert problems(klant_schemas.EXPAND_PARTIJ, one.json()) == [] and one.json()["_expand"]["betrokkenen"] == []
    nobody = requests.get(zgw.klant_root + "partijen", headers=klant(zgw), timeout=5, params={
        "partijIdentificator__codeSoortObjectId": "bsn", "partijIdentificator__objectId": "999990019"}).json()
    assert nobody == {"count": 0, "next": None, "previous": None, "results": []}
    adressen = requests.get(zgw.klant_root + "digitaleadressen", headers=klant(zgw), timeout=5, params={
        "verstrektDoorPartij__uuid": s["partij"].rsplit("/", 1)[1], "soortDigitaalAdres": "email"}).json()
    assert problems(klant_schemas.PAGINATED_DIGITAAL_ADRES, adressen) == []
    assert [a["url"] for a in adressen["results"]] == [s["email"]]


def test_open_klant_refuses_a_missing_or_wrong_token_and_unknown_parameters(zgw):
    s = seed(zgw)
    refused(requests.get(s["partij"], timeout=5), 401, "not_authenticated")
    refused(requests.get(s["partij"], headers={"Authorization": "Token wrong"}, timeout=5), 401,
            "authentication_failed")
    refused(requests.get(s["partij"], headers=oz(zgw), timeout=5), 401, "authentication_failed")
    refused(requests.get(s["partij"], params={"expand": "adressen"}, headers=klant(zgw), timeout=5), 400,
            "invalid_choice")
    refused(requests.get(zgw.klant_root + "partijen", params={"bsn": BSN}, headers=klant(zgw), timeout=5), 400,
            "unknown-parameters")
    refused(requests.get(zgw.klant_root + "partijen", params={"soortPartij": "mens"}, headers=klant(zgw), timeout=5),
            400, "invalid_choice")
    refused(requests.delete(s["partij"], headers=klant(zgw), timeout=5), 501, "not_implemented_by_fake")
    refused(requests.get(zgw.klant_root + "partij", headers=klant(zgw), timeout=5), 404, "not_found")


def _maak(s: dict[str, str]) -> dict[str, Any]:
    return {"klantcontact": {"kanaal": "sms", "onderwerp": "Uw zaak ZAAK-1 is ontvangen", "inhoud": "Ontvangen",
                             "taal": "nld", "vertrouwelijk": False, "indicatieContactGelukt": True},
            "betrokkene": {"wasPartij": {"uuid": s["partij"].rsplit("/", 1)[1]}, "rol": "klant", "initiator": True},
            "onderwerpobject": {"onderwerpobjectidentificator": {
                "objectId": s["zaak"].rsplit("/", 1)[1], "codeObjecttype": "zgw-Zaak", "codeRegister": "openzaak",
                "codeSoortObjectId": "uuid"}}}


def test_open_klant_records_a_klantcontact_on_the_partij_and_the_case(zgw):
    s = seed(zgw)
    made = requests.post(zgw.klant_root + "maak-klantcontact", json=_maak(s), headers=klant(zgw), timeout=5)
    assert made.status_code == 201, made.text
    assert problems(klant_schemas.MAAK_KLANTCONTACT, made.json()) == []
    [recorded] = zgw.klantcontacten()
    assert recorded["url"] == made.json()["klantcontact"]["url"] and recorded["kanaal"] == "sms"
    assert recorded["betrokkenen"][0]["wasPartij"]["url"] == s["partij"]
    assert recorded["onderwerpobjecten"][0]["onderwerpobjectidentificator"]["objectId"] == s["zaak"].rsplit("/", 1)[1]
    read = requests.get(recorded["url"], headers=klant(zgw), timeout=5).json()
    assert problems(klant_schemas.KLANTCONTACT, read) == [] and len(read["hadBetrokkenen"]) == 1

    # The same, one resource at a time.
    contact = requests.post(zgw.klant_root + "klantcontacten", json=_maak(s)["klantcontact"], headers=klant(zgw),
                            timeout=5)
    assert contact.status_code == 201 and problems(klant_schemas.KLANTCONTACT, contact.json()) == []
    link = {"uuid": contact.json()["uuid"]}
    betrokkene = requests.post(zgw.klant_root + "betrokkenen", headers=klant(zgw), timeout=5,
                               json={**_maak(s)["betrokkene"], "hadKlantcontact": link})
    assert betrokkene.status_code == 201 and problems(klant_schemas.BETROKKENE, betrokkene.json()) == []
    onderwerp = requests.post(zgw.klant_root + "onderwerpobjecten", headers=klant(zgw), timeout=5,
                              json={**_maak(s)["onderwerpobject"], "klantcontact": link})
    assert onderwerp.status_code == 201 and problems(klant_schemas.ONDERWERPOBJECT, onderwerp.json()) == []
    assert len(zgw.klantcontacten()) == 2 and zgw.klantcontacten()[1]["onderwerpobjecten"]


def test_open_klant_refuses_a_bad_body(zgw):
    s = seed(zgw)
    url = zgw.klant_root + "maak-klantcontact"
    body = refused(requests.post(url, json={"klantcontact": {"kanaal": "sms"}}, headers=klant(zgw), timeout=5), 400,
                   "required")
    assert {p["name"] for p in body["invalidParams"]} == {"klantcontact.onderwerp", "klantcontact.taal",
                                                          "klantcontact.vertrouwelijk"}
    refused(requests.post(url, data="kanaal=sms", headers=klant(zgw), timeout=5), 415, "unsupported_media_type")
    refused(requests.post(url, data="{", headers={**klant(zgw), "Content-Type": "application/json"}, timeout=5), 400,
            "parse_error")
    wrong = _maak(s)
    wrong["betrokkene"]["rol"] = "burger"
    refused(requests.post(url, json=wrong, headers=klant(zgw), timeout=5), 400, "invalid_choice")
    stranger = _maak(s)
    stranger["betrokkene"]["wasPartij"]["uuid"] = "00000000-0000-4000-8000-000000000000"
    refused(requests.post(url, json=stranger, headers=klant(zgw), timeout=5), 400, "does_not_exist")
    refused(requests.post(url, data=b"x" * (65 * 1024), headers={**klant(zgw), "Content-Type": "application/json"},
                          timeout=5), 413, "request_too_large")
    assert zgw.klantcontacten() == []


# --- the world ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("api", ["zaken", "catalogi", "klant", "nrc"])
def test_an_api_taken_down_answers_503_until_brought_up(zgw, api):
    s = seed(zgw)
    nrc = {"Authorization": zgw_token(zgw.nrc_client_id, zgw.nrc_secret)}
    url, headers = {"zaken": (s["zaak"], oz(zgw, **CRS)), "catalogi": (s["zaaktype"], oz(zgw)),
                    "klant": (s["partij"], klant(zgw)), "nrc": (zgw.nrc_root + "kanaal", nrc)}[api]
    zgw.take_down(api)
    refused(requests.get(url, headers=headers, timeout=5), 503, "service_unavailable")
    others = [other for other in ("zaken", "catalogi") if other != api and api in ("zaken", "catalogi")]
    for other in others:  # Zaken and Catalogi share Open Zaak but go down apart
        assert requests.get(s["zaaktype"] if other == "catalogi" else s["zaak"], headers=oz(zgw, **CRS),
                            timeout=5).status_code == 200
    zgw.bring_up(api)
    assert requests.get(url, headers=headers, timeout=5).status_code == 200
    path = url.split(str(zgw._apis[api].base_url), 1)[1]
    assert [entry for entry in zgw.requests(api) if entry[1] == path] == [("GET", path, 503), ("GET", path, 200)]


def test_the_world_stops_leaving_no_thread_and_no_listening_port():
    before = set(threading.enumerate())
    with zgw_world() as world:
        s = seed(world)
        assert requests.get(s["zaak"], headers=oz(world, **CRS), timeout=5).status_code == 200
        ports = {int(root.split(":")[2].split("/")[0]) for root in (world.zaken_root, world.klant_root, world.nrc_root)}
    assert set(threading.enumerate()) - before == set()
    for port in ports:
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", port)) != 0
