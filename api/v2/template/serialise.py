"""The Template resource as the clients read it."""
from __future__ import annotations

from typing import Any

from pipeline.formatting import iso
from models.template import TemplateVersion, contact_block_of
from pipeline.rendering import personalisation_map


def template_json(version: TemplateVersion) -> dict[str, Any]:
    template = version.template
    return {
        "id": str(template.id),
        "name": version.name,
        "type": template.template_type,
        "created_at": iso(template.created_at),
        "updated_at": iso(version.created_at) if version.version > 1 else None,
        "created_by": version.created_by,
        "version": version.version,
        "body": version.body,
        "subject": version.subject if template.template_type != "sms" else None,
        "postage": version.postage if template.template_type == "letter" else None,
        "letter_contact_block": contact_block_of(version),
        "personalisation": personalisation_map(*_texts(version)),
    }


def _texts(version: TemplateVersion) -> list[str]:
    texts = version.content_texts()
    block = contact_block_of(version)
    if block:
        texts.append(block)
    return texts
