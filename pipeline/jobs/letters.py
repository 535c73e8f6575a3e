"""A job's letters: the address from the row's address columns, checked and recorded as the API
records a letter from a template (api/v2/notifications/letter_sending.py)."""
from __future__ import annotations

import uuid

from models.notification import Notification
from models.template import TemplateVersion, contact_block_of
from pipeline.recipients import validate_postal_address
from pipeline.rendering import normalise_key, render

DEFAULT_POSTAGE = "second"
DOMESTIC_COUNTRY = "Netherlands"
# The columns of an address, as placeholder keys: address_line_1..7 and the legacy postcode.
ADDRESS_KEYS = frozenset([normalise_key(f"address_line_{n}") for n in range(1, 8)] + ["postcode"])


def letter_texts(version: TemplateVersion) -> list[str]:
    """Every text a letter fills in: subject, body (both languages) and the contact block."""
    return [*version.content_texts(), contact_block_of(version) or ""]


def letter_notification(version: TemplateVersion, values: dict, **fields: object) -> Notification:
    """The row's letter; its address was checked at upload (validate_postal_address raises otherwise)."""
    address = validate_postal_address(values)
    contact_block = contact_block_of(version)
    rendered = render("letter", version.body, version.subject, values)
    to = "\n".join(address.lines)
    return Notification(
        id=uuid.uuid4(), notification_type="letter", to=to, normalised_to="".join(to.split()).lower(),
        body=rendered.body, subject=rendered.subject,
        reply_to_text=render("letter", contact_block, None, values).body if contact_block else None,
        personalisation=values, international=address.international,
        postage=address.postage_zone or version.postage or DEFAULT_POSTAGE,
        address={"lines": address.lines, "postcode": address.postcode, "country": address.country or DOMESTIC_COUNTRY},
        **fields,
    )
