"""Open Notificaties (the NRC) as a fake, written from:

- Notificaties API 1.0: github:VNG-Realisatie/notificaties-api, tag 1.0.0.post1 (commit
  b181ab89b4c560c629e6d6aba4d632c40260b27f), src/openapi.yaml: paths, scopes per operation
  (notificaties.consumeren / notificaties.publiceren), Abonnement (callbackUrl, auth and kanalen required),
  FilterGroup, Kanaal, Message, Fout, ValidatieFout.
- github:open-zaak/open-notificaties (commit a3853ab80dd95488a21ab14a155bb9f89ec005e5): src/openapi.yaml
  (`auth` writeOnly: never echoed; notificaties_create answers 201; the experimental sendCloudevents),
  src/nrc/api/validators.py and serializers.py (what a subscription must pass, in this order: the
  callbackUrl answers 401 or 403 to the test message posted without `Authorization` (TEST_CALLBACK_AUTH,
  on in production settings), then 200-209 to it posted with `auth` as the header; each kanaal exists;
  filter names fit the kanaal's; a message's kanaal exists and its kenmerken fit the kanaal's filters),
  src/nrc/datamodel/models.py (filter matching: a filter on a kenmerk the message has must equal it or
  be "*") and src/nrc/api/tasks.py + docs/delivery_guarantees.rst (delivery: tests/zgw/fakes/delivery.py).

Served: GET/POST abonnement, GET/PUT/PATCH/DELETE abonnement/{uuid}, GET kanaal (naam), GET kanaal/{uuid},
POST notificaties. Not served (501): POST kanaal, kanaal updates, cloudevents, sendCloudevents true.
"""
from __future__ import annotations

import datetime
import uuid
from typing import Any

from tests.zgw.fakes.common import (
    DATE_TIME,
    Problem,
    array,
    check_zgw_jwt,
    obj,
    string,
    uri,
    validatie_fout,
)
from tests.zgw.fakes.delivery import Deliverer, Job, post
from tests.zgw.fakes.server import Answer, FakeServer, Request, Route, build_routes

PATHS = """
/abonnement GET:abonnement_list POST:abonnement_create
/abonnement/{uuid} GET:abonnement_read PUT:abonnement_update PATCH:abonnement_partial_update DELETE:abonnement_delete
/cloudevents POST:cloudevent_create
/kanaal GET:kanaal_list POST:kanaal_create
/kanaal/{uuid} GET:kanaal_read PUT:kanaal_update PATCH:kanaal_partial_update
/notificaties POST:notificaties_create
"""
PREFIX = "/api/v1"
CONSUME, PUBLISH = "notificaties.consumeren", "notificaties.publiceren"
SCOPES = {"abonnement_create": {CONSUME}, "abonnement_update": {CONSUME}, "abonnement_partial_update": {CONSUME},
          "abonnement_delete": {CONSUME}, "notificaties_create": {PUBLISH}}  # the others: either scope
KENMERK = string(1000, min_length=1)
FILTER_GROUP = obj(["naam"], naam=string(min_length=1), filters={"type": "object", "additionalProperties": KENMERK})
ABONNEMENT_FIELDS = dict(callbackUrl=uri(200), auth=string(1000, min_length=1), kanalen=array(FILTER_GROUP),
                         sendCloudevents={"type": "boolean"}, cloudeventFilters=array(obj()))
ABONNEMENT_IN = obj(["callbackUrl", "auth", "kanalen"], **ABONNEMENT_FIELDS)
ABONNEMENT_PATCH = obj(**ABONNEMENT_FIELDS)
ABONNEMENT = obj(["url", "callbackUrl", "kanalen"], url=uri(), callbackUrl=uri(200), kanalen=array(FILTER_GROUP),
                 sendCloudevents={"type": "boolean"}, cloudeventFilters=array(obj()))
KANAAL = obj(["naam", "url"], url=uri(), naam=string(50), documentatieLink=uri(200), filters=array(string(100)))
MESSAGE = obj(["kanaal", "hoofdObject", "resource", "resourceUrl", "actie", "aanmaakdatum"],
              kanaal=string(50, min_length=1), source=string(100), hoofdObject=uri(None), resource=string(100),
              resourceUrl=uri(None), actie=string(100), aanmaakdatum=DATE_TIME,
              kenmerken={"type": "object", "additionalProperties": KENMERK})
# The message Open Notificaties posts to a callback when a subscription is made or changed.
TEST_MESSAGE = {"kanaal": "test", "hoofdObject": "http://some.hoofdobject.nl/", "resource": "some_resource",
                "resourceUrl": "http://some.resource.nl/", "actie": "create", "aanmaakdatum": "2019-01-01T12:00:00Z",
                "kenmerken": {}}
ZAKEN_KENMERKEN = ["bronorganisatie", "zaaktype", "vertrouwelijkheidaanduiding"]


class OpenNotificaties(FakeServer):
    name = "opennotificaties"
    unlocked = frozenset({"abonnement_create", "abonnement_update", "abonnement_partial_update"})

    def __init__(self, *, consumers: dict[str, str], publishers: dict[str, str]) -> None:
        super().__init__()
        self.clients = {**consumers, **publishers}
        self.scopes = {**{c: {CONSUME} for c in consumers}, **{p: {PUBLISH} for p in publishers}}
        self.root = f"{self.base_url}{PREFIX}/"
        self.probe_without_auth = True  # TEST_CALLBACK_AUTH, as Open Notificaties' production settings have it
        self.kanalen: dict[str, dict[str, Any]] = {}
        self.abonnementen: dict[str, dict[str, Any]] = {}  # by uuid, with "auth"
        self.deliverer = Deliverer(self._target)
        key = str(uuid.uuid4())
        self.kanalen[key] = {"url": f"{self.root}kanaal/{key}", "naam": "zaken", "filters": list(ZAKEN_KENMERKEN),
                             "documentatieLink": "https://github.com/VNG-Realisatie/zaken-api/blob/1.5.1/src/notificaties.md"}

    @property
    def retry_seconds(self) -> float:
        return self.deliverer.retry_seconds

    @retry_seconds.setter
    def retry_seconds(self, value: float) -> None:
        self.deliverer.retry_seconds = value

    @property
    def max_attempts(self) -> int:
        return self.deliverer.max_attempts

    @max_attempts.setter
    def max_attempts(self, value: int) -> None:
        self.deliverer.max_attempts = value

    def start(self) -> None:
        self.deliverer.start()
        super().start()

    def stop(self) -> None:
        super().stop()
        self.deliverer.stop()

    def routes(self) -> list[Route]:
        return build_routes(PREFIX, PATHS, {
            "abonnement_list": self._abonnementen, "abonnement_create": self._create, "abonnement_read": self._read,
            "abonnement_update": self._update, "abonnement_partial_update": self._patch,
            "abonnement_delete": self._delete, "kanaal_list": self._kanalen, "kanaal_read": self._kanaal,
            "notificaties_create": self._publish})

    def authenticate(self, request: Request) -> Problem | None:
        client, refused = check_zgw_jwt(request.header("Authorization"), self.clients, self.base_url)
        request.client = client
        return refused

    def _allowed(self, request: Request, operation: str) -> Problem | None:
        needed = SCOPES.get(operation, {CONSUME, PUBLISH})
        if request.client is None or not self.scopes[request.client] & needed:
            return self.problem(403, "permission_denied",
                                "Deze client mist de scope " + " | ".join(sorted(needed)) + ".")
        return None

    # -- what happened -------------------------------------------------------------------------------

    def subscriptions(self) -> list[dict[str, Any]]:
        with self.lock:
            return [{"url": a["url"], "callbackUrl": a["callbackUrl"], "auth": a["auth"], "kanalen": a["kanalen"]}
                    for a in self.abonnementen.values()]

    def deliveries(self) -> list[dict[str, Any]]:
        with self.deliverer.changed:
            return [dict(entry) for entry in self.deliverer.records]

    def wait_for_deliveries(self, count: int, *, test: bool, timeout: float) -> list[dict[str, Any]]:
        with self.deliverer.changed:
            def enough() -> bool:
                return sum(1 for entry in self.deliverer.records if entry["test"] == test) >= count
            if not self.deliverer.changed.wait_for(enough, timeout):
                raise AssertionError(f"the NRC made fewer than {count} {'test ' if test else ''}deliveries: "
                                     f"{self.deliverer.records}")
            return [dict(entry) for entry in self.deliverer.records if entry["test"] == test]

    def redeliver_last(self) -> int | None:
        with self.deliverer.changed:
            sent = [entry for entry in self.deliverer.records if not entry["test"]]
        assert sent, "the NRC has delivered nothing yet"
        delivered = [entry for entry in sent if entry["status"] is not None and 200 <= entry["status"] < 300]
        last = (delivered or sent)[-1]
        target = self._target(last["abonnement"])
        assert target is not None, "the subscription of the last delivery is gone"
        status = post(target[0], target[1], last["body"])
        self.deliverer.record({**last, "callbackUrl": target[0], "status": status, "attempt": last["attempt"] + 1,
                               "authorization": target[1], "redelivery": True})
        return status

    def _target(self, abonnement: str) -> tuple[str, str] | None:
        with self.lock:
            found = self.abonnementen.get(abonnement.rsplit("/", 1)[1])
            return (found["callbackUrl"], found["auth"]) if found else None

    # -- abonnementen --------------------------------------------------------------------------------

    def _render(self, abonnement: dict[str, Any]) -> dict[str, Any]:
        return {key: abonnement[key] for key in ("url", "callbackUrl", "kanalen", "sendCloudevents",
                                                 "cloudeventFilters")}

    def _abonnementen(self, request: Request) -> Answer | Problem:
        refused = self._allowed(request, "abonnement_list") or self.check_query(request, set())
        if refused:
            return refused
        return Answer(200, [self._render(a) for a in self.abonnementen.values()], schema=array(ABONNEMENT))

    def _read(self, request: Request) -> Answer | Problem:
        refused = self._allowed(request, "abonnement_read") or self.check_query(request, set())
        if refused:
            return refused
        found = self.abonnementen.get(request.params["uuid"])
        return Answer(200, self._render(found), schema=ABONNEMENT) if found else self.not_found()

    def _delete(self, request: Request) -> Answer | Problem:
        refused = self._allowed(request, "abonnement_delete") or self.check_query(request, set())
        if refused:
            return refused
        if self.abonnementen.pop(request.params["uuid"], None) is None:
            return self.not_found()
        return Answer(204)

    def _create(self, request: Request) -> Answer | Problem:
        return self._save(request, "abonnement_create", ABONNEMENT_IN, None)

    def _update(self, request: Request) -> Answer | Problem:
        return self._save(request, "abonnement_update", ABONNEMENT_IN, request.params["uuid"])

    def _patch(self, request: Request) -> Answer | Problem:
        return self._save(request, "abonnement_partial_update", ABONNEMENT_PATCH, request.params["uuid"])

    def _save(self, request: Request, operation: str, schema: dict[str, Any], key: str | None) -> Answer | Problem:
        """Create (key None) or change a subscription. Runs outside the lock: it posts test messages."""
        refused = self._allowed(request, operation) or self.check_query(request, set())
        if refused:
            return refused
        with self.lock:
            current = dict(self.abonnementen[key]) if key and key in self.abonnementen else None
        if key and current is None:
            return self.not_found()
        data = self.json_body(request, schema)
        if isinstance(data, tuple):
            return data
        if data.get("sendCloudevents") or data.get("cloudeventFilters"):
            return self.problem(501, "not_implemented_by_fake", "De fake verstuurt geen cloudevents.")
        refused = self._probe(data, current) or self._check_kanalen(data.get("kanalen", []))
        if refused:
            return refused
        with self.lock:
            key = key or str(uuid.uuid4())
            merged = {**(current or {}), **{k: v for k, v in data.items() if k in ABONNEMENT_FIELDS}}
            merged.update(url=f"{self.root}abonnement/{key}", sendCloudevents=False, cloudeventFilters=[])
            merged["kanalen"] = [{"naam": k["naam"], "filters": dict(k.get("filters") or {})}
                                 for k in merged.get("kanalen", [])]
            self.abonnementen[key] = merged
            return Answer(201 if current is None else 200, self._render(merged),
                          headers={"Location": merged["url"]} if current is None else {}, schema=ABONNEMENT)

    def _probe(self, data: dict[str, Any], current: dict[str, Any] | None) -> Problem | None:
        """Open Notificaties' two callback checks, each posting its test message (recorded as a delivery)."""
        url = data.get("callbackUrl") or (current or {}).get("callbackUrl", "")
        if "callbackUrl" in data and self.probe_without_auth:
            status = post(url, None, TEST_MESSAGE)
            self.deliverer.record({"callbackUrl": url, "status": status, "body": TEST_MESSAGE, "test": True,
                                   "attempt": 1, "abonnement": None, "authorization": None})
            if status not in (401, 403):
                return validatie_fout(self.base_url, [("callbackUrl", "no-auth-on-callback-url",
                                                       "De opgegeven callback URL is niet beveiligd met autorisatie.")])
        # As Open Notificaties does, a change without `auth` posts the test message without the header.
        auth = data.get("auth")
        status = post(url, auth, TEST_MESSAGE)
        self.deliverer.record({"callbackUrl": url, "status": status, "body": TEST_MESSAGE, "test": True, "attempt": 1,
                               "abonnement": None, "authorization": auth})
        if status is None or not 200 <= status <= 209:
            return validatie_fout(self.base_url, [("nonFieldErrors", "invalid-callback-url",
                                                   "De opgegeven callback URL kan geen notificaties ontvangen.")])
        return None

    def _kanaal_named(self, naam: str) -> dict[str, Any] | None:
        with self.lock:
            return next((k for k in self.kanalen.values() if k["naam"] == naam), None)

    def _check_kanalen(self, groups: list[dict[str, Any]]) -> Problem | None:
        for group in groups:
            kanaal = self._kanaal_named(group["naam"])
            if kanaal is None:
                return validatie_fout(self.base_url, [("naam", "kanaal_naam", "Kanaal met deze naam bestaat niet.")])
            if group.get("filters") and not _fits(kanaal["filters"], list(group["filters"])):
                return validatie_fout(self.base_url, [("filters", "inconsistent-abonnement-filters",
                                                       "abonnement filters aren't consistent with kanaal filters")])
        return None

    # -- kanalen and messages ------------------------------------------------------------------------

    def _kanalen(self, request: Request) -> Answer | Problem:
        refused = self._allowed(request, "kanaal_list") or self.check_query(request, {"naam"})
        if refused:
            return refused
        naam = request.one("naam")
        found = [dict(k) for k in self.kanalen.values() if naam is None or k["naam"] == naam]
        return Answer(200, found, schema=array(KANAAL))

    def _kanaal(self, request: Request) -> Answer | Problem:
        refused = self._allowed(request, "kanaal_read") or self.check_query(request, set())
        if refused:
            return refused
        found = self.kanalen.get(request.params["uuid"])
        return Answer(200, dict(found), schema=KANAAL) if found else self.not_found()

    def _publish(self, request: Request) -> Answer | Problem:
        refused = self._allowed(request, "notificaties_create") or self.check_query(request, set())
        if refused:
            return refused
        data = self.json_body(request, MESSAGE)
        if isinstance(data, tuple):
            return data
        kanaal = self._kanaal_named(data["kanaal"])
        if kanaal is None:
            return validatie_fout(self.base_url, [("kanaal", "message_kanaal", "Kanaal met deze naam bestaat niet.")])
        kenmerken = data.get("kenmerken") or {}
        if not _fits(kanaal["filters"], list(kenmerken)):
            return validatie_fout(self.base_url, [("kenmerken", "kenmerken_inconsistent",
                                                   "Kenmerken aren't consistent with kanaal filters")])
        message = {key: data[key] for key in MESSAGE["properties"] if key in data}
        message["aanmaakdatum"] = _django_datetime(data["aanmaakdatum"])
        message["kenmerken"] = kenmerken
        for key, abonnement in self.abonnementen.items():
            if any(group["naam"] == data["kanaal"] and _matches(group["filters"], kenmerken)
                   for group in abonnement["kanalen"]):
                self.deliverer.submit(Job(f"{self.root}abonnement/{key}", message))
        return Answer(201, message, schema=MESSAGE)


def _fits(kanaal_filters: list[str], names: list[str]) -> bool:
    """Open Notificaties' Kanaal.match_filter_names: one set of names holds the other."""
    return set(kanaal_filters) <= set(names) or set(kanaal_filters) >= set(names)


def _matches(filters: dict[str, str], kenmerken: dict[str, str]) -> bool:
    """A filter on a kenmerk the message carries must equal it, or be "*"."""
    return all(value in ("*", kenmerken[key]) for key, value in filters.items() if key in kenmerken)


def _django_datetime(value: str) -> str:
    """A date-time as Open Notificaties sends it on (Django's JSON encoder: milliseconds, `Z` for UTC)."""
    moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    text = moment.isoformat()
    if moment.microsecond:
        text = text[:23] + text[26:]
    return text[:-6] + "Z" if text.endswith("+00:00") else text

