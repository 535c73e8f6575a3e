"""The client of the Dutch case APIs (ZGW): Zaken and Catalogi (Open Zaak), Open Klant's klantinteracties
and Open Notificaties (issue 52).

Hostile until checked: a URL is fetched only when it lies under the root configured for its API, checked
BEFORE the credentials are put on the request (a forged message naming another host, or a path that
climbs out of the root, never carries our token anywhere); the connection then goes through the
outbound address checks (pipeline/infrastructure/outbound.py: public addresses, and those inside
CASE_EVENTS_PRIVATE_NETWORKS, by https) and follows no redirect; an answer is read up to
MAX_ANSWER_BYTES within a deadline. Certificates are checked against CASE_EVENTS_CA_FILE when it is
set, else certifi's bundle (the session takes nothing from the environment: REQUESTS_CA_BUNDLE and
SSL_CERT_FILE do not count). URLs are never logged or kept in errors: a query for a party names the
citizen's BSN.

Credentials as each API's OpenAPI file says: Open Zaak and Open Notificaties take a ZGW JWT (HS256 with
the client's secret, `iss` and `client_id` the client id, `iat`, `user_id`, `user_representation`),
made fresh for every request, so it is never near the hour after which Open Zaak refuses it; Open
Klant takes `Authorization: Token <key>`.
"""
from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import jwt
import requests

from config import get_settings
from pipeline.domain.case_events import ADDRESS_REFUSED, CERTIFICATE
from pipeline.infrastructure import outbound

CONNECT_SECONDS = 5
READ_SECONDS = 10
DEADLINE_SECONDS = 20  # a whole answer, however slowly it trickles
MAX_ANSWER_BYTES = 1_000_000
MAX_PAGES = 10  # of a paginated list (a case's initiator roles fit in one)
JSON_TYPES = ("application/json", "application/problem+json")
# The Zaken API's zaak resources declare both headers required (zaken-api 1.5.1 src/openapi.yaml).
CRS_HEADERS = {"Accept-Crs": "EPSG:4326", "Content-Crs": "EPSG:4326"}
_CODE = re.compile(r"[A-Za-z0-9_.-]{1,60}")
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Spellings a server may read as a path step of its own, which a prefix check would not see.
_ESCAPES = ("%2e", "%2f", "%5c", "\\")

ZAKEN, CATALOGI, KLANT, NRC = "zaken", "catalogi", "klant", "nrc"


class ZgwError(Exception):
    """An API did not give what was asked; `api` names which, `status` its HTTP status (None: no answer)."""

    def __init__(self, api: str, status: int | None, code: str | None = None) -> None:
        super().__init__(f"{api} answered {status if status is not None else 'nothing'}")
        self.api, self.status, self.code = api, status, code


class Unreachable(ZgwError):
    """Down, too slow, or answering 5xx or 429: worth asking again later."""


class Refused(ZgwError):
    """A 4xx, a redirect, or an answer that is not the JSON asked for: asking again will not help."""


class OutsideRoots(Exception):
    """A URL from a message or an answer does not lie under the root of the API it names."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} does not lie under its API's root")
        self.what = what


def _origin(parts: Any) -> tuple[str, str, int]:
    return parts.scheme, (parts.hostname or "").lower(), parts.port or _DEFAULT_PORTS.get(parts.scheme, 0)


def under_root(url: object, root: str) -> bool:
    """Whether url lies under root: the same scheme, host and port, no user name, and a path that
    starts with the root's path without climbing out of it (no dot segments, no escaped dots,
    slashes or backslashes a server might read as steps)."""
    if not isinstance(url, str) or len(url) > 2000 or any(c.isspace() or not c.isprintable() for c in url):
        return False
    try:
        parts, base = urlsplit(url), urlsplit(root)
        same_origin = _origin(parts) == _origin(base)
    except ValueError:
        return False
    if not same_origin or parts.scheme not in _DEFAULT_PORTS or "@" in parts.netloc or parts.fragment:
        return False
    path = parts.path
    if any(escape in path.lower() for escape in _ESCAPES):
        return False
    if any(step in (".", "..") for step in unquote(path).split("/")):
        return False
    root_path = base.path if base.path.endswith("/") else base.path + "/"
    return path.startswith(root_path)


def zgw_jwt(client_id: str, secret: str, user_representation: str) -> str:
    """A ZGW JWT as Open Zaak's client documentation describes it, issued now."""
    claims = {"iss": client_id, "iat": int(time.time()), "client_id": client_id, "user_id": client_id,
              "user_representation": user_representation}
    return jwt.encode(claims, secret, algorithm="HS256")


@dataclass(frozen=True)
class Api:
    """One API: its name (for outcomes), its root, and what makes its Authorization header's value."""
    name: str
    root: str
    authorization: Callable[[], str]

    def url(self, path: str) -> str:
        return (self.root if self.root.endswith("/") else self.root + "/") + path


def jwt_api(name: str, root: str, client_id: str, secret: str, user_representation: str) -> Api:
    return Api(name, root, lambda: "Bearer " + zgw_jwt(client_id, secret, user_representation))


def token_api(name: str, root: str, token: str) -> Api:
    return Api(name, root, lambda: "Token " + token)


def _read(response: requests.Response, api: str) -> bytes:
    """The answer's body, refused past MAX_ANSWER_BYTES or DEADLINE_SECONDS."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > MAX_ANSWER_BYTES:
        raise Refused(api, response.status_code, "too-large")
    deadline, body = time.monotonic() + DEADLINE_SECONDS, bytearray()
    for chunk in response.iter_content(chunk_size=65536):
        body += chunk
        if len(body) > MAX_ANSWER_BYTES:
            raise Refused(api, response.status_code, "too-large")
        if time.monotonic() > deadline:
            raise Unreachable(api, None, "too-slow")
    return bytes(body)


def _problem_code(body: bytes) -> str | None:
    """The `code` of a ZGW problem answer (Fout), when it is a plain system code: never its detail,
    which may repeat what was asked (a BSN)."""
    try:
        code = json.loads(body).get("code")
    except (ValueError, AttributeError):
        return None
    return code if isinstance(code, str) and _CODE.fullmatch(code) else None


def request(api: Api, method: str, url: str, *, what: str, json_body: Any = None,
            headers: dict[str, str] | None = None, expect: tuple[int, ...] = (200,)) -> Any:
    """Ask api for url and return the JSON it answered (None for a 204); raises OutsideRoots before
    anything is sent when url is not under api's root, Unreachable or Refused when the answer is not
    one of `expect`. `what` names the URL in an OutsideRoots (e.g. "resourceUrl")."""
    if not under_root(url, api.root):
        raise OutsideRoots(what)
    sent = {"Accept": "application/json", **(headers or {}), "Authorization": api.authorization()}
    try:
        with outbound.session(adapter=outbound.PrivateNetworksAdapter()) as session:
            response = session.request(method, url, headers=sent, json=json_body, allow_redirects=False,
                                       timeout=(CONNECT_SECONDS, READ_SECONDS), stream=True,
                                       verify=get_settings().case_events_ca_file or True)
            with response:
                body = _read(response, api.name)
    except outbound.RefusedAddress:
        raise Refused(api.name, None, ADDRESS_REFUSED) from None
    except requests.exceptions.SSLError:  # waited out too: a certificate being renewed, a CA file put right
        raise Unreachable(api.name, None, CERTIFICATE) from None
    except requests.RequestException:
        raise Unreachable(api.name, None) from None
    status = response.status_code
    if status in expect:
        return _json(api.name, status, body) if status != 204 else None
    if status >= 500 or status == 429:
        raise Unreachable(api.name, status, _problem_code(body))
    raise Refused(api.name, status, _problem_code(body))


def _json(api: str, status: int, body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        raise Refused(api, status, "not-json") from None


def get_object(api: Api, url: str, *, what: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    found = request(api, "GET", url, what=what, headers=headers)
    if not isinstance(found, dict):
        raise Refused(api.name, 200, "not-an-object")
    return found


def list_results(api: Api, url: str, *, what: str) -> Iterator[dict[str, Any]]:
    """Every result of a paginated list (`count`, `next`, `results`), page by page; a `next` is followed
    only under the root, and at most MAX_PAGES pages."""
    for _ in range(MAX_PAGES):
        page = get_object(api, url, what=what)
        results = page.get("results")
        if not isinstance(results, list):
            raise Refused(api.name, 200, "no-results")
        yield from (result for result in results if isinstance(result, dict))
        following = page.get("next")
        if not following:
            return
        url, what = following, f"{what} (next page)"
