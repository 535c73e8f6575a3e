"""The HTTP side every ZGW fake shares: a small WSGI app on a threaded wsgiref server on 127.0.0.1, which
answers each request in this order, as the Django REST framework apps behind the real APIs do:

1. a body over MAX_BODY bytes: 413; while the API is taken down: 503;
2. a path the OpenAPI file does not have: 404 (a path parameter that is not a UUID is such a path);
3. the API's authentication (the subclass's `authenticate`): 401/403;
4. a method the file does not have on that path: 405; an operation the file has but the fake does not
   serve: 501 (so a test that needs it fails loudly instead of seeing a wrong answer);
5. an `Accept` that excludes JSON: 406; then the operation's handler.

Served over TLS under a name when given `Tls` (a municipality's internal API with its own CA: the test
resolves the name), else plain http on 127.0.0.1. Each answer is recorded (method, path with query,
status). A 2xx body is checked against the response schema transcribed from the file before it goes
out: a fake that would answer outside its own schema answers 500 instead, naming the fault. Connections
close after each answer (no keep-alive), so stopping the server leaves no thread behind.
"""
from __future__ import annotations

import hashlib
import json
import ssl
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from socketserver import ThreadingMixIn
from typing import Any
from urllib.parse import parse_qs, urlencode
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from tests.zgw.fakes.common import Problem, fout, problems, unknown_parameters, validatie_fout

MAX_BODY = 64 * 1024
MAX_LOG = 10_000


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # names lower-cased
    body: bytes
    params: dict[str, str] = field(default_factory=dict)  # path parameters
    client: str | None = None  # the authenticated client id or token

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def one(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[-1] if values else None


@dataclass
class Answer:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    schema: dict[str, Any] | None = None  # the response schema a 2xx body must meet
    etag: bool = False  # the file gives this answer an ETag (and the request may send If-None-Match)


Handler = Callable[[Request], "Answer | Problem"]


@dataclass(frozen=True)
class Operation:
    operation_id: str
    handler: Handler | None  # None: in the file, not served by the fake (501)


@dataclass(frozen=True)
class Route:
    pattern: str  # e.g. "/zaken/api/v1/zaken/{uuid}"
    operations: dict[str, Operation]  # method -> operation

    def match(self, path: str) -> dict[str, str] | None:
        """The path parameters when `path` is this route's (each `{...uuid}` one a UUID), else None."""
        wanted, given = self.pattern.split("/"), path.split("/")
        if len(wanted) != len(given):
            return None
        params = {}
        for want, part in zip(wanted, given, strict=True):
            if want.startswith("{"):
                if not part or (want.endswith("uuid}") and not _is_uuid(part)):
                    return None
                params[want[1:-1]] = part
            elif want != part:
                return None
        return params


def _is_uuid(value: str) -> bool:
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


@dataclass(frozen=True)
class Tls:
    """Serve over TLS: the server context (a certificate for `host`) and the name the URLs the fake
    renders carry, which the test makes resolve to where it listens."""
    context: ssl.SSLContext
    host: str


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = False
    block_on_close = True  # server_close() waits for every answer in progress


class _Handler(WSGIRequestHandler):
    timeout = 10  # a client that never sends its request does not hold a thread forever

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass


class FakeServer:
    """One API's fake. Subclasses give `name`, `routes()` and `authenticate()`."""

    name = "api"
    version = "1.0.0"
    # Operations whose handler talks to the outside (the NRC's test messages): not run under the lock.
    unlocked: frozenset[str] = frozenset()

    def __init__(self, tls: Tls | None = None) -> None:
        self.lock = threading.RLock()
        self.down: set[str] = set()  # path prefixes answered 503 (an API taken down)
        self._log: list[tuple[str, str, int]] = []
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.set_app(self._app)
        self.base_url = f"http://127.0.0.1:{self._server.server_port}"
        if tls is not None:
            self._server.socket = tls.context.wrap_socket(self._server.socket, server_side=True)
            self.base_url = f"https://{tls.host}:{self._server.server_port}"
        self._routes: list[Route] = []
        self._thread: threading.Thread | None = None

    def routes(self) -> list[Route]:
        raise NotImplementedError

    def authenticate(self, request: Request) -> Problem | None:
        raise NotImplementedError

    def api_version(self, path: str) -> str:
        """The API-version header every answer carries (the files list it on each response)."""
        return self.version

    # -- life ----------------------------------------------------------------------------------------

    def start(self) -> None:
        self._routes = self.routes()
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name=f"fake-{self.name}")
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    def requests(self) -> list[tuple[str, str, int]]:
        with self.lock:
            return list(self._log)

    # -- helpers for handlers ------------------------------------------------------------------------

    def problem(self, status: int, code: str, detail: str) -> Problem:
        return fout(self.base_url, status, code, detail)

    def not_found(self) -> Problem:
        return self.problem(404, "not_found", "Niet gevonden.")

    def check_query(self, request: Request, allowed: set[str], served: set[str] | None = None) -> Problem | None:
        """400 for a parameter the file does not have; 501 for one it has that the fake does not filter on."""
        unknown = set(request.query) - allowed
        if unknown:
            return unknown_parameters(self.base_url, unknown)
        unserved = set(request.query) - (allowed if served is None else served)
        if unserved:
            return self.problem(501, "not_implemented_by_fake",
                                "De fake filtert niet op: " + ", ".join(sorted(unserved)) + ".")
        return None

    def json_body(self, request: Request, schema: dict[str, Any]) -> dict[str, Any] | Problem:
        """The request's JSON object when it has the right content type and meets `schema`, else the refusal."""
        media_type = (request.header("Content-Type") or "").split(";")[0].strip().lower()
        if media_type != "application/json":
            return self.problem(415, "unsupported_media_type", f'Ongeldige media type "{media_type}" in aanvraag.')
        try:
            payload = json.loads(request.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            return validatie_fout(self.base_url, [("nonFieldErrors", "parse_error", f"JSON parse error - {exc}")],
                                  code="parse_error")
        found = problems(schema, payload)
        return validatie_fout(self.base_url, found) if found else payload

    def paginate(self, request: Request, items: list[dict[str, Any]], page_size: int) -> Answer | Problem:
        """One page of `items` as the ZGW APIs paginate: count, next, previous, results."""
        raw = request.one("page") or "1"
        if not raw.isdigit() or int(raw) < 1 or (int(raw) - 1) * page_size >= max(len(items), 1):
            return self.problem(404, "not_found", "Ongeldige pagina.")
        page = int(raw)

        def link(number: int) -> str:
            query = [(k, v) for k, vs in request.query.items() if k != "page" for v in vs]
            if number > 1:
                query.append(("page", str(number)))
            return self.base_url + request.path + ("?" + urlencode(query) if query else "")

        more = page * page_size < len(items)
        return Answer(200, {"count": len(items), "next": link(page + 1) if more else None,
                            "previous": link(page - 1) if page > 1 else None,
                            "results": items[(page - 1) * page_size:page * page_size]})

    # -- the WSGI app --------------------------------------------------------------------------------

    def _app(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        method = environ["REQUEST_METHOD"]
        path = environ.get("PATH_INFO", "")
        query_string = environ.get("QUERY_STRING", "")
        status, body, headers = self._answer(environ, method, path, query_string)
        with self.lock:
            if len(self._log) < MAX_LOG:
                self._log.append((method, path + ("?" + query_string if query_string else ""), status))
        raw = b"" if body is None else json.dumps(body).encode()
        kind = "application/json" if status < 400 else "application/problem+json"
        all_headers = [("Content-Length", str(len(raw))), ("API-version", self.api_version(path)), *headers.items()]
        if body is not None:
            all_headers.append(("Content-Type", kind))
        start_response(f"{status} {_REASONS.get(status, 'Status')}", all_headers)
        return [raw]

    def _answer(self, environ: dict[str, Any], method: str, path: str,
                query_string: str) -> tuple[int, Any, dict[str, str]]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if length > MAX_BODY:
            return (*self.problem(413, "request_too_large", f"Het verzoek is groter dan {MAX_BODY} bytes."), {})
        raw = environ["wsgi.input"].read(length) if length else b""
        headers = {key[5:].replace("_", "-").lower(): value for key, value in environ.items()
                   if key.startswith("HTTP_")}
        if environ.get("CONTENT_TYPE"):
            headers["content-type"] = environ["CONTENT_TYPE"]
        with self.lock:
            down = any(path.startswith(prefix) for prefix in self.down)
        if down:
            return (*self.problem(503, "service_unavailable", "De API is tijdelijk niet beschikbaar."), {})
        request = Request(method, path, parse_qs(query_string, keep_blank_values=True), headers, raw)
        return self._dispatch(request)

    def _dispatch(self, request: Request) -> tuple[int, Any, dict[str, str]]:
        for route in self._routes:
            params = route.match(request.path)
            if params is not None:
                break
        else:
            return (*self.not_found(), {})
        request.params = params
        refused = self.authenticate(request)
        if refused:
            return (*refused, {})
        operation = route.operations.get(request.method)
        if operation is None:
            allow = ", ".join(sorted(route.operations))
            status, body = self.problem(405, "method_not_allowed", f'Methode "{request.method}" niet toegestaan.')
            return status, body, {"Allow": allow}
        if operation.handler is None:
            return (*self.problem(501, "not_implemented_by_fake",
                                  f"De fake bedient {operation.operation_id} niet."), {})
        if not _accepts_json(request.header("Accept")):
            return (*self.problem(406, "not_acceptable", "Kan niet voldoen aan de opgegeven Accept header."), {})
        if operation.operation_id in self.unlocked:
            return self._outcome(request, operation, operation.handler(request))
        with self.lock:  # the answer is taken whole, as the store stands at one moment
            return self._outcome(request, operation, operation.handler(request))

    def _outcome(self, request: Request, operation: Operation,
                 result: Answer | Problem) -> tuple[int, Any, dict[str, str]]:
        if isinstance(result, tuple):
            return result[0], result[1], {}
        status, body, headers = self._checked(operation, result)
        if result.etag and status == 200:
            tag = '"' + hashlib.md5(json.dumps(body, sort_keys=True).encode()).hexdigest() + '"'
            headers = {**headers, "ETag": tag}
            wanted = {part.strip() for part in (request.header("If-None-Match") or "").split(",")}
            if tag in wanted or "*" in wanted:
                return 304, None, headers
        return status, json.loads(json.dumps(body)), headers

    def _checked(self, operation: Operation, answer: Answer) -> tuple[int, Any, dict[str, str]]:
        if answer.schema is not None and answer.status < 300:
            faults = problems(answer.schema, answer.body)
            if faults:
                detail = f"fake defect: {operation.operation_id} answer breaks its schema: {faults[:3]}"
                return (*self.problem(500, "fake_defect", detail), {})
        return answer.status, answer.body, answer.headers


def _accepts_json(accept: str | None) -> bool:
    if not accept:
        return True
    kinds = {part.split(";")[0].strip().lower() for part in accept.split(",")}
    return bool(kinds & {"*/*", "application/*", "application/json", "application/problem+json"})


_REASONS = {200: "OK", 201: "Created", 204: "No Content", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized",
            403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
            412: "Precondition Failed", 413: "Payload Too Large", 415: "Unsupported Media Type",
            500: "Internal Server Error", 501: "Not Implemented", 503: "Service Unavailable"}


def build_routes(prefix: str, table: str, handlers: dict[str, Handler]) -> list[Route]:
    """Routes from a table of the file's paths, one a line: `<path> <METHOD>:<operationId> ...`; an
    operation with a handler in `handlers` is served, the others answer 501."""
    routes = []
    for line in table.strip().splitlines():
        path, *operations = line.split()
        routes.append(Route(prefix + path, {
            method: Operation(operation_id, handlers.get(operation_id))
            for method, operation_id in (op.split(":") for op in operations)}))
    unknown = set(handlers) - {op.operation_id for route in routes for op in route.operations.values()}
    assert not unknown, f"handlers for operations the file does not have: {unknown}"
    return routes
