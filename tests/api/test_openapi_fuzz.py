"""Schemathesis against our own OpenAPI document: for every operation, generated requests (valid and
invalid) never get a 5xx, and every answer matches the schema the document gives for it.

Requests carry real credentials (a service key's JWT on /v2, the admin client's on /admin, the
webhook token on /providers) and real ids (the service, its templates), so they get past
authentication and lookups into the handlers. FUZZ_EXAMPLES bounds the examples per operation; the
examples are the same on every run unless FUZZ_RANDOM is set (for a longer exploring run by hand).
"""
from __future__ import annotations

import os
import uuid

import pytest
import schemathesis
from hypothesis import HealthCheck, settings, strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from config import get_settings
from core.tokens import create_token
from tests.conftest import flask_app
from tests.factories import create_key, create_sample_template, create_service

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "30"))
CHECKS = [not_a_server_error, response_schema_conformance, status_code_conformance, content_type_conformance]

# Our formats, for generation: schemathesis knows uuid and date-time, not these.
for _name in ("non-blank", "sms-sender", "inbound-number", "callback-url", "https-url", "precompiled-postage",
              "datetime-within-24h"):
    schemathesis.openapi.format(_name, st.text(max_size=40))

schema = schemathesis.openapi.from_wsgi("/openapi.json", flask_app)


@pytest.fixture
def world():
    """A live service with a key and a template of each type, and the credentials for each part."""
    service = create_service()
    key = create_key(service=service)
    templates = {kind: create_sample_template(service=service, template_type=kind)
                 for kind in ("sms", "email", "letter")}
    return service, key, templates


def _headers(path: str, key: str) -> dict[str, str]:
    settings_ = get_settings()
    if path.startswith("/v2/"):
        token = create_token(key[-73:-37], key[-36:])
    elif path.startswith("/admin/"):
        token = create_token(settings_.admin_client_id, settings_.admin_client_secret)
    else:
        token = settings_.provider_webhook_token
    return {"Authorization": f"Bearer {token}"}


def _is_uuid(value: object) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return isinstance(value, str)


def _use_real_ids(case, service, templates) -> None:
    """Generated UUIDs never name a row: where one is generated, name ours instead."""
    path_parameters = case.path_parameters or {}
    if _is_uuid(path_parameters.get("service_id")):
        path_parameters["service_id"] = str(service.id)
    if _is_uuid(path_parameters.get("template_id")):
        path_parameters["template_id"] = str(templates["sms"].id)
    body = case.body
    if isinstance(body, dict) and _is_uuid(body.get("template_id")):
        kind = case.path.rsplit("/", 1)[-1]
        body["template_id"] = str(templates.get(kind, templates["sms"]).id)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize="FUZZ_RANDOM" not in os.environ, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_5xx_and_every_answer_matches_its_schema(case, world):
    service, key, templates = world
    _use_real_ids(case, service, templates)
    case.call_and_validate(headers=_headers(case.path, key), checks=CHECKS)
