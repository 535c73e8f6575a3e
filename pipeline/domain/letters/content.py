"""A letter from a template as the API's letters and a job's rows both make it: the texts its
placeholders come from, its text and contact block filled in, its postage and its stored address."""
from __future__ import annotations

from typing import Any, Protocol

from pipeline.domain.recipients import PostalAddress
from pipeline.domain.rendering import Rendered, normalise_key, render

DEFAULT_POSTAGE = "second"
DOMESTIC_COUNTRY = "Netherlands"
# The columns of an address, as placeholder keys: address_line_1..7 and the legacy postcode.
ADDRESS_KEYS = frozenset([normalise_key(f"address_line_{n}") for n in range(1, 8)] + ["postcode"])


class LetterVersion(Protocol):
    """What a letter reads of its template version (a stored one is models.template's)."""

    @property
    def subject(self) -> str | None: ...
    @property
    def body(self) -> str: ...
    @property
    def postage(self) -> str | None: ...
    def content_texts(self) -> list[str]: ...


def letter_texts(version: LetterVersion, contact_block: str | None) -> list[str]:
    """Every text a letter fills in: subject, body (both languages) and the contact block it prints
    (the version's own, models.template.contact_block_of, or one of the service's a send names)."""
    return [*version.content_texts(), contact_block or ""]


def filled_letter(version: LetterVersion, contact_block: str | None, values: dict) -> tuple[Rendered, str | None]:
    """The letter's text and its contact block, filled in with values."""
    rendered = render("letter", version.body, version.subject, values)
    return rendered, (render("letter", contact_block, None, values).body if contact_block else None)


def postage_of(address: PostalAddress, version: LetterVersion) -> str:
    # International mail is charged by zone; Dutch mail goes at the template's class.
    return address.postage_zone or version.postage or DEFAULT_POSTAGE


def address_json(address: PostalAddress) -> dict[str, Any]:
    """The address as a notification stores it, for printing and the returned-letters report."""
    return {"lines": address.lines, "postcode": address.postcode, "country": address.country or DOMESTIC_COUNTRY}
