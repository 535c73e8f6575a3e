"""The vocabulary of case events (issue 52): which messages of Open Notificaties are ones to act on,
what identifies one, the scenarios, the outcomes kept per event, and the choices made from what the
ZGW APIs answered (the scenario from the status type; the channel and address from the citizen's
party in Open Klant, as Worth-NL's OMC chooses them; the personalisation the OMC's templates use).

Plain values in and out: the APIs' JSON (camelCase, as their OpenAPI files name it) is read here and
never trusted for its shape.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pipeline.domain.errors import Refusal

# Scenarios, in the order the console lists them.
RECEIVED, UPDATED, CLOSED = "received", "updated", "closed"
SCENARIOS = (RECEIVED, UPDATED, CLOSED)
# Channels in the order a citizen without a preference is reached; a letter only where an address is known.
EMAIL, SMS, LETTER = "email", "sms", "letter"
CHANNELS = (EMAIL, SMS, LETTER)

# What became of an event. PENDING and WAITING are still to be done; every other one is final.
PENDING = "pending"  # recorded, not yet processed
WAITING = "waiting"  # an API was down or too slow: tried again with back-off
SENT = "sent"
NOT_INFORMED = "not-informed"  # the status type says the initiator is not told (informeren false)
NOT_TAKING_PART = "case-type-not-taking-part"
NO_CONTACT_DETAILS = "no-contact-details"  # detail: no-initiator, no-party or no-address
NO_TEMPLATE = "no-template"  # no template for this scenario on any channel the citizen can be reached by
API_REFUSED = "api-refused"  # detail: api, status, code
OUTSIDE_ROOTS = "outside-roots"  # a URL of the message (or an answer) not under its API's root
SEND_REFUSED = "send-refused"  # the send's own rules refused it (trial mode, limits, personalisation)
GAVE_UP = "gave-up"  # an API stayed down past the horizon
OUTCOMES = (PENDING, WAITING, SENT, NOT_INFORMED, NOT_TAKING_PART, NO_CONTACT_DETAILS, NO_TEMPLATE, API_REFUSED,
            OUTSIDE_ROOTS, SEND_REFUSED, GAVE_UP)
OPEN = frozenset({PENDING, WAITING})
# A sent event's detail: the alternatives the send rules refused when it was sent, left out of its fallback
# ([{channel, refusals}]); and when its message failed, the fallback step refused then ({channel, refusals}).
FALLBACK_LEFT_OUT, FALLBACK_REFUSED = "fallback_left_out", "fallback_refused"
# A sent or send-refused event's detail: the channels before the one sent (or the last one refused) that the
# send rules refused for themselves, passed over for the next ([{channel, refusals}]).
PASSED_OVER = "passed_over"
# A suspended service (not active) sends nothing: its API keys are refused at the door, its case events here.
SERVICE_SUSPENDED = Refusal("case_events_service_suspended", "Service is suspended: it sends nothing")
# The refusals no channel escapes, by their codes: about the service, not the channel, so they end the event
# instead of passing its channel over (trial mode reaches the team and guest list alone, whatever the channel).
ENDS_EVENT = frozenset({"trial_mode_recipient", SERVICE_SUSPENDED.code})
# The codes of an answer that never came (pipeline/infrastructure/zgw.py): we refused the address the
# API's name resolves to (pipeline/infrastructure/outbound.py), or its certificate is not trusted.
ADDRESS_REFUSED, CERTIFICATE = "address-refused", "certificate"

# The klantcontact in Open Klant, once the message sent is final.
CONTACT_AWAITING = "awaiting"  # the message is not final yet
CONTACT_DUE = "due"  # final: to be recorded (again, after Open Klant was down)
CONTACT_RECORDED = "recorded"
CONTACT_REFUSED = "refused"
CONTACT_NO_PARTY = "no-party"  # the citizen was found without a party in Open Klant to link it to
CONTACT_GAVE_UP = "gave-up"  # Open Klant stayed unreachable past the horizon
CONTACT_STATES = (CONTACT_AWAITING, CONTACT_DUE, CONTACT_RECORDED, CONTACT_REFUSED, CONTACT_NO_PARTY,
                  CONTACT_GAVE_UP)
# An event's detail: what Open Klant last answered its klantcontact, while it waits and when it was refused
# or given up ({api, status, code}).
CONTACT_DETAIL = "klantcontact"

# Our subscription at Open Notificaties, as read back.
SUBSCRIPTION_HOLDS = "holds"
SUBSCRIPTION_MISSING = "missing"  # Open Notificaties does not know it (any more)
SUBSCRIPTION_DIFFERENT = "different"  # it exists, but no longer posts the zaken channel to our address
SUBSCRIPTION_REFUSED = "refused"  # Open Notificaties refused us (credentials, the test message)
SUBSCRIPTION_UNREACHABLE = "unreachable"
SUBSCRIPTION_STATES = (SUBSCRIPTION_HOLDS, SUBSCRIPTION_MISSING, SUBSCRIPTION_DIFFERENT, SUBSCRIPTION_REFUSED,
                       SUBSCRIPTION_UNREACHABLE)

ZAKEN_CHANNEL = "zaken"
TEST_CHANNEL = "test"
MAX_CASE_TYPES = 200
MAX_IDENTIFICATIE = 50  # a zaaktype's identificatie (Catalogi API)

# The OMC's personalisation keys; a template writes them as ((zaak.identificatie)).
PERSONALISATION_KEYS = ("zaak.identificatie", "zaak.omschrijving", "status.omschrijving", "klant.voornaam",
                        "klant.voorvoegselAchternaam", "klant.achternaam")


def ends_event(refusals: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a send's refusals (as kept) are ones no channel escapes."""
    return any(refusal.get("code") in ENDS_EVENT for refusal in refusals)


def is_case_status(message: Mapping[str, Any]) -> bool:
    """A status set on a case: the only message acted on (every other one of the zaken channel is
    answered and forgotten)."""
    return (message.get("kanaal") == ZAKEN_CHANNEL and message.get("resource") == "status"
            and message.get("actie") == "create")


def message_key(message: Mapping[str, Any]) -> str:
    """What identifies a message: Open Notificaties posts the same one again until it is answered 2xx,
    and a status is created once, so its channel, resource, action and URL name it."""
    parts = [str(message.get(name, "")) for name in ("kanaal", "resource", "actie", "resourceUrl")]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _text(value: object, limit: int = 1000) -> str:
    return value.strip()[:limit] if isinstance(value, str) else ""


def scenario_of(statustype: Mapping[str, Any]) -> str:
    """As the OMC: the first status (volgnummer 1) is the case received, an end status closes it,
    any other one updates it."""
    if statustype.get("volgnummer") == 1:
        return RECEIVED
    return CLOSED if statustype.get("isEindstatus") is True else UPDATED


def informs(statustype: Mapping[str, Any]) -> bool:
    """Whether the initiator is to be told of this status; the Catalogi API's default is false."""
    return statustype.get("informeren") is True


def initiator(roles: list[dict[str, Any]]) -> dict[str, Any] | None:
    return next((role for role in roles if role.get("omschrijvingGeneriek") == "initiator"), None)


def bsn_of(role: Mapping[str, Any]) -> str | None:
    """The initiator's BSN (betrokkeneIdentificatie.inpBsn), when it is nine digits."""
    identification = role.get("betrokkeneIdentificatie")
    bsn = identification.get("inpBsn") if isinstance(identification, dict) else None
    return bsn if isinstance(bsn, str) and len(bsn) == 9 and bsn.isdigit() else None


@dataclass(frozen=True)
class Contact:
    """How the citizen is reached: the channels in the order they are tried, each with its address
    (an email address, a phone number, or the letter's address lines)."""
    reached_by: list[tuple[str, Any]] = field(default_factory=list)


def _foreign_key_uuid(value: object) -> str | None:
    found = value.get("uuid") if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


def _digital_addresses(party: Mapping[str, Any]) -> list[dict[str, Any]]:
    expanded = party.get("_expand")
    found = expanded.get("digitaleAdressen") if isinstance(expanded, dict) else None
    return [a for a in found or [] if isinstance(a, dict) and a.get("soortDigitaalAdres") in ("email", "telefoonnummer")
            and _text(a.get("adres"), 80)]


def _channel_of(address: Mapping[str, Any]) -> str:
    return EMAIL if address.get("soortDigitaalAdres") == "email" else SMS


def _first(addresses: list[dict[str, Any]], kind: str) -> dict[str, Any] | None:
    return next((a for a in addresses if a.get("soortDigitaalAdres") == kind), None)


def contact_of(party: Mapping[str, Any], case_identificatie: str, address_lines: list[str] | None) -> Contact:
    """The OMC's choice: an address whose referentie is the case's identificatie, else the party's
    voorkeursDigitaalAdres, else an email address, else a phone number; then a letter where an address
    is known. The channels after the first are the fallback chain's, as the v2 API allows them (a
    text falls back to an email, then a letter; an email to a letter)."""
    addresses = _digital_addresses(party)
    preferred_uuid = _foreign_key_uuid(party.get("voorkeursDigitaalAdres"))
    chosen = (next((a for a in addresses if case_identificatie and a.get("referentie") == case_identificatie), None)
              or next((a for a in addresses if preferred_uuid and a.get("uuid") == preferred_uuid), None)
              or _first(addresses, "email") or _first(addresses, "telefoonnummer"))
    reached: list[tuple[str, Any]] = []
    if chosen is not None:
        reached.append((_channel_of(chosen), _text(chosen["adres"], 80)))
        email = _first(addresses, "email")
        if reached[0][0] == SMS and email is not None:
            reached.append((EMAIL, _text(email["adres"], 80)))
    if address_lines:
        reached.append((LETTER, address_lines))
    return Contact(reached)


def _name_parts(party: Mapping[str, Any]) -> dict[str, str]:
    identification = party.get("partijIdentificatie")
    name = identification.get("contactnaam") if isinstance(identification, dict) else None
    name = name if isinstance(name, dict) else {}
    return {"voornaam": _text(name.get("voornaam"), 200),
            "voorvoegselAchternaam": _text(name.get("voorvoegselAchternaam"), 10),
            "achternaam": _text(name.get("achternaam"), 200)}


def letter_lines(party: Mapping[str, Any]) -> list[str] | None:
    """The letter's address lines from the party's correspondentieadres: the addressee, then its
    adresregels, or street and number, postcode and town (and a country other than the Netherlands).
    None when too little is known to post a letter."""
    address = party.get("correspondentieadres")
    if not isinstance(address, dict):
        return None
    name = _name_parts(party)
    addressee = " ".join(part for part in (name["voornaam"], name["voorvoegselAchternaam"], name["achternaam"])
                         if part)
    given = [_text(address.get(f"adresregel{n}"), 80) for n in (1, 2, 3)]
    number = address.get("huisnummer")
    street = " ".join(part for part in (_text(address.get("straatnaam"), 255),
                                        str(number) if isinstance(number, int) else "",
                                        _text(address.get("huisnummertoevoeging"), 20)) if part)
    town = "  ".join(part for part in (_text(address.get("postcode"), 7), _text(address.get("stad"), 255)) if part)
    lines = [line for line in given if line] or [line for line in (street, town) if line]
    country = _text(address.get("land"), 2).upper()
    if country and country != "NL" and not any(given):
        lines.append(country)
    return [addressee, *lines] if addressee and len(lines) >= 2 else None


def personalisation(zaak: Mapping[str, Any], status_omschrijving: str,
                    party: Mapping[str, Any] | None) -> dict[str, str]:
    """The OMC's keys; a missing name is an empty value, so a template that names it still sends."""
    name = _name_parts(party or {})
    values = {"zaak.identificatie": _text(zaak.get("identificatie"), 40),
              "zaak.omschrijving": _text(zaak.get("omschrijving"), 80),
              "status.omschrijving": status_omschrijving,
              "klant.voornaam": name["voornaam"],
              "klant.voorvoegselAchternaam": name["voorvoegselAchternaam"],
              "klant.achternaam": name["achternaam"]}
    return values


def address_values(lines: list[str]) -> dict[str, str]:
    """A letter's address lines as its personalisation names them."""
    return {f"address_line_{number}": line for number, line in enumerate(lines, start=1)}
