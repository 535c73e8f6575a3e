"""A service's template version found by the id a v2 request names, or refused as not found."""
from __future__ import annotations

from models.service import Service
from models.template import TemplateVersion, find_version
from pipeline.domain.errors import NoResultFound


def version_or_404(service: Service, template_id: str, version: int | None = None) -> TemplateVersion:
    """The service's template at a version (latest when None); NoResultFound for an unknown, archived
    or other service's template."""
    found = find_version(service, template_id, version)
    if found is None:
        raise NoResultFound("No Result Found")
    return found
