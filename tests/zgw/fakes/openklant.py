"""Open Klant's klantinteracties API as a fake, written from github:maykinmedia/open-klant, tag 2.18.0 (commit
3b11751b02a93df70bed997a23bb499c526853c0), src/openklant/components/klantinteracties/openapi.yaml (API 0.9.0).

Authentication: the file's `tokenAuth` scheme, `Authorization: Token <key>`; none or another key is a
401 (Open Klant's TokenAuthentication, src/openklant/components/token/authentication.py: DRF's
NotAuthenticated / AuthenticationFailed), in the ZGW `Fout` shape Open Klant's vng_api_common error
handler gives. An unknown query parameter is a 400 "unknown-parameters" (Open Klant's
api/tests/test_expand.py); `expand` takes the file's comma-separated choices.

Served (everything else the file has answers 501):
  GET partijen (partijIdentificator__codeObjecttype/__codeSoortObjectId/__objectId/__codeRegister,
      soortPartij, expand, page, pageSize), GET partijen/{uuid} (expand),
  GET digitaleadressen (verstrektDoorPartij__uuid/__url, soortDigitaalAdres, referentie, adres, page,
      pageSize), GET digitaleadressen/{uuid},
  POST klantcontacten, GET klantcontacten/{uuid}, POST betrokkenen, POST onderwerpobjecten,
  POST maak-klantcontact.
"""
from __future__ import annotations

import datetime
import re
import uuid
from typing import Any

from tests.zgw.fakes import openklant_schemas as schemas
from tests.zgw.fakes.common import Problem, fout, validatie_fout
from tests.zgw.fakes.server import Answer, FakeServer, Request, Route, Tls, build_routes

PATHS = """
/actoren GET:actorenList POST:actorenCreate
/actoren/{uuid} GET:actorenRetrieve PUT:actorenUpdate PATCH:actorenPartialUpdate DELETE:actorenDestroy
/actorklantcontacten GET:actorklantcontactenList POST:actorklantcontactenCreate
/actorklantcontacten/{uuid} GET:actorklantcontactenRetrieve PUT:actorklantcontactenUpdate PATCH:actorklantcontactenPartialUpdate DELETE:actorklantcontactenDestroy
/betrokkenen GET:betrokkenenList POST:betrokkenenCreate
/betrokkenen/{uuid} GET:betrokkenenRetrieve PUT:betrokkenenUpdate PATCH:betrokkenenPartialUpdate DELETE:betrokkenenDestroy
/bijlagen GET:bijlagenList POST:bijlagenCreate
/bijlagen/{uuid} GET:bijlagenRetrieve PUT:bijlagenUpdate PATCH:bijlagenPartialUpdate DELETE:bijlagenDestroy
/categorie-relaties GET:categorieRelatiesList POST:categorieRelatiesCreate
/categorie-relaties/{uuid} GET:categorieRelatiesRetrieve PUT:categorieRelatiesUpdate PATCH:categorieRelatiesPartialUpdate DELETE:categorieRelatiesDestroy
/categorieen GET:categorieenList POST:categorieenCreate
/categorieen/{uuid} GET:categorieenRetrieve PUT:categorieenUpdate PATCH:categorieenPartialUpdate DELETE:categorieenDestroy
/digitaleadressen GET:digitaleadressenList POST:digitaleadressenCreate
/digitaleadressen/{uuid} GET:digitaleadressenRetrieve PUT:digitaleadressenUpdate PATCH:digitaleadressenPartialUpdate DELETE:digitaleadressenDestroy
/internetaken GET:internetakenList POST:internetakenCreate
/internetaken/{uuid} GET:internetakenRetrieve PUT:internetakenUpdate PATCH:internetakenPartialUpdate DELETE:internetakenDestroy
/klantcontacten GET:klantcontactenList POST:klantcontactenCreate
/klantcontacten/{uuid} GET:klantcontactenRetrieve PUT:klantcontactenUpdate PATCH:klantcontactenPartialUpdate DELETE:klantcontactenDestroy
/maak-klantcontact POST:maakKlantcontactCreate
/onderwerpobjecten GET:onderwerpobjectenList POST:onderwerpobjectenCreate
/onderwerpobjecten/{uuid} GET:onderwerpobjectenRetrieve PUT:onderwerpobjectenUpdate PATCH:onderwerpobjectenPartialUpdate DELETE:onderwerpobjectenDestroy
/partij-identificatoren GET:partijIdentificatorenList POST:partijIdentificatorenCreate
/partij-identificatoren/{uuid} GET:partijIdentificatorenRetrieve PUT:partijIdentificatorenUpdate PATCH:partijIdentificatorenPartialUpdate DELETE:partijIdentificatorenDestroy
/partijen GET:partijenList POST:partijenCreate
/partijen/{uuid} GET:partijenRetrieve PUT:partijenUpdate PATCH:partijenPartialUpdate DELETE:partijenDestroy
/rekeningnummers GET:rekeningnummersList POST:rekeningnummersCreate
/rekeningnummers/{uuid} GET:rekeningnummersRetrieve PUT:rekeningnummersUpdate PATCH:rekeningnummersPartialUpdate DELETE:rekeningnummersDestroy
/vertegenwoordigingen GET:vertegenwoordigingenList POST:vertegenwoordigingenCreate
/vertegenwoordigingen/{uuid} GET:vertegenwoordigingenRetrieve PUT:vertegenwoordigingenUpdate PATCH:vertegenwoordigingenPartialUpdate DELETE:vertegenwoordigingenDestroy
"""  # noqa: E501

PREFIX = "/klantinteracties/api/v1"
EXPANDS = {"betrokkenen", "betrokkenen.hadKlantcontact", "categorieRelaties", "digitaleAdressen"}
PARTIJ_FILTERS = {f"partijIdentificator__{name}" for name in
                  ("codeObjecttype", "codeSoortObjectId", "objectId", "codeRegister")} | {
    "soortPartij", "expand", "page", "pageSize"}
PARTIJ_PARAMETERS = PARTIJ_FILTERS | {
    f"{group}{part}" for group in ("bezoekadres", "correspondentieadres")
    for part in ("Adresregel1", "Adresregel2", "Adresregel3", "Land", "NummeraanduidingId")} | {
    "categorierelatie__categorie__naam", "indicatieActief", "indicatieGeheimhouding", "nummer",
    "vertegenwoordigdePartij__url", "vertegenwoordigdePartij__uuid"} | {
    f"subIdentificatorVan__{name}" for name in ("codeObjecttype", "codeRegister", "codeSoortObjectId", "objectId")}
ADRES_FILTERS = {"verstrektDoorPartij__uuid", "verstrektDoorPartij__url", "soortDigitaalAdres", "referentie", "adres",
                 "page", "pageSize"}
ADRES_PARAMETERS = ADRES_FILTERS | {
    "adres__icontains", "expand", "isGeverifieerd", "isStandaardAdres", "omschrijving", "verificatieDatum",
    "verificatieDatum__gt", "verificatieDatum__gte", "verificatieDatum__lt", "verificatieDatum__lte",
    "verstrektDoorBetrokkene__rol", "verstrektDoorBetrokkene__url", "verstrektDoorBetrokkene__uuid"} | {
    f"verstrektDoorPartij__partijIdentificator__{name}"
    for name in ("codeObjecttype", "codeRegister", "codeSoortObjectId", "objectId")} | {
    "verstrektDoorPartij__soortPartij"}
MAX_PAGE_SIZE = 500


class OpenKlant(FakeServer):
    name = "openklant"
    version = "0.9.0"

    def __init__(self, token: str, tls: Tls | None = None) -> None:
        super().__init__(tls)
        self.token = token
        self.page_size = 100
        self.root = f"{self.base_url}{PREFIX}/"
        self.partijen: dict[str, dict[str, Any]] = {}  # by uuid, as Open Klant links by uuid
        self.adressen: dict[str, dict[str, Any]] = {}
        self.contacten: dict[str, dict[str, Any]] = {}
        self.betrokkenen: dict[str, dict[str, Any]] = {}
        self.onderwerpen: dict[str, dict[str, Any]] = {}

    def routes(self) -> list[Route]:
        return build_routes(PREFIX, PATHS, {
            "partijenList": self._partijen, "partijenRetrieve": self._partij, "digitaleadressenList": self._adressen,
            "digitaleadressenRetrieve": self._adres, "klantcontactenCreate": self._new_contact,
            "klantcontactenRetrieve": self._contact, "betrokkenenCreate": self._new_betrokkene,
            "onderwerpobjectenCreate": self._new_onderwerp, "maakKlantcontactCreate": self._maak_klantcontact})

    def authenticate(self, request: Request) -> Problem | None:
        header = request.header("Authorization")
        if not header:
            return fout(self.base_url, 401, "not_authenticated", "Authenticatiegegevens zijn niet opgegeven.")
        if header != f"Token {self.token}":
            return fout(self.base_url, 401, "authentication_failed", "Ongeldige token.",
                        title="Ongeldige authenticatiegegevens.")
        return None

    # -- seeding -------------------------------------------------------------------------------------

    def _key(self, kind: str) -> tuple[str, str]:
        key = str(uuid.uuid4())
        return key, f"{self.root}{kind}/{key}"

    def add_partij(self, *, voornaam: str, achternaam: str, voorvoegsel: str, bsn: str | None,
                   correspondentieadres: dict[str, Any] | None) -> str:
        key, url = self._key("partijen")
        naam = " ".join(part for part in (voornaam, voorvoegsel, achternaam) if part)
        identificatoren = []
        if bsn is not None:
            ident, ident_url = self._key("partij-identificatoren")
            identificatoren.append({
                "uuid": ident, "url": ident_url, "identificeerdePartij": {"uuid": key, "url": url},
                "anderePartijIdentificator": "", "subIdentificatorVan": None,
                "partijIdentificator": {"codeObjecttype": "natuurlijk_persoon", "codeSoortObjectId": "bsn",
                                        "objectId": bsn, "codeRegister": "brp"}})
        with self.lock:
            self.partijen[key] = {
                "uuid": key, "url": url, "nummer": f"{len(self.partijen) + 1:010d}", "interneNotitie": "",
                "betrokkenen": [], "categorieRelaties": [], "digitaleAdressen": [], "voorkeursDigitaalAdres": None,
                "vertegenwoordigden": [], "rekeningnummers": [], "voorkeursRekeningnummer": None,
                "partijIdentificatoren": identificatoren, "soortPartij": "persoon", "indicatieGeheimhouding": False,
                "voorkeurstaal": "nld", "indicatieActief": True, "bezoekadres": None,
                "correspondentieadres": _adres(correspondentieadres) if correspondentieadres else None,
                "partijIdentificatie": {"contactnaam": {"voorletters": "", "voornaam": voornaam,
                                                        "voorvoegselAchternaam": voorvoegsel,
                                                        "achternaam": achternaam}, "volledigeNaam": naam}}
        return url

    def add_digitaal_adres(self, partij: str, *, soort: str, adres: str, referentie: str, voorkeur: bool) -> str:
        assert soort in schemas.SOORT_DIGITAAL_ADRES, f"soort must be one of {schemas.SOORT_DIGITAAL_ADRES}"
        assert referentie == "" or re.fullmatch(r"[-a-zA-Z0-9_]{1,50}", referentie), "referentie: ^[-a-zA-Z0-9_]+$"
        key, url = self._key("digitaleadressen")
        with self.lock:
            owner = self.partijen[partij.rstrip("/").rsplit("/", 1)[1]]
            link = {"uuid": key, "url": url}
            self.adressen[key] = {
                "uuid": key, "url": url, "verstrektDoorBetrokkene": None,
                "verstrektDoorPartij": {"uuid": owner["uuid"], "url": owner["url"]}, "adres": adres,
                "soortDigitaalAdres": soort, "isStandaardAdres": voorkeur, "omschrijving": "", "referentie": referentie,
                "verificatieDatum": None}
            owner["digitaleAdressen"].append(link)
            if voorkeur:
                for other in owner["digitaleAdressen"]:
                    self.adressen[other["uuid"]]["isStandaardAdres"] = other["uuid"] == key
                owner["voorkeursDigitaalAdres"] = link
        return url

    def klantcontacten(self) -> list[dict[str, Any]]:
        """Each klantcontact with the betrokkenen and onderwerpobjecten that link it."""
        with self.lock:
            return [{**contact, "betrokkenen": [self.betrokkenen[b["uuid"]] for b in contact["hadBetrokkenen"]],
                     "onderwerpobjecten": [self.onderwerpen[o["uuid"]] for o in contact["gingOverOnderwerpobjecten"]]}
                    for contact in self.contacten.values()]

    # -- reads ---------------------------------------------------------------------------------------

    def _expansions(self, request: Request) -> set[str] | Problem:
        raw = request.one("expand")
        if raw is None:
            return set()
        asked = {part.strip() for part in raw.split(",")}
        if not asked <= EXPANDS:
            return validatie_fout(self.base_url, [("expand", "invalid_choice",
                                                   f"Selecteer een geldige keuze. {raw} is geen beschikbare keuze.")])
        if "betrokkenen.hadKlantcontact" in asked:
            return self.problem(501, "not_implemented_by_fake", "De fake breidt betrokkenen.hadKlantcontact niet uit.")
        return asked

    def _render_partij(self, partij: dict[str, Any], expand: set[str]) -> dict[str, Any]:
        if not expand:
            return dict(partij)
        extra: dict[str, Any] = {}
        if "digitaleAdressen" in expand:
            extra["digitaleAdressen"] = [self.adressen[a["uuid"]] for a in partij["digitaleAdressen"]]
        if "betrokkenen" in expand:
            extra["betrokkenen"] = [self.betrokkenen[b["uuid"]] for b in partij["betrokkenen"]]
        if "categorieRelaties" in expand:
            extra["categorieRelaties"] = []
        return {**partij, "_expand": extra}

    def _page_size(self, request: Request) -> int:
        raw = request.one("pageSize") or ""
        return min(int(raw), MAX_PAGE_SIZE) if raw.isdigit() and int(raw) > 0 else self.page_size

    def _partijen(self, request: Request) -> Answer | Problem:
        refused = self.check_query(request, PARTIJ_PARAMETERS, PARTIJ_FILTERS)
        if refused:
            return refused
        expand = self._expansions(request)
        if isinstance(expand, tuple):
            return expand
        soort = request.one("soortPartij")
        if soort is not None and soort not in schemas.SOORT_PARTIJ:
            return validatie_fout(self.base_url, [("soortPartij", "invalid_choice", "Selecteer een geldige keuze.")])
        wanted = {name.split("__")[1]: request.one(name) for name in request.query
                  if name.startswith("partijIdentificator__")}
        with self.lock:
            found = [self._render_partij(p, expand) for p in self.partijen.values()
                     if (soort is None or p["soortPartij"] == soort)
                     and (not wanted or any(all(i["partijIdentificator"][k] == v for k, v in wanted.items())
                                            for i in p["partijIdentificatoren"]))]
        answer = self.paginate(request, found, self._page_size(request))
        if isinstance(answer, Answer):
            answer.schema = schemas.PAGINATED_EXPAND_PARTIJ
        return answer

    def _partij(self, request: Request) -> Answer | Problem:
        refused = self.check_query(request, {"expand"})
        if refused:
            return refused
        expand = self._expansions(request)
        if isinstance(expand, tuple):
            return expand
        with self.lock:
            partij = self.partijen.get(request.params["uuid"])
            if partij is None:
                return self.not_found()
            return Answer(200, self._render_partij(partij, expand), schema=schemas.EXPAND_PARTIJ)

    def _adressen(self, request: Request) -> Answer | Problem:
        refused = self.check_query(request, ADRES_PARAMETERS, ADRES_FILTERS)
        if refused:
            return refused
        soort = request.one("soortDigitaalAdres")
        if soort is not None and soort not in schemas.SOORT_DIGITAAL_ADRES:
            return validatie_fout(self.base_url, [("soortDigitaalAdres", "invalid_choice",
                                                   "Selecteer een geldige keuze.")])
        checks = {"verstrektDoorPartij__uuid": lambda a: (a["verstrektDoorPartij"] or {}).get("uuid"),
                  "verstrektDoorPartij__url": lambda a: (a["verstrektDoorPartij"] or {}).get("url"),
                  "soortDigitaalAdres": lambda a: a["soortDigitaalAdres"], "referentie": lambda a: a["referentie"],
                  "adres": lambda a: a["adres"]}
        given = {name: request.one(name) for name in checks if request.one(name) is not None}
        with self.lock:
            found = [dict(a) for a in self.adressen.values() if all(checks[k](a) == v for k, v in given.items())]
        answer = self.paginate(request, found, self._page_size(request))
        if isinstance(answer, Answer):
            answer.schema = schemas.PAGINATED_DIGITAAL_ADRES
        return answer

    def _adres(self, request: Request) -> Answer | Problem:
        refused = self.check_query(request, {"expand"}, set())
        if refused:
            return refused
        with self.lock:
            adres = self.adressen.get(request.params["uuid"])
            return Answer(200, dict(adres), schema=schemas.DIGITAAL_ADRES) if adres else self.not_found()

    def _contact(self, request: Request) -> Answer | Problem:
        refused = self.check_query(request, {"expand"}, set())
        if refused:
            return refused
        with self.lock:
            contact = self.contacten.get(request.params["uuid"])
            return Answer(200, dict(contact), schema=schemas.KLANTCONTACT) if contact else self.not_found()

    # -- writes --------------------------------------------------------------------------------------

    def _missing(self, links: dict[str, tuple[dict[str, Any], dict[str, Any] | None]]) -> Problem | None:
        """400 for a foreign key (name -> (store, {"uuid": ...})) to nothing."""
        wrong = [(f"{name}.uuid", "does_not_exist", "Object bestaat niet.") for name, (store, link) in links.items()
                 if link is not None and link["uuid"] not in store]
        return validatie_fout(self.base_url, wrong) if wrong else None

    def _create_contact(self, data: dict[str, Any]) -> dict[str, Any]:
        key, url = self._key("klantcontacten")
        contact = {"uuid": key, "url": url, "gingOverOnderwerpobjecten": [], "hadBetrokkenActoren": [],
                   "omvatteBijlagen": [], "hadBetrokkenen": [], "leiddeTotInterneTaken": [],
                   "nummer": f"{len(self.contacten) + 1:010d}", "referentienummer": None, "inhoud": "",
                   "reactie": "", "indicatieContactGelukt": None, "hoofdOnderwerpType": "",
                   "verdereActieOndernomen": False,
                   "plaatsgevondenOp": datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z"),
                   "metadata": {}}
        contact.update({k: v for k, v in data.items() if k in schemas.KLANTCONTACT_IN["properties"]})
        self.contacten[key] = contact
        return contact

    def _create_betrokkene(self, data: dict[str, Any], contact: str) -> dict[str, Any]:
        key, url = self._key("betrokkenen")
        partij = data.get("wasPartij")
        naam = data.get("contactnaam") or {}
        betrokkene = {
            "uuid": key, "url": url, "wasPartij": {"uuid": partij["uuid"], "url": self.partijen[partij["uuid"]]["url"]}
            if partij else None, "hadKlantcontact": {"uuid": contact, "url": self.contacten[contact]["url"]},
            "digitaleAdressen": [], "bezoekadres": data.get("bezoekadres"),
            "correspondentieadres": data.get("correspondentieadres"), "contactnaam": data.get("contactnaam"),
            "volledigeNaam": " ".join(naam.get(k, "") for k in ("voornaam", "voorvoegselAchternaam", "achternaam")
                                      if naam.get(k)), "rol": data["rol"],
            "organisatienaam": data.get("organisatienaam", ""), "initiator": data["initiator"]}
        self.betrokkenen[key] = betrokkene
        self.contacten[contact]["hadBetrokkenen"].append({"uuid": key, "url": url})
        if partij:
            self.partijen[partij["uuid"]]["betrokkenen"].append({"uuid": key, "url": url})
        return betrokkene

    def _create_onderwerp(self, data: dict[str, Any], contact: str | None) -> dict[str, Any]:
        key, url = self._key("onderwerpobjecten")
        was = data.get("wasKlantcontact")
        onderwerp = {
            "uuid": key, "url": url,
            "klantcontact": {"uuid": contact, "url": self.contacten[contact]["url"]} if contact else None,
            "wasKlantcontact": {"uuid": was["uuid"], "url": self.contacten[was["uuid"]]["url"]} if was else None,
            "onderwerpobjectidentificator": data.get("onderwerpobjectidentificator")}
        self.onderwerpen[key] = onderwerp
        if contact:
            self.contacten[contact]["gingOverOnderwerpobjecten"].append({"uuid": key, "url": url})
        return onderwerp

    def _new_contact(self, request: Request) -> Answer | Problem:
        data = self.json_body(request, schemas.KLANTCONTACT_IN)
        if isinstance(data, tuple):
            return data
        with self.lock:
            return Answer(201, dict(self._create_contact(data)), schema=schemas.KLANTCONTACT)

    def _new_betrokkene(self, request: Request) -> Answer | Problem:
        data = self.json_body(request, schemas.BETROKKENE_IN)
        if isinstance(data, tuple):
            return data
        with self.lock:
            missing = self._missing({"hadKlantcontact": (self.contacten, data["hadKlantcontact"]),
                                     "wasPartij": (self.partijen, data.get("wasPartij"))})
            if missing:
                return missing
            return Answer(201, dict(self._create_betrokkene(data, data["hadKlantcontact"]["uuid"])),
                          schema=schemas.BETROKKENE)

    def _new_onderwerp(self, request: Request) -> Answer | Problem:
        data = self.json_body(request, schemas.ONDERWERPOBJECT_IN)
        if isinstance(data, tuple):
            return data
        with self.lock:
            missing = self._missing({"klantcontact": (self.contacten, data.get("klantcontact")),
                                     "wasKlantcontact": (self.contacten, data.get("wasKlantcontact"))})
            if missing:
                return missing
            contact = (data.get("klantcontact") or {}).get("uuid")
            return Answer(201, dict(self._create_onderwerp(data, contact)), schema=schemas.ONDERWERPOBJECT)

    def _maak_klantcontact(self, request: Request) -> Answer | Problem:
        data = self.json_body(request, schemas.MAAK_KLANTCONTACT_IN)
        if isinstance(data, tuple):
            return data
        with self.lock:
            missing = self._missing({
                "betrokkene.wasPartij": (self.partijen, (data.get("betrokkene") or {}).get("wasPartij")),
                "onderwerpobject.wasKlantcontact": (self.contacten,
                                                    (data.get("onderwerpobject") or {}).get("wasKlantcontact"))})
            if missing:
                return missing
            contact = self._create_contact(data["klantcontact"])
            betrokkene = (self._create_betrokkene(data["betrokkene"], contact["uuid"])
                          if data.get("betrokkene") else None)
            onderwerp = (self._create_onderwerp(data["onderwerpobject"], contact["uuid"])
                         if data.get("onderwerpobject") else None)
            return Answer(201, {"klantcontact": dict(contact), "betrokkene": betrokkene, "onderwerpobject": onderwerp},
                          schema=schemas.MAAK_KLANTCONTACT)


def _adres(given: dict[str, Any]) -> dict[str, Any]:
    fields = ("nummeraanduidingId", "straatnaam", "huisnummertoevoeging", "postcode", "stad", "adresregel1",
              "adresregel2", "adresregel3", "land")
    return {**{name: given.get(name, "") for name in fields}, "huisnummer": given.get("huisnummer")}
