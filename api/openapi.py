"""The OpenAPI 3.1 document, built from the routes themselves.

Each route marks itself with @documented(...), naming the schemas it already validates its request
with and answers with (the module-level dicts next to it); build_document() walks the app's URL map
and collects them. So the document has no schemas of its own to drift from the code: schemas are
data, kept once, next to their route.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import Flask

from api.errors import ERROR_RESPONSE
from pipeline.domain.i18n import N_

View = TypeVar("View", bound=Callable[..., Any])
Schema = Mapping[str, Any]

# Which blueprint is which part of the API, and how its callers authenticate. The texts (N_) are the
# document's, in English; the reference page (/docs) shows them in Dutch too (pipeline/domain/translations).
PARTS: dict[str, tuple[str, str | None, str]] = {
    "v2": ("v2", "serviceKey", N_("The public API the official clients call.")),
    "admin": ("admin", "adminClient", N_("Provisioning: services, keys, templates, senders, callbacks.")),
    "providers": ("providers", "providerToken", N_("Webhooks the SMS gateway and other providers call.")),
    # No HTTP authentication: every message carries Amazon's signature, checked before it is used.
    "ses": ("ses", None, N_("Amazon SNS messages about email sent through Amazon SES, signed by SNS.")),
    "sms_webhooks": ("providers", "providerSignature", N_("Webhooks the SMS gateway and other providers call.")),
}
SECURITY_SCHEMES = {
    "serviceKey": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description":
                   N_("HS256 JWT with iss = service id and iat = now (within 30 s), signed with the API key's "
                      "secret.")},
    "adminClient": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description":
                    N_("HS256 JWT with iss = ADMIN_CLIENT_ID and iat = now, signed with ADMIN_CLIENT_SECRET.")},
    "providerToken": {"type": "http", "scheme": "bearer", "description": N_("The shared PROVIDER_WEBHOOK_TOKEN.")},
    "providerSignature": {"type": "apiKey", "in": "header", "name": "X-Twilio-Signature", "description":
                          N_("Twilio's signature of the request; Spryng and CM.com: the gateway's token in the "
                             "path.")},
}
SUCCESS = N_("Success")
REFUSED = N_("The request was refused; every problem is listed in `errors`.")
TITLE = N_("Notification service API")
DESCRIPTION = N_("The v2 API (GOV.UK Notify's), the admin API and the provider webhooks.")
UNAVAILABLE = N_("A dependency (database or Redis) is unavailable; retry later.")
_RULE_ARGUMENT = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")


@dataclass(frozen=True)
class Operation:
    summary: str
    responses: Mapping[int, Schema | None]  # status -> body schema; None: no body
    body: Schema | None = None
    query: Schema | None = None  # an object schema, one parameter per property
    path: Mapping[str, Schema] = field(default_factory=dict)  # rule argument -> schema
    media_type: str = "application/json"  # of the success responses


def documented(summary: str, responses: Mapping[int, Schema | None], **details: Any) -> Callable[[View], View]:
    """Attach the operation's description to a view (put it below the route decorator)."""
    def mark(view: View) -> View:
        view.openapi = Operation(summary, responses, **details)  # type: ignore[attr-defined]
        return view
    return mark


def build_document(app: Flask, *, server_url: str) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        operation = getattr(app.view_functions[rule.endpoint], "openapi", None)
        part = PARTS.get(rule.endpoint.partition(".")[0])
        if operation is None or part is None:
            continue
        path, converters = _path(rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            paths.setdefault(path, {})[method.lower()] = _operation(
                operation, part, f"{rule.endpoint}.{method.lower()}:{path}", converters)
    return {
        "openapi": "3.1.0",
        "info": {"title": TITLE, "version": "2", "description": DESCRIPTION},
        "servers": [{"url": server_url}],
        "tags": [{"name": name, "description": text}
                 for name, text in {name: text for name, _scheme, text in PARTS.values()}.items()],
        "paths": paths,
        "components": {"securitySchemes": SECURITY_SCHEMES, "schemas": {"Error": _plain(ERROR_RESPONSE)}},
    }


def _path(rule: str) -> tuple[str, dict[str, str]]:
    converters = {name: converter or "string" for converter, name in _RULE_ARGUMENT.findall(rule)}
    return _RULE_ARGUMENT.sub(lambda m: "{" + m.group(2) + "}", rule), converters


def _operation(operation: Operation, part: tuple[str, str | None, str], operation_id: str,
               converters: dict[str, str]) -> dict[str, Any]:
    tag, scheme, _text = part
    parameters = [
        {"name": name, "in": "path", "required": True,
         "schema": _plain(operation.path.get(name) or {"type": "integer" if converter == "int" else "string"})}
        for name, converter in converters.items()
    ]
    if operation.query is not None:
        required = set(operation.query.get("required", ()))
        for name, schema in operation.query.get("properties", {}).items():
            parameter = {"name": name, "in": "query", "required": name in required, "schema": _plain(schema)}
            if schema.get("type") == "array":
                parameter |= {"style": "form", "explode": True}  # repeated: ?status=a&status=b
            parameters.append(parameter)
    document: dict[str, Any] = {
        "tags": [tag], "summary": operation.summary, "operationId": operation_id,
        "security": [{scheme: []}] if scheme else [], "parameters": parameters, "responses": _responses(operation),
    }
    if operation.body is not None:
        document["requestBody"] = {"required": False,
                                   "content": {"application/json": {"schema": _plain(operation.body)}}}
    return document


def _responses(operation: Operation) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    for status, schema in operation.responses.items():
        responses[str(status)] = {"description": SUCCESS}
        if schema is not None:
            responses[str(status)]["content"] = {operation.media_type: {"schema": _plain(schema)}}
    error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    responses["4XX"] = {"description": REFUSED, **error}
    responses["503"] = {"description": UNAVAILABLE, **error}
    return responses


def _plain(schema: Any) -> Any:
    """The schema as OpenAPI 3.1 (JSON Schema 2020-12) takes it: without the draft-07 `$schema`
    some of ours declare, tuples as lists."""
    if isinstance(schema, Mapping):
        return {key: _plain(value) for key, value in schema.items() if key != "$schema"}
    if isinstance(schema, (list, tuple)):
        return [_plain(value) for value in schema]
    return schema
