"""The current service's templates named in a page's path: the 404 page for anything not found, so
a page never tells another service's or an archived template from one that does not exist."""
from __future__ import annotations

from collections.abc import Collection

from flask import abort

from console.auth import current_service
from core.templates import find_template
from models.template import TemplateVersion
from pipeline.domain.errors import NoResultFound


def template_or_404(template_id: str, version: int | None = None, *,
                    types: Collection[str] | None = None) -> TemplateVersion:
    """The template at a version (the latest when None), of one of `types` when given."""
    try:
        found = find_template(current_service(), template_id, version)
    except NoResultFound:
        abort(404)
    if types is not None and found.template.template_type not in types:
        abort(404)
    return found
