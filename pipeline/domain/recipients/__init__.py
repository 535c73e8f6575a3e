"""Pure validation of message recipients: NL mobile numbers, email addresses, postal addresses.

Nothing here touches the database or the network; the HTTP layer turns the
exceptions below into ValidationError responses by prefixing the field name
(``phone_number`` / ``email_address``); address messages are used as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.domain.errors import Refusal


class InvalidRecipient(ValueError):
    """A phone number or email address failed validation.

    ``message`` is the exact spec text without the field prefix, e.g. "Too many digits"; its
    ``about(field)`` is the refusal with the prefix.
    """

    def __init__(self, message: Refusal) -> None:
        super().__init__(message)
        self.message = message


# The submodules import InvalidRecipient from this package, so it must be defined
# before they are imported (hence the imports below the class, not at the top).
from pipeline.domain.recipients.email_address import (  # noqa: E402
    format_email_for_comparison,
    validate_email_address,
)
from pipeline.domain.recipients.phone import (  # noqa: E402
    PhoneNumber,
    format_phone_for_comparison,
    validate_phone_number,
    written_phone_number,
)
from pipeline.domain.recipients.postal_address import (  # noqa: E402
    AddressErrors,
    PostalAddress,
    validate_postal_address,
)


@dataclass(frozen=True)
class Recipient:
    """An sms or email recipient as given and as we send to it, with what an sms number costs."""
    raw: str
    normalised: str
    international: bool = False
    prefix: str | None = None
    rate_multiplier: int | None = None


def recipient_of(channel: str, raw: str) -> Recipient:
    """An sms or email recipient checked as the API checks it (one rule for API sends and spreadsheet
    rows); raises InvalidRecipient."""
    if channel == "sms":
        number = validate_phone_number(raw)
        return Recipient(raw, number.e164, number.international, number.country_prefix, number.rate_multiplier)
    return Recipient(raw, validate_email_address(raw))


def written_recipient(channel: str, to: str | None, one_line: bool = True) -> str:
    """A message's recipient as a person reads it wherever it is shown: a text's number as
    written_phone_number writes it, an email address as given, a letter's address lines as printed. On
    one line (a list, a spreadsheet cell) the lines are joined by commas, each with single spaces: the
    two spaces PostNL asks for between the postcode and the town belong on the envelope, where the
    postcode line stands alone; between commas they read as a typing error."""
    if not to:
        return ""
    if channel == "sms":
        return written_phone_number(to)
    if channel == "letter" and one_line:
        return ", ".join(" ".join(line.split()) for line in to.splitlines() if line.strip())
    return to


__all__ = [
    "AddressErrors",
    "InvalidRecipient",
    "PhoneNumber",
    "PostalAddress",
    "Recipient",
    "format_email_for_comparison",
    "format_phone_for_comparison",
    "recipient_of",
    "validate_email_address",
    "validate_phone_number",
    "validate_postal_address",
    "written_phone_number",
    "written_recipient",
]
