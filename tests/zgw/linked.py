"""A service linked to the ZGW fakes (tests/zgw/fakes), as a municipality links one: roots and credentials,
a case type taking part, a template per scenario and channel, and its subscription at Open Notificaties.
Only through core/case_events.py (the rules the admin API and the console call) and the fakes' interface
(/work/wt/ZGW-FAKES-INTERFACE.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core import case_events
from models.case_event import CaseEvent, CaseEventLink
from models.service import Service
from tests.factories import create_sample_template

CASE_TYPE = "AANVRAAG-PARKEERVERGUNNING"
SMS_BODY = "Beste ((klant.voornaam)), uw zaak ((zaak.identificatie)) (((zaak.omschrijving))): ((status.omschrijving))."
EMAIL_BODY = "Beste ((klant.voornaam)) ((klant.voorvoegselAchternaam)) ((klant.achternaam)),\n\n" \
             "Uw zaak ((zaak.identificatie)) is nu: ((status.omschrijving))."
LETTER_BODY = "Uw zaak ((zaak.identificatie)) is nu: ((status.omschrijving))."
BSN = "999993653"  # passes the 11-proef, as Open Zaak asks of an inpBsn
OTHER_BSN = "999990019"


@dataclass
class Case:
    """A case type with three status types (received, in progress, closed) in the fakes."""
    zaaktype: str
    received: str
    in_progress: str
    closed: str


def seed_case_type(zgw: Any, identificatie: str = CASE_TYPE, *, informeren: bool = True) -> Case:
    zaaktype = zgw.add_zaaktype("Aanvraag parkeervergunning", identificatie=identificatie)
    return Case(zaaktype,
                zgw.add_statustype(zaaktype, "Ontvangen", 1, informeren=informeren),
                zgw.add_statustype(zaaktype, "In behandeling", 2, informeren=informeren),
                zgw.add_statustype(zaaktype, "Afgehandeld", 3, informeren=informeren))


def citizen(zgw: Any, *, bsn: str = BSN, phone: str | None = "0612345678", email: str | None = None,
            address: dict[str, Any] | None = None, preferred: str | None = None) -> str:
    """A party in Open Klant: Anna van Dijk, with the addresses given (`preferred`: "sms" or "email")."""
    party = zgw.add_partij(voornaam="Anna", voorvoegsel="van", achternaam="Dijk", bsn=bsn,
                           correspondentieadres=address)
    if phone:
        zgw.add_digitaal_adres(party, soort="telefoonnummer", adres=phone, voorkeur=preferred == "sms")
    if email:
        zgw.add_digitaal_adres(party, soort="email", adres=email, voorkeur=preferred == "email")
    return party


def templates_of(service: Service, channels: tuple[str, ...] = ("sms", "email", "letter")) -> dict[str, dict[str, str]]:
    made = {"sms": create_sample_template(service=service, template_type="sms", name="Zaak sms", body=SMS_BODY),
            "email": create_sample_template(service=service, template_type="email", name="Zaak e-mail", body=EMAIL_BODY,
                                            subject="Uw zaak ((zaak.identificatie))"),
            "letter": create_sample_template(service=service, template_type="letter", name="Zaak brief",
                                             body=LETTER_BODY, subject="Uw zaak")}
    return {scenario: {channel: str(made[channel].id) for channel in channels}
            for scenario in ("received", "updated", "closed")}


def link(zgw: Any, service: Service, *, case_types: tuple[str, ...] = (CASE_TYPE,),
         channels: tuple[str, ...] = ("sms", "email", "letter"), subscribe: bool = True) -> CaseEventLink:
    """The service linked to the fakes, subscribed at their Open Notificaties (the live server answers
    its test messages)."""
    case_events.set_link(str(service.id), {
        "zaken_root": zgw.zaken_root, "catalogi_root": zgw.catalogi_root, "klant_root": zgw.klant_root,
        "client_id": zgw.client_id, "client_secret": zgw.secret, "klant_token": zgw.klant_token,
        "nrc_root": zgw.nrc_root, "nrc_client_id": zgw.nrc_client_id, "nrc_secret": zgw.nrc_secret,
        "case_types": list(case_types), "templates": templates_of(service, channels)})
    if subscribe:
        linked = case_events.register(str(service.id))
        assert linked.subscription_state == "holds", linked.subscription_detail
    return CaseEventLink.get(CaseEventLink.service == service.id)


def events() -> list[CaseEvent]:
    return list(CaseEvent.select().order_by(CaseEvent.received_at))


def only_event() -> CaseEvent:
    found = events()
    assert len(found) == 1, [(e.state, e.detail) for e in found]
    return found[0]
