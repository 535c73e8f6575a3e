"""Request validation with JSON Schema, producing Notify's "<field> <problem>" messages."""
from __future__ import annotations

import datetime
import uuid
from typing import Any, Mapping

from jsonschema import Draft7Validator, FormatChecker
from jsonschema.exceptions import ValidationError as SchemaError

from api.errors import ValidationError

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
            raise FormatProblem("is not a valid https url")
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
        when = when.replace(tzinfo=datetime.timezone.utc)
    now = datetime.datetime.now(datetime.timezone.utc)
    if when < now - datetime.timedelta(minutes=1):
        raise FormatProblem("datetime can not be in the past")
    if when > now + datetime.timedelta(hours=24):
        raise FormatProblem("datetime can only be 24 hours in the future")
    return True


_validators: dict[int, Draft7Validator] = {}


def _message(error: SchemaError) -> str:
    text = str(error.cause) if error.cause else error.message
    text = text.replace("'", "")
    path = error.path.popleft() if error.path else None
    return f"{path} {text}" if path is not None else text


def schema_messages(schema: Mapping[str, Any], data: Any) -> list[str]:
    validator = _validators.get(id(schema))
    if validator is None:
        validator = _validators[id(schema)] = Draft7Validator(schema, format_checker=format_checker)
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(e.path), e.message))
    return list(dict.fromkeys(_message(e) for e in errors))


def validate(schema: Mapping[str, Any], data: Any) -> Any:
    """Raise ValidationError listing every problem, each once; return data when valid."""
    messages = schema_messages(schema, data)
    if messages:
        raise ValidationError(*messages)
    return data


def uuid_property() -> dict[str, str]:
    return {"type": "string", "format": "uuid"}
