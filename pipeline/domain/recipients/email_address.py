"""Email address validation: email_validator's syntax rules plus a few stricter checks."""

from __future__ import annotations

import re

from email_validator import EmailNotValidError, validate_email

from pipeline.domain.errors import Refusal
from pipeline.domain.recipients import InvalidRecipient

NOT_VALID_EMAIL = Refusal("not_valid_email", "Not a valid email address")

# Characters stripped from both ends: copy-pasting from documents and spreadsheets
# brings along non-breaking and zero-width spaces that str.strip() does not remove.
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff"
# A top-level domain is letters only (no digits, no hyphen, at least 2 characters)
# or an IDNA "xn--" label; email_validator alone accepts "a@example.c" and "a@b.c-d".
_TLD = re.compile(r"(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})")


def validate_email_address(raw: str) -> str:
    """Return the address with surrounding whitespace stripped; raise InvalidRecipient if invalid."""
    address = _strip(raw)
    if not address or any(character.isspace() for character in address) or ".." in address:
        raise InvalidRecipient(NOT_VALID_EMAIL)
    try:
        result = validate_email(
            address,
            check_deliverability=False,  # no DNS lookups: validation must stay pure and fast
            # ASCII local parts only: an internationalised local part needs SMTPUTF8 on
            # every relay on the way, which we cannot promise (unicode domains are fine,
            # they are sent in their IDNA form).
            allow_smtputf8=False,
        )
    except EmailNotValidError:
        raise InvalidRecipient(NOT_VALID_EMAIL) from None
    if "." not in result.ascii_domain or not _TLD.fullmatch(result.ascii_domain.rsplit(".", 1)[-1].lower()):
        raise InvalidRecipient(NOT_VALID_EMAIL)
    return address


def format_email_for_comparison(raw: str) -> str:
    """Lower-cased stripped address, for matching team members and the guest list."""
    return _strip(raw).lower()


def _strip(raw: str) -> str:
    return str(raw).strip().strip(_INVISIBLE).strip()
