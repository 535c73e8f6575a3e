"""The first row of a checked file as its recipient will get it, for the check page's preview: the same
preview (core.preview) as a message sent one at a time, an email in its service's language and brand."""
from __future__ import annotations

from typing import Any

from console import security_headers
from core.preview import preview
from models.service import Service
from models.template import TemplateVersion
from pipeline.domain.recipients import validate_postal_address


def first_message(service: Service, version: TemplateVersion, row: list) -> dict[str, Any]:
    """What _message_preview.html shows of a checked row ([recipient, values])."""
    recipient, values = row[:2]  # a third item: the row's alternatives
    filled = preview(service, version, values)
    if filled.html:
        security_headers.shows_email_preview()
    letter = version.template.template_type == "letter"
    # The rows were checked with these rules at upload: the address is known to be good.
    to = validate_postal_address(values).lines if letter else [recipient]
    return {"template": version.name, "to": to, "subject": filled.subject, "body": filled.body,
            "html": filled.html}
