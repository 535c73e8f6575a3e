"""Ids named in a path: a malformed one is refused by its name, before it reaches a query."""
from __future__ import annotations

from models.db import is_uuid
from pipeline.errors import ValidationError


def checked_uuid(name: str, value: str) -> str:
    """The id, or a 400 "<name> is not a valid UUID" (an unknown one is the caller's 404)."""
    if not is_uuid(value):
        raise ValidationError(f"{name} is not a valid UUID")
    return value
