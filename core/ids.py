"""Ids named in a path: a malformed one is refused by its name, before it reaches a query."""
from __future__ import annotations

import uuid

from pipeline.domain.errors import ValidationError


def checked_uuid(name: str, value: str) -> uuid.UUID:
    """The id, or a 400 "<name> is not a valid UUID" (an unknown one is the caller's 404)."""
    try:
        return uuid.UUID(value)
    except ValueError:
        raise ValidationError(f"{name} is not a valid UUID") from None
