"""Reading a case as a status message names it: the status, its status type, the case, its initiator
and the citizen's party, each from the API whose root it must lie under (pipeline/infrastructure/zgw.py
checks that before our credentials go out)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from models.case_event import CaseEventLink
from pipeline.domain import case_events as domain
from pipeline.infrastructure import zgw
from pipeline.infrastructure.zgw import Api, OutsideRoots, Refused

USER_REPRESENTATION_LENGTH = 100


@dataclass(frozen=True)
class Apis:
    zaken: Api
    catalogi: Api
    klant: Api


def apis_of(link: CaseEventLink, service_name: str) -> Apis:
    """The link's APIs with their credentials; Open Zaak's JWT names the service as the user."""
    user = service_name[:USER_REPRESENTATION_LENGTH]
    return Apis(zaken=zgw.jwt_api(zgw.ZAKEN, link.zaken_root, link.client_id, link.client_secret, user),
                catalogi=zgw.jwt_api(zgw.CATALOGI, link.catalogi_root, link.client_id, link.client_secret, user),
                klant=zgw.token_api(zgw.KLANT, link.klant_root, link.klant_token))


@dataclass(frozen=True)
class StatusFacts:
    """What the status message is about, before the citizen is looked up."""
    zaak: dict[str, Any]
    statustype: dict[str, Any]
    case_type: str  # the zaaktype's identificatie


def read_status(apis: Apis, message: Mapping[str, Any]) -> StatusFacts:
    """The status the message names, its type and its case. A status that is not of the message's case
    is refused as a forgery would be: neither URL is trusted to vouch for the other."""
    case_url = message.get("hoofdObject")
    if not zgw.under_root(case_url, apis.zaken.root):
        raise OutsideRoots("hoofdObject")
    status = zgw.get_object(apis.zaken, str(message.get("resourceUrl")), what="resourceUrl")
    if status.get("zaak") != case_url:
        raise OutsideRoots("status.zaak")
    statustype = zgw.get_object(apis.catalogi, str(status.get("statustype")), what="status.statustype")
    zaak = zgw.get_object(apis.zaken, str(case_url), what="hoofdObject", headers=zgw.CRS_HEADERS)
    return StatusFacts(zaak, statustype, _case_type(apis, statustype))


def _case_type(apis: Apis, statustype: Mapping[str, Any]) -> str:
    """The zaaktype's identificatie: the status type carries it (Catalogi API 1.3); an older one is
    asked its zaaktype."""
    known = statustype.get("zaaktypeIdentificatie")
    if isinstance(known, str) and known:
        return known[:domain.MAX_IDENTIFICATIE]
    zaaktype = zgw.get_object(apis.catalogi, str(statustype.get("zaaktype")), what="statustype.zaaktype")
    found = zaaktype.get("identificatie")
    return found[:domain.MAX_IDENTIFICATIE] if isinstance(found, str) else ""


def initiator_of(apis: Apis, zaak: Mapping[str, Any]) -> dict[str, Any] | None:
    """The case's initiator role (Zaken API /rollen, filtered on the case and the generic role)."""
    query = urlencode({"zaak": str(zaak.get("url")), "omschrijvingGeneriek": "initiator"})
    return domain.initiator(list(zgw.list_results(apis.zaken, apis.zaken.url("rollen") + "?" + query, what="rollen")))


def party_of(apis: Apis, role: Mapping[str, Any]) -> dict[str, Any] | None:
    """The initiator's party in Open Klant with its digital addresses: the role's betrokkene when it is
    a party of this Open Klant, else the party identified by the role's BSN. None when neither finds one."""
    betrokkene = role.get("betrokkene")
    if isinstance(betrokkene, str) and zgw.under_root(betrokkene, apis.klant.root):
        joiner = "&" if "?" in betrokkene else "?"
        try:
            return zgw.get_object(apis.klant, betrokkene + joiner + "expand=digitaleAdressen", what="betrokkene")
        except Refused as refused:
            if refused.status != 404:
                raise
    bsn = domain.bsn_of(role)
    if bsn is None:
        return None
    query = urlencode({"partijIdentificator__codeSoortObjectId": "bsn", "partijIdentificator__objectId": bsn,
                       "expand": "digitaleAdressen"})
    found = list(zgw.list_results(apis.klant, apis.klant.url("partijen") + "?" + query, what="partijen"))
    # As the OMC: the first party through which the citizen can be reached, else the first one.
    reachable = [party for party in found if domain.contact_of(party, "", None).reached_by]
    chosen = reachable or found
    return chosen[0] if chosen else None
