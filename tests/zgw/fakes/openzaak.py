"""Open Zaak's Zaken and Catalogi APIs as one fake server (Open Zaak serves both), written from:

- Zaken API 1.5.1: github:VNG-Realisatie/zaken-api, tag 1.5.1 (commit 920ecf3b972dc7270a124ef55f60ba0ece69d588),
  src/openapi.yaml; its kanaal "zaken" and kenmerken from src/notificaties.md at the same tag.
- Catalogi API 1.3.1: github:VNG-Realisatie/catalogi-api, tag 1.3.1 (commit a75aeb570cb7250d68ad1a34d66956518a9e1e58),
  src/openapi.yaml.
- Authentication: github:open-zaak/open-zaak docs/client-development/authentication.rst (tests/zgw/fakes/common.py).
- The Crs answers as Open Zaak gives them (open-zaak commit 90dd5eb0b47853af0e445187cc61ddd8ec5f64ea,
  src/openzaak/components/zaken/tests/test_zaken.py: no Accept-Crs 412, another CRS 406, Content-Crs
  echoed); Content-Crs is demanded too because the 1.5.1 file marks it required on zaak_retrieve.

Served (read only; everything else the files have answers 501, anything they do not have 404/405):
  Zaken     GET zaken/{uuid} (zaak_retrieve; `Accept-Crs` and `Content-Crs` required, as the file marks
            both on it: missing 412, not EPSG:4326 406; `expand` 501), GET statussen/{uuid}, GET statussen
            (zaak, statustype, indicatieLaatstGezetteStatus, page), GET rollen/{uuid}, GET rollen (zaak,
            betrokkene, betrokkeneType, betrokkeneIdentificatie__natuurlijkPersoon__inpBsn, roltype,
            omschrijving, omschrijvingGeneriek, page).
  Catalogi  GET zaaktypen/{uuid}, GET statustypen/{uuid}, GET statustypen (zaaktype, zaaktypeIdentificatie,
            status, page), GET roltypen/{uuid}.
Seeding is through the world (tests/zgw/fakes/world.py), which owns the store below.
"""
from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable
from typing import Any

from tests.zgw.fakes import openzaak_schemas as schemas
from tests.zgw.fakes.common import Problem, check_zgw_jwt, iso_datetime, now_utc, problems, validatie_fout
from tests.zgw.fakes.server import Answer, FakeServer, Request, Route, Tls, build_routes

ZAKEN_PATHS = """
/klantcontacten GET:klantcontact_list POST:klantcontact_create
/klantcontacten/{uuid} GET:klantcontact_retrieve
/resultaten GET:resultaat_list POST:resultaat_create
/resultaten/{uuid} GET:resultaat_retrieve PUT:resultaat_update PATCH:resultaat_partial_update DELETE:resultaat_destroy HEAD:resultaat_headers
/rollen GET:rol_list POST:rol_create
/rollen/{uuid} GET:rol_retrieve DELETE:rol_destroy HEAD:rol_headers
/statussen GET:status_list POST:status_create
/statussen/{uuid} GET:status_retrieve HEAD:status_headers
/zaakcontactmomenten GET:zaakcontactmoment_list POST:zaakcontactmoment_create
/zaakcontactmomenten/{uuid} GET:zaakcontactmoment_retrieve DELETE:zaakcontactmoment_destroy
/zaakinformatieobjecten GET:zaakinformatieobject_list POST:zaakinformatieobject_create
/zaakinformatieobjecten/{uuid} GET:zaakinformatieobject_retrieve PUT:zaakinformatieobject_update PATCH:zaakinformatieobject_partial_update DELETE:zaakinformatieobject_destroy HEAD:zaakinformatieobject_headers
/zaakobjecten GET:zaakobject_list POST:zaakobject_create
/zaakobjecten/{uuid} GET:zaakobject_retrieve PUT:zaakobject_update PATCH:zaakobject_partial_update DELETE:zaakobject_destroy HEAD:zaakobject_headers
/zaakverzoeken GET:zaakverzoek_list POST:zaakverzoek_create
/zaakverzoeken/{uuid} GET:zaakverzoek_retrieve DELETE:zaakverzoek_destroy
/zaken GET:zaak_list POST:zaak_create
/zaken/_zoek POST:zaak__zoek
/zaken/{uuid} GET:zaak_retrieve PUT:zaak_update PATCH:zaak_partial_update DELETE:zaak_destroy HEAD:zaak_headers
/zaken/{zaak_uuid}/audittrail GET:audittrail_list
/zaken/{zaak_uuid}/audittrail/{uuid} GET:audittrail_retrieve
/zaken/{zaak_uuid}/besluiten GET:zaakbesluit_list POST:zaakbesluit_create
/zaken/{zaak_uuid}/besluiten/{uuid} GET:zaakbesluit_retrieve DELETE:zaakbesluit_destroy
/zaken/{zaak_uuid}/zaakeigenschappen GET:zaakeigenschap_list POST:zaakeigenschap_create
/zaken/{zaak_uuid}/zaakeigenschappen/{uuid} GET:zaakeigenschap_retrieve PUT:zaakeigenschap_update PATCH:zaakeigenschap_partial_update DELETE:zaakeigenschap_destroy HEAD:zaakeigenschap_headers
"""  # noqa: E501

CATALOGI_PATHS = """
/besluittypen GET:besluittype_list POST:besluittype_create
/besluittypen/{uuid} GET:besluittype_retrieve PUT:besluittype_update PATCH:besluittype_partial_update DELETE:besluittype_destroy HEAD:besluittype_headers
/besluittypen/{uuid}/publish POST:besluittype_publish
/catalogussen GET:catalogus_list POST:catalogus_create
/catalogussen/{uuid} GET:catalogus_retrieve HEAD:catalogus_headers
/eigenschappen GET:eigenschap_list POST:eigenschap_create
/eigenschappen/{uuid} GET:eigenschap_retrieve PUT:eigenschap_update PATCH:eigenschap_partial_update DELETE:eigenschap_destroy HEAD:eigenschap_headers
/informatieobjecttypen GET:informatieobjecttype_list POST:informatieobjecttype_create
/informatieobjecttypen/{uuid} GET:informatieobjecttype_retrieve PUT:informatieobjecttype_update PATCH:informatieobjecttype_partial_update DELETE:informatieobjecttype_destroy HEAD:informatieobjecttype_headers
/informatieobjecttypen/{uuid}/publish POST:informatieobjecttype_publish
/resultaattypen GET:resultaattype_list POST:resultaattype_create
/resultaattypen/{uuid} GET:resultaattype_retrieve PUT:resultaattype_update PATCH:resultaattype_partial_update DELETE:resultaattype_destroy HEAD:resultaattype_headers
/roltypen GET:roltype_list POST:roltype_create
/roltypen/{uuid} GET:roltype_retrieve PUT:roltype_update PATCH:roltype_partial_update DELETE:roltype_destroy HEAD:roltype_headers
/statustypen GET:statustype_list POST:statustype_create
/statustypen/{uuid} GET:statustype_retrieve PUT:statustype_update PATCH:statustype_partial_update DELETE:statustype_destroy HEAD:statustype_headers
/zaakobjecttypen GET:zaakobjecttype_list POST:zaakobjecttype_create
/zaakobjecttypen/{uuid} GET:zaakobjecttype_retrieve PUT:zaakobjecttype_update PATCH:zaakobjecttype_partial_update DELETE:zaakobjecttype_destroy HEAD:zaakobjecttype_headers
/zaaktype-informatieobjecttypen GET:zaakinformatieobjecttype_list POST:zaakinformatieobjecttype_create
/zaaktype-informatieobjecttypen/{uuid} GET:zaakinformatieobjecttype_retrieve PUT:zaakinformatieobjecttype_update PATCH:zaakinformatieobjecttype_partial_update DELETE:zaakinformatieobjecttype_destroy HEAD:zaakinformatieobjecttype_headers
/zaaktypen GET:zaaktype_list POST:zaaktype_create
/zaaktypen/{uuid} GET:zaaktype_retrieve PUT:zaaktype_update PATCH:zaaktype_partial_update DELETE:zaaktype_destroy HEAD:zaaktype_headers
/zaaktypen/{uuid}/publish POST:zaaktype_publish
"""  # noqa: E501

ZAKEN_PREFIX = "/zaken/api/v1"
CATALOGI_PREFIX = "/catalogi/api/v1"
CRS = "EPSG:4326"
URI_VALUE = {"type": "string", "format": "uri"}
ROLLEN_FILTERS = {"zaak", "betrokkene", "betrokkeneType", "roltype", "omschrijving", "omschrijvingGeneriek", "page",
                  "betrokkeneIdentificatie__natuurlijkPersoon__inpBsn"}
ROLLEN_PARAMETERS = ROLLEN_FILTERS | {
    "betrokkeneIdentificatie__natuurlijkPersoon__anpIdentificatie",
    "betrokkeneIdentificatie__natuurlijkPersoon__inpA_nummer",
    "betrokkeneIdentificatie__nietNatuurlijkPersoon__innNnpId",
    "betrokkeneIdentificatie__nietNatuurlijkPersoon__annIdentificatie",
    "betrokkeneIdentificatie__vestiging__vestigingsNummer",
    "betrokkeneIdentificatie__organisatorischeEenheid__identificatie",
    "betrokkeneIdentificatie__medewerker__identificatie"}


class OpenZaak(FakeServer):
    name = "openzaak"

    def __init__(self, clients: dict[str, str], tls: Tls | None = None) -> None:
        super().__init__(tls)
        self.clients = clients  # client id -> secret
        self.page_size = 100
        self.zaken_root = f"{self.base_url}{ZAKEN_PREFIX}/"
        self.catalogi_root = f"{self.base_url}{CATALOGI_PREFIX}/"
        self.catalogus = f"{self.catalogi_root}catalogussen/{uuid.uuid4()}"
        # Stores by URL, as the APIs link their resources.
        self.zaaktypen: dict[str, dict[str, Any]] = {}
        self.statustypen: dict[str, dict[str, Any]] = {}
        self.roltypen: dict[str, dict[str, Any]] = {}
        self.zaken: dict[str, dict[str, Any]] = {}
        self.statussen: dict[str, dict[str, Any]] = {}
        self.rollen: dict[str, dict[str, Any]] = {}

    def routes(self) -> list[Route]:
        return (build_routes(ZAKEN_PREFIX, ZAKEN_PATHS, {
            "zaak_retrieve": self._zaak, "status_retrieve": self._retrieve(self.statussen, "statussen", schemas.STATUS),
            "status_list": self._statussen, "rol_retrieve": self._retrieve(self.rollen, "rollen", schemas.ROL),
            "rol_list": self._rollen})
            + build_routes(CATALOGI_PREFIX, CATALOGI_PATHS, {
                "zaaktype_retrieve": self._retrieve(self.zaaktypen, "zaaktypen", schemas.ZAAKTYPE),
                "statustype_retrieve": self._retrieve(self.statustypen, "statustypen", schemas.STATUSTYPE),
                "statustype_list": self._statustypen,
                "roltype_retrieve": self._retrieve(self.roltypen, "roltypen", schemas.ROLTYPE)}))

    def api_version(self, path: str) -> str:
        return "1.3.1" if path.startswith(CATALOGI_PREFIX) else "1.5.1"

    def authenticate(self, request: Request) -> Problem | None:
        client, refused = check_zgw_jwt(request.header("Authorization"), self.clients, self.base_url)
        request.client = client
        return refused

    # -- seeding (called by the world, under its lock) ----------------------------------------------

    def add_zaaktype(self, omschrijving: str, identificatie: str) -> str:
        url = f"{self.catalogi_root}zaaktypen/{uuid.uuid4()}"
        today = datetime.date.today().isoformat()
        roltype = f"{self.catalogi_root}roltypen/{uuid.uuid4()}"
        with self.lock:
            self.zaaktypen[url] = {
                "url": url, "identificatie": identificatie, "omschrijving": omschrijving, "omschrijvingGeneriek": "",
                "vertrouwelijkheidaanduiding": "openbaar", "doel": omschrijving, "aanleiding": omschrijving,
                "toelichting": "", "indicatieInternOfExtern": "extern", "handelingInitiator": "aanvragen",
                "onderwerp": omschrijving[:80], "handelingBehandelaar": "behandelen", "doorlooptijd": "P30D",
                "servicenorm": None, "opschortingEnAanhoudingMogelijk": False, "verlengingMogelijk": False,
                "verlengingstermijn": None, "trefwoorden": [], "publicatieIndicatie": False, "publicatietekst": "",
                "verantwoordingsrelatie": [], "productenOfDiensten": [], "selectielijstProcestype": "",
                "referentieproces": {"naam": "Behandelen", "link": ""}, "verantwoordelijke": "Gemeente",
                "zaakobjecttypen": [], "catalogus": self.catalogus, "statustypen": [], "resultaattypen": [],
                "eigenschappen": [], "informatieobjecttypen": "", "roltypen": [roltype], "besluittypen": [],
                "deelzaaktypen": [], "gerelateerdeZaaktypen": [], "beginGeldigheid": today, "eindeGeldigheid": None,
                "beginObject": today, "eindeObject": None, "versiedatum": today, "concept": False}
            self.roltypen[roltype] = {
                "url": roltype, "zaaktype": url, "zaaktypeIdentificatie": identificatie, "omschrijving": "Initiator",
                "omschrijvingGeneriek": "initiator", "catalogus": self.catalogus, "beginGeldigheid": today,
                "eindeGeldigheid": None, "beginObject": today, "eindeObject": None}
        return url

    def add_statustype(self, zaaktype: str, omschrijving: str, volgnummer: int, *, is_eindstatus: bool,
                       informeren: bool) -> str:
        url = f"{self.catalogi_root}statustypen/{uuid.uuid4()}"
        with self.lock:
            owner = self.zaaktypen[zaaktype]
            self.statustypen[url] = {
                "url": url, "omschrijving": omschrijving, "omschrijvingGeneriek": "", "statustekst": "",
                "zaaktype": zaaktype, "catalogus": self.catalogus, "zaaktypeIdentificatie": owner["identificatie"],
                "volgnummer": volgnummer, "isEindstatus": is_eindstatus, "informeren": informeren,
                "doorlooptijd": None, "toelichting": None, "checklistitemStatustype": [], "eigenschappen": [],
                "beginGeldigheid": owner["beginGeldigheid"], "eindeGeldigheid": None,
                "beginObject": owner["beginGeldigheid"], "eindeObject": None,
                "zaakobjecttype": f"{self.catalogi_root}zaakobjecttypen/{uuid.uuid4()}"}
            owner["statustypen"].append(url)
        return url

    def add_zaak(self, zaaktype: str, *, identificatie: str, omschrijving: str, rsin: str, bsn: str | None,
                 betrokkene: str | None) -> str:
        key = uuid.uuid4()
        url = f"{self.zaken_root}zaken/{key}"
        today = datetime.date.today().isoformat()
        with self.lock:
            kind = self.zaaktypen[zaaktype]
            rol = self._initiator(url, kind["roltypen"][0], bsn, betrokkene)
            self.zaken[url] = {
                "url": url, "uuid": str(key), "identificatie": identificatie, "bronorganisatie": rsin,
                "omschrijving": omschrijving, "toelichting": "", "zaaktype": zaaktype, "registratiedatum": today,
                "verantwoordelijkeOrganisatie": rsin, "startdatum": today, "einddatum": None,
                "einddatumGepland": None, "uiterlijkeEinddatumAfdoening": None, "publicatiedatum": None,
                "communicatiekanaal": "", "productenOfDiensten": [],
                "vertrouwelijkheidaanduiding": kind["vertrouwelijkheidaanduiding"], "betalingsindicatie": "",
                "betalingsindicatieWeergave": "", "laatsteBetaaldatum": None, "zaakgeometrie": None,
                "verlenging": None, "opschorting": {"indicatie": False, "reden": ""}, "selectielijstklasse": "",
                "hoofdzaak": None, "deelzaken": [], "relevanteAndereZaken": [], "eigenschappen": [], "rollen": [rol],
                "status": None, "zaakinformatieobjecten": [], "zaakobjecten": [], "kenmerken": [],
                "archiefnominatie": None, "archiefstatus": "nog_te_archiveren", "archiefactiedatum": None,
                "resultaat": None, "opdrachtgevendeOrganisatie": "", "processobjectaard": None,
                "startdatumBewaartermijn": None, "processobject": None}
        return url

    def _initiator(self, zaak: str, roltype: str, bsn: str | None, betrokkene: str | None) -> str:
        key = uuid.uuid4()
        url = f"{self.zaken_root}rollen/{key}"
        # Open Zaak renders no betrokkeneIdentificatie (null) for a role recorded without one.
        identificatie = None if bsn is None else {
            "inpBsn": bsn, "anpIdentificatie": "", "inpA_nummer": "", "geslachtsnaam": "",
            "voorvoegselGeslachtsnaam": "", "voorletters": "", "voornamen": "", "geslachtsaanduiding": "",
            "geboortedatum": "", "verblijfsadres": None, "subVerblijfBuitenland": None}
        self.rollen[url] = {
            "url": url, "uuid": str(key), "zaak": zaak, "betrokkene": betrokkene or "",
            "betrokkeneType": "natuurlijk_persoon", "afwijkendeNaamBetrokkene": "", "roltype": roltype,
            "omschrijving": self.roltypen[roltype]["omschrijving"], "omschrijvingGeneriek": "initiator",
            "roltoelichting": "Initiator van de zaak", "registratiedatum": iso_datetime(now_utc()),
            "indicatieMachtiging": "", "contactpersoonRol": None, "statussen": [],
            "betrokkeneIdentificatie": identificatie}
        return url

    def add_status(self, zaak: str, statustype: str) -> str:
        key = uuid.uuid4()
        url = f"{self.zaken_root}statussen/{key}"
        with self.lock:
            case, kind = self.zaken[zaak], self.statustypen[statustype]
            assert kind["zaaktype"] == case["zaaktype"], "the statustype belongs to another zaaktype"
            self.statussen[url] = {
                "url": url, "uuid": str(key), "zaak": zaak, "statustype": statustype,
                "datumStatusGezet": iso_datetime(now_utc()), "statustoelichting": "", "gezetdoor": "",
                "zaakinformatieobjecten": []}
            case["status"] = url
            if self._eindstatus(kind):
                case["einddatum"] = datetime.date.today().isoformat()
        return url

    def kenmerken(self, zaak: str) -> dict[str, str]:
        """The zaken channel's kenmerken of a case (zaken-api src/notificaties.md)."""
        with self.lock:
            case = self.zaken[zaak]
            return {"bronorganisatie": case["bronorganisatie"], "zaaktype": case["zaaktype"],
                    "vertrouwelijkheidaanduiding": case["vertrouwelijkheidaanduiding"]}

    # -- views ---------------------------------------------------------------------------------------

    def _eindstatus(self, kind: dict[str, Any]) -> bool:
        """The Catalogi API derives isEindstatus: the statustype with the zaaktype's highest volgnummer."""
        siblings = [self.statustypen[url]["volgnummer"] for url in self.zaaktypen[kind["zaaktype"]]["statustypen"]]
        return bool(kind["isEindstatus"]) or kind["volgnummer"] == max(siblings)

    def _render(self, collection: str, item: dict[str, Any]) -> dict[str, Any]:
        if collection == "statustypen":
            return {**item, "isEindstatus": self._eindstatus(item)}
        if collection == "statussen":
            return {**item, "indicatieLaatstGezetteStatus": self.zaken[item["zaak"]]["status"] == item["url"]}
        return dict(item)

    def _retrieve(self, store: dict[str, dict[str, Any]], collection: str, schema: dict[str, Any]) -> Any:
        root = self.catalogi_root if collection.endswith("typen") else self.zaken_root

        # zaaktype_retrieve alone takes a query parameter in the file: datumGeldigheid (not served).
        allowed = {"datumGeldigheid"} if collection == "zaaktypen" else set()

        def view(request: Request) -> Answer | Problem:
            refused = self.check_query(request, allowed, set())
            if refused:
                return refused
            with self.lock:
                item = store.get(f"{root}{collection}/{request.params['uuid']}")
                if item is None:
                    return self.not_found()
                return Answer(200, self._render(collection, item), schema=schema, etag=True)
        return view

    def _zaak(self, request: Request) -> Answer | Problem:
        for header in ("Accept-Crs", "Content-Crs"):
            value = request.header(header)
            if value is None:
                return self.problem(412, "precondition_failed", f"'{header}' header ontbreekt")
            if value != CRS:
                return self.problem(406, "not_acceptable", f"CRS '{value}' is niet ondersteund")
        refused = self.check_query(request, {"expand"}, set())
        if refused:
            return refused
        with self.lock:
            case = self.zaken.get(f"{self.zaken_root}zaken/{request.params['uuid']}")
            if case is None:
                return self.not_found()
            return Answer(200, dict(case), headers={"Content-Crs": CRS}, schema=schemas.ZAAK, etag=True)

    def _filtered(self, request: Request, items: list[dict[str, Any]], fields: dict[str, Callable[[Any], Any]],
                  *, urls: set[str] = frozenset(), enums: dict[str, list[str]] | None = None) -> Any:
        """Items matching each given filter (`fields`: parameter -> the item's value it is compared with);
        a URL filter must be a URL and an enum filter one of its choices, else 400."""
        given = {name: request.one(name) for name in fields if request.one(name) is not None}
        wrong = [(name, "invalid", "Voer een geldige URL in.") for name in urls
                 if name in given and problems(URI_VALUE, given[name])]
        wrong += [(name, "invalid_choice", f"Selecteer een geldige keuze. {given[name]} is geen beschikbare keuze.")
                  for name, choices in (enums or {}).items() if name in given and given[name] not in choices]
        if wrong:
            return validatie_fout(self.base_url, wrong)
        return [item for item in items if all(fields[name](item) == value for name, value in given.items())]

    def _statussen(self, request: Request) -> Answer | Problem:
        refused = self.check_query(request, {"zaak", "statustype", "indicatieLaatstGezetteStatus", "page"})
        if refused:
            return refused
        with self.lock:
            items = [self._render("statussen", s) for s in self.statussen.values()]
        found = self._filtered(request, items, {
            "zaak": lambda s: s["zaak"], "statustype": lambda s: s["statustype"],
            "indicatieLaatstGezetteStatus": lambda s: str(s["indicatieLaatstGezetteStatus"]).lower()},
            urls={"zaak", "statustype"}, enums={"indicatieLaatstGezetteStatus": ["true", "false"]})
        if isinstance(found, tuple):
            return found
        found.sort(key=lambda s: s["datumStatusGezet"], reverse=True)
        return self._page(request, found, schemas.PAGINATED_STATUS)

    def _rollen(self, request: Request) -> Answer | Problem:
        refused = self.check_query(request, ROLLEN_PARAMETERS, ROLLEN_FILTERS)
        if refused:
            return refused
        with self.lock:
            items = [dict(rol) for rol in self.rollen.values()]
        found = self._filtered(request, items, {
            "zaak": lambda r: r["zaak"], "betrokkene": lambda r: r["betrokkene"],
            "betrokkeneType": lambda r: r["betrokkeneType"], "roltype": lambda r: r["roltype"],
            "omschrijving": lambda r: r["omschrijving"], "omschrijvingGeneriek": lambda r: r["omschrijvingGeneriek"],
            "betrokkeneIdentificatie__natuurlijkPersoon__inpBsn":
                lambda r: (r["betrokkeneIdentificatie"] or {}).get("inpBsn")},
            urls={"zaak", "betrokkene", "roltype"},
            enums={"betrokkeneType": schemas.BETROKKENE_TYPES, "omschrijvingGeneriek": schemas.OMSCHRIJVING_GENERIEK})
        return found if isinstance(found, tuple) else self._page(request, found, schemas.PAGINATED_ROL)

    def _statustypen(self, request: Request) -> Answer | Problem:
        refused = self.check_query(request, {"zaaktype", "zaaktypeIdentificatie", "status", "datumGeldigheid", "page"},
                                   {"zaaktype", "zaaktypeIdentificatie", "status", "page"})
        if refused:
            return refused
        with self.lock:
            items = [self._render("statustypen", s) for s in self.statustypen.values()]
        # Every seeded type is published ("definitief"): the status filter keeps them all but for "concept".
        found = self._filtered(request, items, {
            "zaaktype": lambda s: s["zaaktype"], "zaaktypeIdentificatie": lambda s: s["zaaktypeIdentificatie"],
            "status": lambda s: request.one("status") if request.one("status") != "concept" else "definitief"},
            urls={"zaaktype"}, enums={"status": ["alles", "concept", "definitief"]})
        if isinstance(found, tuple):
            return found
        found.sort(key=lambda s: (s["zaaktype"], s["volgnummer"]))
        return self._page(request, found, schemas.PAGINATED_STATUSTYPE)

    def _page(self, request: Request, items: list[dict[str, Any]], schema: dict[str, Any]) -> Answer | Problem:
        answer = self.paginate(request, items, self.page_size)
        if isinstance(answer, Answer):
            answer.schema = schema
        return answer

