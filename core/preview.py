"""A template version filled in with personalisation, as the API's preview answers and the
console shows before a send: an email in its service's language and brand."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from models.appearance import appearance_of
from models.service import Service
from models.template import TemplateVersion
from pipeline.domain.errors import BadRequestError
from pipeline.domain.refusals import missing_personalisation_message
from pipeline.domain.rendering import missing_personalisation, render
from pipeline.stages.email_brand import brand_view


@dataclass(frozen=True)
class Preview:
    version: TemplateVersion
    body: str
    subject: str | None  # None for a text message
    html: str | None  # an email's only


def _email_dress(service: Service, template_type: str) -> dict[str, Any]:
    """An email's HTML in the service's language and brand, as its recipients would get it."""
    if template_type != "email":
        return {}
    appearance = appearance_of(service.id)
    return {"language": appearance.language, "service_name": service.name,
            "brand": brand_view(appearance.email_brand)}


def preview(service: Service, version: TemplateVersion, values: dict[str, Any]) -> Preview:
    """The version filled in with values; raises BadRequestError when a placeholder has no value."""
    template_type = version.template.template_type
    missing = missing_personalisation(version.content_texts(), values)
    if missing:
        raise BadRequestError(missing_personalisation_message(missing))
    rendered = render(template_type, version.body, version.subject, values, **_email_dress(service, template_type))
    return Preview(version, rendered.body, rendered.subject if template_type != "sms" else None,
                   rendered.html if template_type == "email" else None)
