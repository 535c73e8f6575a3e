"""Schemas of the klantinteracties operations the Open Klant fake serves, transcribed (names, required
lists, types, formats, enums, lengths, patterns) from github:maykinmedia/open-klant, tag 2.18.0 (commit
3b11751b02a93df70bed997a23bb499c526853c0), src/openklant/components/klantinteracties/openapi.yaml
(API version 0.9.0), components/schemas: Base_PartijSerializer + persoon_PartijSerializer, ExpandPartij,
PaginatedExpandPartijList, PartijIdentificator(GroepType), DigitaalAdres, PaginatedDigitaalAdresList,
Klantcontact, Betrokkene, Onderwerpobject, MaakKlantcontact and the *ForeignKey objects.

Request schemas leave out what the file marks readOnly (the server ignores such fields, as DRF does);
a foreign key in a request is `{"uuid": ...}`.
"""
from __future__ import annotations

from typing import Any

from tests.zgw.fakes.common import BOOLEAN, DATE, DATE_TIME, INTEGER, UUID, array, nullable, obj, paginated, string, uri

SOORT_DIGITAAL_ADRES = ["email", "telefoonnummer", "overig"]
SOORT_PARTIJ = ["persoon", "organisatie", "contactpersoon"]
REFERENTIE = {"anyOf": [string(50, pattern=r"^[-a-zA-Z0-9_]+$"), string(enum=[""])]}
FOREIGN_KEY = obj(["url", "uuid"], uuid=UUID, url=uri())
FOREIGN_KEY_IN = obj(["uuid"], uuid=UUID)  # as a request sends one: url is readOnly
ADRES = obj(
    nummeraanduidingId={"anyOf": [string(16, pattern=r"^[0-9]{16}$"), string(enum=[""])]}, straatnaam=string(255),
    huisnummer=nullable({**INTEGER, "minimum": 1, "maximum": 99999}), huisnummertoevoeging=string(20),
    postcode={"anyOf": [string(7, pattern=r"^[1-9][0-9]{3} [A-Z]{2}$"), string(enum=[""])]}, stad=string(255),
    adresregel1=string(80), adresregel2=string(80), adresregel3=string(80),
    land={"anyOf": [string(2, min_length=2), string(enum=[""])]},
)
CONTACTNAAM = obj(voorletters=string(10), voornaam=string(200), voorvoegselAchternaam=string(10),
                  achternaam=string(200))

DIGITAAL_ADRES = obj(
    ["adres", "soortDigitaalAdres", "url", "uuid"],
    uuid=UUID, url=uri(), verstrektDoorBetrokkene=nullable(FOREIGN_KEY), verstrektDoorPartij=nullable(FOREIGN_KEY),
    adres=string(80), soortDigitaalAdres=string(enum=SOORT_DIGITAAL_ADRES), isStandaardAdres=BOOLEAN,
    omschrijving=string(40), referentie=REFERENTIE, verificatieDatum=nullable(DATE),
)

PARTIJ_IDENTIFICATOR = obj(
    ["partijIdentificator", "url"],
    uuid=UUID, url=uri(), identificeerdePartij=nullable(FOREIGN_KEY), anderePartijIdentificator=string(200),
    partijIdentificator=obj(
        ["codeObjecttype", "codeRegister", "codeSoortObjectId", "objectId"],
        codeObjecttype=string(enum=["natuurlijk_persoon", "niet_natuurlijk_persoon", "vestiging"]),
        codeSoortObjectId=string(enum=["bsn", "vestigingsnummer", "kvk_nummer", "rsin"]), objectId=string(200),
        codeRegister=string(enum=["brp", "hr"])),
    subIdentificatorVan=nullable(FOREIGN_KEY),
)

PARTIJ = obj(
    ["betrokkenen", "categorieRelaties", "indicatieActief", "soortPartij", "url", "uuid", "vertegenwoordigden"],
    uuid=UUID, url=uri(), nummer=nullable(string(10)), interneNotitie=string(1000), betrokkenen=array(FOREIGN_KEY),
    categorieRelaties=array(FOREIGN_KEY), digitaleAdressen=nullable(array(FOREIGN_KEY)),
    voorkeursDigitaalAdres=nullable(FOREIGN_KEY), vertegenwoordigden=array(FOREIGN_KEY),
    rekeningnummers=nullable(array(FOREIGN_KEY)), voorkeursRekeningnummer=nullable(FOREIGN_KEY),
    partijIdentificatoren=nullable(array(PARTIJ_IDENTIFICATOR)), soortPartij=string(enum=SOORT_PARTIJ),
    indicatieGeheimhouding=nullable(BOOLEAN), voorkeurstaal=string(3), indicatieActief=BOOLEAN,
    bezoekadres=nullable(ADRES), correspondentieadres=nullable(ADRES),
    # persoon_PartijSerializer: partijIdentificatie is a Persoon.
    partijIdentificatie=obj(["volledigeNaam"], contactnaam=nullable(CONTACTNAAM), volledigeNaam=string()),
)

BETROKKENE = obj(
    ["digitaleAdressen", "hadKlantcontact", "initiator", "rol", "url", "uuid", "volledigeNaam"],
    uuid=UUID, url=uri(), wasPartij=nullable(FOREIGN_KEY), hadKlantcontact=FOREIGN_KEY,
    digitaleAdressen=array(FOREIGN_KEY), bezoekadres=nullable(ADRES), correspondentieadres=nullable(ADRES),
    contactnaam=nullable(CONTACTNAAM), volledigeNaam=string(), rol=string(enum=["vertegenwoordiger", "klant"]),
    organisatienaam=string(200), initiator=BOOLEAN,
)


def _expand(partij: dict[str, Any]) -> dict[str, Any]:
    """ExpandPartij: a Partij with `_expand` holding what was asked for."""
    return {**partij, "properties": {**partij["properties"], "_expand": obj(
        digitaleAdressen=nullable(array(DIGITAAL_ADRES)), betrokkenen=array(BETROKKENE),
        categorieRelaties=array(obj()))}}


EXPAND_PARTIJ = _expand(PARTIJ)
PAGINATED_EXPAND_PARTIJ = paginated(EXPAND_PARTIJ, required=["count", "results"])
PAGINATED_DIGITAAL_ADRES = paginated(DIGITAAL_ADRES, required=["count", "results"])

ONDERWERPOBJECTIDENTIFICATOR = obj(objectId=string(200), codeObjecttype=string(200), codeRegister=string(200),
                                   codeSoortObjectId=string(200))

KLANTCONTACT = obj(
    ["gingOverOnderwerpobjecten", "hadBetrokkenActoren", "hadBetrokkenen", "kanaal", "leiddeTotInterneTaken",
     "omvatteBijlagen", "onderwerp", "taal", "url", "uuid", "vertrouwelijk"],
    uuid=UUID, url=uri(), gingOverOnderwerpobjecten=array(FOREIGN_KEY), hadBetrokkenActoren=array(obj()),
    omvatteBijlagen=array(FOREIGN_KEY), hadBetrokkenen=array(FOREIGN_KEY), leiddeTotInterneTaken=array(FOREIGN_KEY),
    nummer=nullable(string(10)), referentienummer=nullable(string(10)), kanaal=string(50), onderwerp=string(200),
    inhoud=string(1000), reactie=string(4000), indicatieContactGelukt=nullable(BOOLEAN),
    hoofdOnderwerpType={"anyOf": [uri(200), string(enum=[""])]}, verdereActieOndernomen=BOOLEAN, taal=string(3),
    vertrouwelijk=BOOLEAN, plaatsgevondenOp=DATE_TIME,
    metadata={"type": "object", "additionalProperties": string(255)},
)

ONDERWERPOBJECT = obj(
    ["url", "uuid"],
    uuid=UUID, url=uri(), klantcontact=nullable(FOREIGN_KEY), wasKlantcontact=nullable(FOREIGN_KEY),
    onderwerpobjectidentificator=nullable(ONDERWERPOBJECTIDENTIFICATOR),
)

MAAK_KLANTCONTACT = obj(["klantcontact"], klantcontact=KLANTCONTACT, betrokkene=nullable(BETROKKENE),
                        onderwerpobject=nullable(ONDERWERPOBJECT))


def request_schema(schema: dict[str, Any], read_only: set[str], **replace: dict[str, Any]) -> dict[str, Any]:
    """The request form of a response schema: readOnly properties dropped, foreign keys by uuid."""
    properties = {name: value for name, value in schema["properties"].items() if name not in read_only}
    properties.update(replace)
    return obj([name for name in schema["required"] if name in properties], **properties)


KLANTCONTACT_IN = request_schema(KLANTCONTACT, {"uuid", "url", "gingOverOnderwerpobjecten", "hadBetrokkenActoren",
                                                "omvatteBijlagen", "hadBetrokkenen", "leiddeTotInterneTaken"})
BETROKKENE_IN = request_schema(BETROKKENE, {"uuid", "url", "digitaleAdressen", "volledigeNaam"},
                               wasPartij=nullable(FOREIGN_KEY_IN), hadKlantcontact=FOREIGN_KEY_IN)
ONDERWERPOBJECT_IN = request_schema(ONDERWERPOBJECT, {"uuid", "url"}, klantcontact=nullable(FOREIGN_KEY_IN),
                                    wasKlantcontact=nullable(FOREIGN_KEY_IN))
# MaakKlantcontact's betrokkene and onderwerpobject are the *KlantcontactReadOnly forms: their
# klantcontact link is made by the server, not sent.
MAAK_KLANTCONTACT_IN = obj(
    ["klantcontact"], klantcontact=KLANTCONTACT_IN,
    betrokkene=request_schema(BETROKKENE, {"uuid", "url", "digitaleAdressen", "volledigeNaam", "hadKlantcontact"},
                              wasPartij=nullable(FOREIGN_KEY_IN)),
    onderwerpobject=request_schema(ONDERWERPOBJECT, {"uuid", "url", "klantcontact"},
                                   wasKlantcontact=nullable(FOREIGN_KEY_IN)),
)
