"""The Template resource and its preview as the clients read them."""
from __future__ import annotations

from typing import Any

from core.preview import Preview
from models.template import TemplateVersion, contact_block_of
from pipeline.domain.formatting import iso
from pipeline.domain.rendering import personalisation_map


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
        # The version's own block: the service's default applies only when sending and previewing.
        "letter_contact_block": version.letter_contact_block if template.template_type == "letter" else None,
        "personalisation": personalisation_map(*_texts(version)),
    }


def _texts(version: TemplateVersion) -> list[str]:
    # The placeholders a send must fill: those of the block a send would use, the default included.
    texts = version.content_texts()
    block = contact_block_of(version)
    if block:
        texts.append(block)
    return texts


def preview_json(preview: Preview) -> dict[str, Any]:
    version = preview.version
    template_type = version.template.template_type
    return {
        "id": str(version.template.id),
        "type": template_type,
        "version": version.version,
        "body": preview.body,
        "subject": preview.subject,
        "postage": version.postage if template_type == "letter" else None,
        "html": preview.html,
    }
