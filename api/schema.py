"""Request validation with JSON Schema, producing Notify's "<field> <problem>" messages."""
from __future__ import annotations

import datetime
import functools
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import fastjsonschema
from jsonschema import Draft7Validator, FormatChecker
from jsonschema.exceptions import ValidationError as SchemaError

from api.errors import ValidationError
from pipeline.infrastructure.outbound import NOT_HTTPS

format_checker = FormatChecker()


class FormatProblem(ValueError):
    """Raised by format checks; its text becomes the message after the field name."""


@format_checker.checks("uuid", raises=FormatProblem)
def _is_uuid(value: object) -> bool:
    if not isinstance(value, str):
        return True
    try:
        uuid.UUID(value)
    except ValueError:
        raise FormatProblem("is not a valid UUID") from None
    return True


@format_checker.checks("https-url", raises=FormatProblem)
def _is_https_url(value: object) -> bool:
    from urllib.parse import urlsplit

    if isinstance(value, str):
        parts = urlsplit(value)
        if parts.scheme != "https" or not parts.netloc or " " in value:
            raise FormatProblem(NOT_HTTPS)
    return True


@format_checker.checks("datetime-within-24h", raises=FormatProblem)
def _is_schedulable(value: object) -> bool:
    if not isinstance(value, str):
        return True
    try:
        when = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise FormatProblem(f"{value} is not a valid date-time") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    now = datetime.datetime.now(datetime.UTC)
    if when < now - datetime.timedelta(minutes=1):
        raise FormatProblem("datetime can not be in the past")
    if when > now + datetime.timedelta(hours=24):
        raise FormatProblem("datetime can only be 24 hours in the future")
    return True


class _Validators:
    """A schema's two validators. The compiled one (fastjsonschema, the same schema and format
    checks) answers "valid?" in a tenth of the time; jsonschema, which reports every problem,
    runs only for data the compiled one refused, and its verdict is the one that counts."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.schema = schema  # held, so no other schema can be made at its id while it is cached
        self.full = Draft7Validator(schema, format_checker=format_checker)
        formats = {name: functools.partial(_passes, check, raises)
                   for name, (check, raises) in format_checker.checkers.items()}
        try:
            self.fast: Callable[[Any], Any] | None = fastjsonschema.compile(dict(schema), formats=formats)
        except fastjsonschema.JsonSchemaDefinitionException:
            self.fast = None  # a schema it cannot compile is checked by jsonschema alone

    def messages(self, data: Any) -> list[str]:
        if self.fast is not None:
            try:
                self.fast(data)
                return []
            except fastjsonschema.JsonSchemaValueException:
                pass
        errors = sorted(self.full.iter_errors(data), key=lambda e: (list(e.path), e.message))
        return list(dict.fromkeys(_message(e) for e in errors))


def _passes(check: Callable[[Any], bool], raises: type[Exception] | tuple[type[Exception], ...], value: Any) -> bool:
    try:
        return bool(check(value))
    except raises:  # the check's own way of refusing (anything else is a bug, and propagates)
        return False


_validators: dict[int, _Validators] = {}


# Lists whose items are requests of their own: a problem of an item is named by its place and its own
# field ("fallback[0] email_address is a required property"), as the item would be refused alone.
ITEM_PLACES = frozenset({"fallback"})


def _message(error: SchemaError) -> str:
    text = str(error.cause) if error.cause else error.message
    text = text.replace("'", "")
    path = error.path.popleft() if error.path else None
    if path in ITEM_PLACES and error.path and isinstance(error.path[0], int):
        place = f"{path}[{error.path.popleft()}]"
        field = error.path.popleft() if error.path else None
        return f"{place} {field} {text}" if field is not None else f"{place} {text}"
    return f"{path} {text}" if path is not None else text


def schema_messages(schema: Mapping[str, Any], data: Any) -> list[str]:
    validators = _validators.get(id(schema))
    if validators is None:
        validators = _validators[id(schema)] = _Validators(schema)
    return validators.messages(data)


def validate(schema: Mapping[str, Any], data: Any) -> Any:
    """Raise ValidationError listing every problem, each once; return data when valid."""
    messages = schema_messages(schema, data)
    if messages:
        raise ValidationError(*messages)
    return data


# The largest value an INTEGER column holds on PostgreSQL (SQLite's hold more): a bigger number in a
# request is refused by its schema rather than by the database.
INT_MAX = 2**31 - 1


def uuid_property() -> dict[str, str]:
    return {"type": "string", "format": "uuid"}
