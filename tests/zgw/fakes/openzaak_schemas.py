"""Response schemas of the Zaken and Catalogi operations the Open Zaak fake serves, transcribed (names,
required lists, types, formats, enums, lengths) from:

- Zaken API 1.5.1: github:VNG-Realisatie/zaken-api, tag 1.5.1 (commit 920ecf3b972dc7270a124ef55f60ba0ece69d588),
  src/openapi.yaml, components/schemas: Zaak, Status, Rol (+ natuurlijk_persoon_Rol, RolNatuurlijkPersoon),
  PaginatedStatusList, PaginatedRolList.
- Catalogi API 1.3.1: github:VNG-Realisatie/catalogi-api, tag 1.3.1 (commit a75aeb570cb7250d68ad1a34d66956518a9e1e58),
  src/openapi.yaml, components/schemas: ZaakType, StatusType, RolType, PaginatedStatusTypeList.

Each schema lists every property the file marks required plus the ones the fake fills; OpenAPI's
`nullable` is written as a JSON Schema type union.
"""
from __future__ import annotations

from tests.zgw.fakes.common import (
    BOOLEAN,
    DATE,
    DATE_TIME,
    INTEGER,
    UUID,
    array,
    nullable,
    obj,
    or_blank,
    paginated,
    string,
    uri,
)

VERTROUWELIJKHEID = ["openbaar", "beperkt_openbaar", "intern", "zaakvertrouwelijk", "vertrouwelijk", "confidentieel",
                     "geheim", "zeer_geheim"]
BETROKKENE_TYPES = ["natuurlijk_persoon", "niet_natuurlijk_persoon", "vestiging", "organisatorische_eenheid",
                    "medewerker"]
OMSCHRIJVING_GENERIEK = ["adviseur", "behandelaar", "belanghebbende", "beslisser", "initiator", "klantcontacter",
                         "zaakcoordinator", "mede_initiator"]
ARCHIEFSTATUS = ["nog_te_archiveren", "gearchiveerd", "gearchiveerd_procestermijn_onbekend", "overgedragen"]
BETALINGSINDICATIE = ["nvt", "nog_niet", "gedeeltelijk", "geheel", ""]
URLS = array(uri())

ZAAK = obj(
    ["betalingsindicatieWeergave", "bronorganisatie", "deelzaken", "eigenschappen", "einddatum", "resultaat",
     "rollen", "startdatum", "status", "url", "uuid", "verantwoordelijkeOrganisatie", "zaakinformatieobjecten",
     "zaakobjecten", "zaaktype"],
    url=uri(), uuid=UUID, identificatie=string(40), bronorganisatie=string(9), omschrijving=string(80),
    toelichting=string(1000), zaaktype=uri(), registratiedatum=DATE, verantwoordelijkeOrganisatie=string(9),
    startdatum=DATE, einddatum=nullable(DATE), einddatumGepland=nullable(DATE),
    uiterlijkeEinddatumAfdoening=nullable(DATE), publicatiedatum=nullable(DATE), communicatiekanaal=or_blank(uri()),
    productenOfDiensten=URLS, vertrouwelijkheidaanduiding=string(enum=VERTROUWELIJKHEID),
    betalingsindicatie=string(enum=BETALINGSINDICATIE), betalingsindicatieWeergave=string(),
    laatsteBetaaldatum=nullable(DATE_TIME), zaakgeometrie={"type": ["object", "null"]},
    verlenging={"type": ["object", "null"]}, opschorting={"type": ["object", "null"]},
    selectielijstklasse=or_blank(uri()), hoofdzaak=nullable(uri()), deelzaken=URLS, relevanteAndereZaken=array(obj()),
    eigenschappen=URLS, rollen=URLS, status=nullable(uri(None)), zaakinformatieobjecten=URLS, zaakobjecten=URLS,
    kenmerken=array(obj(["kenmerk", "bron"], kenmerk=string(40), bron=string(40))),
    archiefnominatie=nullable(string(enum=["blijvend_bewaren", "vernietigen", ""])),
    archiefstatus=string(enum=ARCHIEFSTATUS), archiefactiedatum=nullable(DATE), resultaat=nullable(uri(None)),
    opdrachtgevendeOrganisatie=string(9), processobjectaard=nullable(string(200)),
    startdatumBewaartermijn=nullable(DATE), processobject={"type": ["object", "null"]},
)

STATUS = obj(
    ["datumStatusGezet", "indicatieLaatstGezetteStatus", "statustype", "url", "uuid", "zaak", "zaakinformatieobjecten"],
    url=uri(), uuid=UUID, zaak=uri(), statustype=uri(), datumStatusGezet=DATE_TIME, statustoelichting=string(1000),
    indicatieLaatstGezetteStatus=BOOLEAN, gezetdoor=or_blank(uri(200)), zaakinformatieobjecten=URLS,
)

ROL_NATUURLIJK_PERSOON = obj(
    inpBsn=string(9), anpIdentificatie=string(17), inpA_nummer=or_blank(string(10, pattern=r"^[1-9][0-9]{9}$")),
    geslachtsnaam=string(200), voorvoegselGeslachtsnaam=string(80), voorletters=string(20), voornamen=string(200),
    geslachtsaanduiding=string(enum=["m", "v", "o", ""]), geboortedatum=string(18),
    verblijfsadres={"type": ["object", "null"]}, subVerblijfBuitenland={"type": ["object", "null"]},
)

ROL = obj(
    ["betrokkeneType", "omschrijving", "omschrijvingGeneriek", "registratiedatum", "roltoelichting", "roltype",
     "statussen", "url", "uuid", "zaak"],
    url=uri(), uuid=UUID, zaak=uri(), betrokkene=string(1000), betrokkeneType=string(enum=BETROKKENE_TYPES),
    afwijkendeNaamBetrokkene=string(625), roltype=uri(), omschrijving=string(), omschrijvingGeneriek=string(),
    roltoelichting=string(1000), registratiedatum=DATE_TIME, indicatieMachtiging=string(
        enum=["gemachtigde", "machtiginggever", ""]), contactpersoonRol={"type": ["object", "null"]},
    statussen=URLS, betrokkeneIdentificatie=nullable(ROL_NATUURLIJK_PERSOON),
)
# The discriminator: a natuurlijk_persoon role carries a RolNatuurlijkPersoon as betrokkeneIdentificatie,
# null when the role was recorded without one (as Open Zaak renders it; the file does not say nullable).
# `betrokkene` is a URL when set, "" when not (DRF renders an empty URLField so).
ROL["properties"]["betrokkene"] = or_blank(uri())

PAGINATED_STATUS = paginated(STATUS)
PAGINATED_ROL = paginated(ROL)

ZAAKTYPE = obj(
    ["aanleiding", "beginGeldigheid", "besluittypen", "catalogus", "concept", "doel", "doorlooptijd", "eigenschappen",
     "gerelateerdeZaaktypen", "handelingBehandelaar", "handelingInitiator", "identificatie", "indicatieInternOfExtern",
     "informatieobjecttypen", "omschrijving", "onderwerp", "opschortingEnAanhoudingMogelijk", "productenOfDiensten",
     "publicatieIndicatie", "referentieproces", "resultaattypen", "roltypen", "statustypen", "url", "verantwoordelijke",
     "verlengingMogelijk", "versiedatum", "vertrouwelijkheidaanduiding", "zaakobjecttypen"],
    url=uri(), identificatie=string(50), omschrijving=string(80), omschrijvingGeneriek=string(80),
    vertrouwelijkheidaanduiding=string(enum=VERTROUWELIJKHEID), doel=string(), aanleiding=string(),
    toelichting=string(), indicatieInternOfExtern=string(enum=["intern", "extern"]), handelingInitiator=string(20),
    onderwerp=string(80), handelingBehandelaar=string(20), doorlooptijd=string(fmt="duration"),
    servicenorm=nullable(string(fmt="duration")), opschortingEnAanhoudingMogelijk=BOOLEAN, verlengingMogelijk=BOOLEAN,
    verlengingstermijn=nullable(string(fmt="duration")), trefwoorden=array(string(30)), publicatieIndicatie=BOOLEAN,
    publicatietekst=string(), verantwoordingsrelatie=array(string(40)), productenOfDiensten=URLS,
    selectielijstProcestype=or_blank(uri(200)),
    referentieproces=obj(["naam"], naam=string(80), link=or_blank(uri(200))), broncatalogus=obj(), bronzaaktype=obj(),
    verantwoordelijke=string(50), zaakobjecttypen=URLS, catalogus=uri(None), statustypen=URLS, resultaattypen=URLS,
    eigenschappen=URLS, informatieobjecttypen=string(), roltypen=URLS, besluittypen=URLS, deelzaaktypen=URLS,
    gerelateerdeZaaktypen=array(obj()), beginGeldigheid=DATE, eindeGeldigheid=nullable(DATE),
    beginObject=nullable(DATE), eindeObject=nullable(DATE), versiedatum=DATE, concept=BOOLEAN,
)
# `informatieobjecttypen` is a readOnly string in the 1.3.1 file (a list elsewhere): transcribed as written.

STATUSTYPE = obj(
    ["catalogus", "isEindstatus", "omschrijving", "url", "volgnummer", "zaakobjecttype", "zaaktype",
     "zaaktypeIdentificatie"],
    url=uri(), omschrijving=string(80), omschrijvingGeneriek=string(80), statustekst=string(1000), zaaktype=uri(None),
    catalogus=uri(None), zaaktypeIdentificatie=string(), volgnummer={**INTEGER, "minimum": 1, "maximum": 9999},
    isEindstatus=BOOLEAN, informeren=BOOLEAN, doorlooptijd=nullable(string(fmt="duration")),
    toelichting=nullable(string(1000)), checklistitemStatustype=array(obj()), eigenschappen=URLS,
    beginGeldigheid=nullable(DATE), eindeGeldigheid=nullable(DATE), beginObject=nullable(DATE),
    eindeObject=nullable(DATE), zaakobjecttype=uri(None),
)

PAGINATED_STATUSTYPE = paginated(STATUSTYPE)

ROLTYPE = obj(
    ["omschrijving", "omschrijvingGeneriek", "url", "zaaktype", "zaaktypeIdentificatie"],
    url=uri(), zaaktype=uri(None), zaaktypeIdentificatie=string(), omschrijving=string(100),
    omschrijvingGeneriek=string(enum=OMSCHRIJVING_GENERIEK), catalogus=nullable(uri(None)),
    beginGeldigheid=nullable(DATE), eindeGeldigheid=nullable(DATE), beginObject=nullable(DATE),
    eindeObject=nullable(DATE),
)
