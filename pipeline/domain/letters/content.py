"""A letter from a template as the API's letters and a job's rows both make it: the texts its
placeholders come from, its text and contact block filled in, its postage and its stored address."""
from __future__ import annotations

from typing import Any

from models.template import TemplateVersion, contact_block_of
from pipeline.domain.recipients import PostalAddress
from pipeline.domain.rendering import Rendered, normalise_key, render

DEFAULT_POSTAGE = "second"
DOMESTIC_COUNTRY = "Netherlands"
# The columns of an address, as placeholder keys: address_line_1..7 and the legacy postcode.
ADDRESS_KEYS = frozenset([normalise_key(f"address_line_{n}") for n in range(1, 8)] + ["postcode"])


def letter_texts(version: TemplateVersion, contact_block: str | None = None) -> list[str]:
    """Every text a letter fills in: subject, body (both languages) and the contact block, the
    version's own unless another is given (a send may name one of the service's contact blocks)."""
    block = contact_block if contact_block is not None else contact_block_of(version)
    return [*version.content_texts(), block or ""]


def filled_letter(version: TemplateVersion, contact_block: str | None, values: dict) -> tuple[Rendered, str | None]:
    """The letter's text and its contact block, filled in with values."""
    rendered = render("letter", version.body, version.subject, values)
    return rendered, (render("letter", contact_block, None, values).body if contact_block else None)


def postage_of(address: PostalAddress, version: TemplateVersion) -> str:
    # International mail is charged by zone; Dutch mail goes at the template's class.
    return address.postage_zone or version.postage or DEFAULT_POSTAGE


def address_json(address: PostalAddress) -> dict[str, Any]:
    """The address as a notification stores it, for printing and the returned-letters report."""
    return {"lines": address.lines, "postcode": address.postcode, "country": address.country or DOMESTIC_COUNTRY}
