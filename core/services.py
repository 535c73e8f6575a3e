"""Finding the service an operation is about."""
from __future__ import annotations

from models.db import is_uuid
from models.service import Service
from pipeline.errors import NoResultFound, ValidationError


def find_service(service_id: str) -> Service:
    """The service named in a path: 400 for a malformed id, 404 for an unknown one."""
    if not is_uuid(service_id):
        raise ValidationError("service_id is not a valid UUID")
    service = Service.get_or_none(Service.id == service_id)
    if service is None:
        raise NoResultFound()
    return service
