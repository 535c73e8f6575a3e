"""The compiled validator must never let through what jsonschema refuses: its "valid" skips the
checks whose messages callers read. Every schema of the API is tried on data built from its own
properties: one valid base, then each property swapped for each value of a pool."""
from __future__ import annotations

import datetime
import importlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft7Validator

from api.schema import _Validators, format_checker

MODULES = [
    "api.v2.notifications.post_schemas", "api.v2.notifications.letter_schemas",
    "api.v2.notifications.notification_schemas", "api.v2.template.template_schemas",
    "api.v2.received_text.received_text_schemas", "api.admin.admin_schemas",
    "api.providers.delivery_receipts", "api.providers.inbound_sms",
]
_soon = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(hours=1)).isoformat()
POOL: list[Any] = [
    None, True, False, 0, 1, -1, 1.0, 1.5, 10**9, "", " ", "x", "a" * 256, "a" * 1001, "not-a-uuid",
    str(uuid.UUID(int=7)), "https://example.com/callback", "http://example.com/x", "https://",
    "2020-01-01T00:00:00", _soon, "2026-11-23T10:00:00.000000Z", "0612345678", "+31612345678",
    "first", "second", "economy", "sms", "email", "letter", "live", "test", "team", "delivered",
    [], ["x"], ["sms", "sms"], ["sms"], {}, {"a": 1},
]


def _schemas() -> Iterator[tuple[str, dict]]:
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            # Responses are checked by jsonschema in tests only; requests are what the fast path serves.
            if "response" in name or name in ("template_ref", "page_links"):
                continue
            if isinstance(value, dict) and value.get("type") == "object" and "properties" in value:
                yield f"{module_name}.{name}", value


def _good_values(schema: dict) -> list[Any]:
    checker = Draft7Validator(schema, format_checker=format_checker)
    return [v for v in POOL + list(schema.get("enum", [])) if checker.is_valid(v)]


def _instances(schema: dict) -> Iterator[dict]:
    properties = schema["properties"]
    good = {name: _good_values(sub) for name, sub in properties.items()}
    base = {name: good[name][0] for name in schema.get("required", []) if good.get(name)}
    yield base
    yield {**base, "unexpected": 1}
    for name in properties:
        yield {k: v for k, v in base.items() if k != name}
        for value in POOL + good[name]:
            yield {**base, name: value}


@pytest.mark.parametrize("name,schema", list(_schemas()), ids=lambda x: x if isinstance(x, str) else "")
def test_the_compiled_validator_agrees_with_jsonschema(name, schema):
    validators = _Validators(schema)
    assert validators.fast is not None, f"{name} is not compiled: every request pays for jsonschema"
    accepted = 0
    for instance in _instances(schema):
        try:
            validators.fast(instance)
            fast_accepts = True
        except Exception:
            fast_accepts = False
        full_accepts = validators.full.is_valid(instance)
        assert fast_accepts == full_accepts, (name, instance)
        accepted += full_accepts
    assert accepted, f"no valid instance of {name} was tried"
