"""What the ZGW fakes share: the ZGW JWT check, the problem-JSON error shapes, and the schema kit the
transcribed response and request schemas are written in.

The JWT rules are Open Zaak's (github:open-zaak/open-zaak, docs/client-development/authentication.rst at
commit 90dd5eb0b47853af0e445187cc61ddd8ec5f64ea: HS256 signed with the client's secret; payload `iss`,
`iat`, `client_id`, `user_id`, `user_representation`; refused one hour past `iat`) and Open Notificaties
takes the same scheme (the description of its src/openapi.yaml). Every refusal is a 403 as Open Zaak's
own tests assert (src/openzaak/tests/test_jwt_auth.py: "jwt-expired", "jwt-immaturesignatureerror";
src/openzaak/components/autorisaties/tests/test_jwt.py: "jwt-missing-iat-claim"), missing header included;
the codes of an unreadable token, a missing or unknown client id and a wrong signature are those of the
JWTAuth of vng-api-common, which Open Zaak's src/openzaak/components/autorisaties/middleware.py extends
("jwt-decode-error", "missing-client-identifier", "invalid-client-identifier", "invalid-jwt-signature").

The error shapes are the `Fout` and `ValidatieFout` schemas of every ZGW OpenAPI file (e.g.
VNG-Realisatie/zaken-api 1.5.1 src/openapi.yaml, components/schemas/Fout): `code`, `title`, `status`,
`detail`, `instance` required, `invalidParams` (`name`, `code`, `reason`) for a 400, served as
application/problem+json; codes and titles as Open Zaak's error-format tests name them
(src/openzaak/tests/api_strategy/test_error_format.py), an unknown query parameter as Open Zaak's and
Open Klant's filter tests show (400, `nonFieldErrors`, "unknown-parameters").
"""
from __future__ import annotations

import datetime
import re
import time
import uuid
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

import jwt
from jsonschema import Draft7Validator, FormatChecker

Problem = tuple[int, dict[str, Any]]

JWT_EXPIRY_SECONDS = 3600  # Open Zaak's JWT_EXPIRY default; leeway 0

TITLES = {
    400: "Ongeldige invoer.",
    401: "Authenticatiegegevens zijn niet opgegeven.",
    403: "Je hebt geen toestemming om deze actie uit te voeren.",
    404: "Niet gevonden.",
    405: "Methode niet toegestaan.",
    406: "Kan niet voldoen aan de opgegeven Accept header.",
    412: "Voorwaarde waaraan niet voldaan is.",
    413: "Verzoek te groot.",
    415: "Ongeldige media type in aanvraag.",
    501: "Niet geïmplementeerd in deze fake.",
    503: "Dienst niet beschikbaar.",
}
KINDS = {400: "ValidationError", 401: "NotAuthenticated", 403: "PermissionDenied", 404: "NotFound",
         405: "MethodNotAllowed", 406: "NotAcceptable", 412: "PreconditionFailed", 413: "RequestTooLarge",
         415: "UnsupportedMediaType", 501: "NotImplemented", 503: "ServiceUnavailable"}


def fout(base_url: str, status: int, code: str, detail: str, *, title: str | None = None) -> Problem:
    """A `Fout` body for `status`; `base_url` is the fake's http://host:port, for the `type` URI."""
    kind = KINDS.get(status, "APIException")
    return status, {"type": f"{base_url}/ref/fouten/{kind}/", "code": code,
                    "title": title or TITLES.get(status, "Fout"), "status": status, "detail": detail,
                    "instance": f"urn:uuid:{uuid.uuid4()}"}


def validatie_fout(base_url: str, params: Iterable[tuple[str, str, str]], *, code: str = "invalid") -> Problem:
    """A 400 `ValidatieFout`: params are (name, code, reason), names camelCased as the APIs send them."""
    status, body = fout(base_url, 400, code, TITLES[400])
    body["invalidParams"] = [{"name": name, "code": c, "reason": reason} for name, c, reason in params]
    return status, body


def unknown_parameters(base_url: str, names: Iterable[str]) -> Problem:
    return validatie_fout(base_url, [("nonFieldErrors", "unknown-parameters",
                                      "Onbekende query parameters: " + ", ".join(sorted(names)))])


# --- ZGW JWT ------------------------------------------------------------------------------------------

def zgw_token(client_id: str, secret: str, *, iat: int | None = None, user_id: str = "fake",
              user_representation: str = "Fake") -> str:
    """The `Authorization` header value a ZGW client sends (for the world's own calls and the tests)."""
    payload = {"iss": client_id, "iat": int(time.time()) if iat is None else iat, "client_id": client_id,
               "user_id": user_id, "user_representation": user_representation}
    return "Bearer " + jwt.encode(payload, secret, algorithm="HS256")


def check_zgw_jwt(header: str | None, clients: Mapping[str, str], base_url: str) -> tuple[str | None, Problem | None]:
    """(client id, None) for a valid token of one of `clients` (client id -> secret), else (None, 403)."""
    def refused(code: str, detail: str) -> tuple[None, Problem]:
        return None, fout(base_url, 403, code, detail)

    if not header:
        return refused("permission_denied", "Authenticatiegegevens ontbreken: stuur 'Authorization: Bearer <jwt>'.")
    scheme, _, token = header.partition(" ")
    if scheme != "Bearer" or not token:
        return refused("permission_denied", "De Authorization header moet 'Bearer <jwt>' zijn.")
    try:
        unverified = jwt.decode(token, options={"verify_signature": False})
        algorithm = jwt.get_unverified_header(token).get("alg")
    except jwt.PyJWTError:
        return refused("jwt-decode-error", "JWT could not be decoded. Possibly you made a copy-paste mistake.")
    client_id = unverified.get("client_id")
    if not isinstance(client_id, str) or not client_id:
        return refused("missing-client-identifier", "Client identifier is niet aanwezig in JWT")
    if client_id not in clients:
        return refused("invalid-client-identifier", "Client identifier bestaat niet.")
    if algorithm != "HS256":
        return refused("jwt-invalidalgorithmerror", "The specified alg value is not allowed")
    try:
        payload = jwt.decode(token, clients[client_id], algorithms=["HS256"], options={"verify_iat": False})
    except jwt.InvalidSignatureError:
        return refused("invalid-jwt-signature", "Client credentials zijn niet geldig.")
    except jwt.PyJWTError as exc:
        return refused(f"jwt-{type(exc).__name__.lower()}", str(exc) or "Ongeldig JWT.")
    return _check_claims(payload, client_id, refused)


def _check_claims(payload: dict[str, Any], client_id: str, refused: Any) -> tuple[str | None, Problem | None]:
    missing = [claim for claim in ("iss", "user_id", "user_representation") if claim not in payload]
    if missing:
        return refused("jwt-missing-claim", "Het JWT mist de claim(s): " + ", ".join(missing) + ".")
    iat = payload.get("iat")
    if iat is None:
        return refused("jwt-missing-iat-claim", "Het JWT mist de claim 'iat'.")
    if not isinstance(iat, int | float):
        return refused("jwt-decode-error", "De claim 'iat' moet een Unix-tijdstip zijn.")
    now = time.time()
    if iat > now:
        return refused("jwt-immaturesignatureerror", "The token is not yet valid (iat)")
    if now > iat + JWT_EXPIRY_SECONDS:
        return refused("jwt-expired", "Het JWT is verlopen (meer dan een uur na 'iat').")
    return client_id, None


# --- schemas: OpenAPI 3.0 transcribed as JSON Schema --------------------------------------------------

def string(max_length: int | None = None, *, fmt: str | None = None, enum: list[str] | None = None,
           pattern: str | None = None, min_length: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for key, value in (("maxLength", max_length), ("format", fmt), ("enum", enum), ("pattern", pattern),
                       ("minLength", min_length)):
        if value is not None:
            schema[key] = value
    return schema


def uri(max_length: int | None = 1000) -> dict[str, Any]:
    return string(max_length, fmt="uri")


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI's `nullable: true`."""
    if "enum" in schema:
        return {**schema, "type": [schema["type"], "null"], "enum": [*schema["enum"], None]}
    if "type" in schema:
        return {**schema, "type": [schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def or_blank(schema: dict[str, Any]) -> dict[str, Any]:
    """A field the file gives a format or pattern that the server renders as "" when unset (DRF's blank)."""
    return {"anyOf": [schema, {"type": "string", "enum": [""]}]}


def array(items: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": items}


def obj(required: Iterable[str] = (), **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": sorted(required), "properties": properties}


BOOLEAN: dict[str, Any] = {"type": "boolean"}
INTEGER: dict[str, Any] = {"type": "integer"}
UUID = string(fmt="uuid")
DATE = string(fmt="date")
DATE_TIME = string(fmt="date-time")

FOUT = obj(["code", "title", "status", "detail", "instance"], type=string(), code=string(), title=string(),
           status=INTEGER, detail=string(), instance=string())
VALIDATIE_FOUT = obj(["code", "title", "status", "detail", "instance", "invalidParams"], type=string(),
                     code=string(), title=string(), status=INTEGER, detail=string(), instance=string(),
                     invalidParams=array(obj(["name", "code", "reason"], name=string(), code=string(),
                                             reason=string())))


def paginated(item: dict[str, Any], *, required: Iterable[str] = ()) -> dict[str, Any]:
    return obj(required, count=INTEGER, next=nullable(uri(None)), previous=nullable(uri(None)), results=array(item))


_FORMATS = FormatChecker(formats=())
_DATE_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,6})?)?(Z|[+-]\d\d:\d\d)$")
_DURATION = re.compile(r"^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$")


@_FORMATS.checks("uri")
def _is_uri(value: object) -> bool:
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


@_FORMATS.checks("uuid")
def _is_uuid(value: object) -> bool:
    if not isinstance(value, str):
        return True
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


@_FORMATS.checks("date")
def _is_date(value: object) -> bool:
    if not isinstance(value, str):
        return True
    try:
        return datetime.date.fromisoformat(value).isoformat() == value
    except ValueError:
        return False


@_FORMATS.checks("date-time")
def _is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not _DATE_TIME.match(value):
        return False
    try:
        datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


@_FORMATS.checks("duration")
def _is_duration(value: object) -> bool:
    return not isinstance(value, str) or bool(_DURATION.match(value))


_CODES = {"required": "required", "type": "invalid", "enum": "invalid_choice", "maxLength": "max_length",
          "minLength": "min_length", "pattern": "invalid", "format": "invalid", "maximum": "max_value",
          "minimum": "min_value", "additionalProperties": "invalid", "minItems": "min_length"}


def problems(schema: dict[str, Any], instance: Any) -> list[tuple[str, str, str]]:
    """Every way `instance` breaks `schema`, as ValidatieFout params (name, code, reason)."""
    found = []
    for error in sorted(Draft7Validator(schema, format_checker=_FORMATS).iter_errors(instance), key=str):
        path = [str(part) for part in error.absolute_path]
        if error.validator == "required":
            path.append(error.message.split("'")[1])
        found.append((".".join(path) or "nonFieldErrors", _CODES.get(str(error.validator), "invalid"), error.message))
    return found


def now_utc() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def iso_datetime(moment: datetime.datetime) -> str:
    """A date-time as Django REST framework renders one in UTC: ISO 8601 with a `Z`."""
    return moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")
