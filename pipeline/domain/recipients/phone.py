"""Mobile number validation for a service whose country of operation is the Netherlands.

Dutch numbers are checked by digit count (a Dutch mobile is ``6`` + 8 digits after the
national ``0`` or the ``31`` country code), because that gives the precise spec
messages. Every other number is international and is checked with ``phonenumbers``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import phonenumbers
from phonenumbers import NumberParseException, ValidationResult

from pipeline.domain.errors import Refusal
from pipeline.domain.recipients import InvalidRecipient

TOO_MANY_DIGITS = Refusal("too_many_digits", "Too many digits")
NOT_ENOUGH_DIGITS = Refusal("not_enough_digits", "Not enough digits")
NOT_NL_MOBILE = Refusal("not_nl_mobile", "Not a NL mobile number")
LETTERS_OR_SYMBOLS = Refusal("letters_or_symbols", "Must not contain letters or symbols")
INVALID_COUNTRY_PREFIX = Refusal("invalid_country_prefix", "Not a valid country prefix")

NL_PREFIX = "31"
NL_MOBILE_LENGTH = 9  # national significant number: "6" + 8 digits

# Price of one text-message fragment relative to a Dutch one, per country calling code.
# NL is 1; the other EU/EEA countries are 2 (EU roaming/termination regulation keeps
# them cheap); everything else is DEFAULT_RATE_MULTIPLIER. Keyed by calling code, so
# shared codes (e.g. 47 = Norway + Svalbard) take the rate of the main country.
DEFAULT_RATE_MULTIPLIER = 3
RATE_MULTIPLIERS: dict[str, int] = {
    "31": 1,  # Netherlands
    **dict.fromkeys(
        [
            "30",  # Greece
            "32",  # Belgium
            "33",  # France
            "34",  # Spain
            "351",  # Portugal
            "352",  # Luxembourg
            "353",  # Ireland
            "354",  # Iceland (EEA)
            "356",  # Malta
            "357",  # Cyprus
            "358",  # Finland
            "359",  # Bulgaria
            "36",  # Hungary
            "370",  # Lithuania
            "371",  # Latvia
            "372",  # Estonia
            "385",  # Croatia
            "386",  # Slovenia
            "39",  # Italy
            "40",  # Romania
            "420",  # Czechia
            "421",  # Slovakia
            "423",  # Liechtenstein (EEA)
            "43",  # Austria
            "45",  # Denmark
            "46",  # Sweden
            "47",  # Norway (EEA)
            "48",  # Poland
            "49",  # Germany
        ],
        2,
    ),
}

# Separators people type in phone numbers; everything else except digits and a
# leading "+" is "letters or symbols". Includes the non-breaking and zero-width
# spaces that copy-pasting from documents and spreadsheets brings along.
_SEPARATORS = re.compile(r"[\s()\-.\u200b\u200c\u200d\u2060\ufeff]")
_CLEANED = re.compile(r"\+?[0-9]*")


@dataclass(frozen=True)
class PhoneNumber:
    e164: str  # "+31612345678"
    international: bool  # True when not an NL number
    country_prefix: str  # calling code without "+": "31", "44", ...
    rate_multiplier: int  # see RATE_MULTIPLIERS


def validate_phone_number(raw: str) -> PhoneNumber:
    """Validate a mobile number in any usual spelling; raise InvalidRecipient with the spec message."""
    digits, has_international_prefix = _clean(raw)
    if has_international_prefix:
        if digits.startswith(NL_PREFIX):
            return _validate_nl(digits[len(NL_PREFIX):])
        return _validate_international(digits)
    if digits.startswith("0") or digits == "":
        return _validate_nl(digits[1:])
    if digits.startswith(NL_PREFIX):
        # "31612345678": the country code typed without + or 00
        return _validate_nl(digits[len(NL_PREFIX):])
    # Any other number without a trunk 0 can only be read as a calling code + number.
    return _validate_international(digits)


def written_phone_number(raw: str) -> str:
    """The one way a phone number is written for a person, on the console's pages, in its downloads and in
    the platform's emails: a Dutch number as the Dutch government writes it, nationally ("06 12345678",
    "020 123 4567"), any other in international format with spaces ("+32 470 12 34 56"), so a number
    typed as 0612345678, +31 6 1234 5678 or 0031612345678 reads the same everywhere. Anything that is no
    phone number (a sender name, a number too short) is shown as given, its spaces made single."""
    as_given = " ".join(str(raw).split())
    try:
        number = phonenumbers.parse(_international_form(raw), None)
    except (InvalidRecipient, NumberParseException):
        return as_given
    if not phonenumbers.is_possible_number(number):
        return as_given
    style = phonenumbers.PhoneNumberFormat.NATIONAL if number.country_code == int(NL_PREFIX) \
        else phonenumbers.PhoneNumberFormat.INTERNATIONAL
    return phonenumbers.format_number(number, style)


def _international_form(raw: str) -> str:
    """"+<digits>" for a number in any usual spelling: a mobile as the API reads it, any other number (a
    landline, a gateway's inbound number "3197010000001") by its trunk 0 or calling code."""
    try:
        return validate_phone_number(raw).e164
    except InvalidRecipient:
        digits, international = _clean(raw)
    if not international and digits.startswith("0"):
        return f"+{NL_PREFIX}{digits[1:]}"
    return f"+{digits}"


def format_phone_for_comparison(raw: str) -> str:
    """E.164 form for matching team members / guest list; the stripped input when invalid."""
    try:
        return validate_phone_number(raw).e164
    except InvalidRecipient:
        return raw.strip()


def _clean(raw: str) -> tuple[str, bool]:
    """Return (digits, has_international_prefix) or raise for letters and symbols."""
    cleaned = _SEPARATORS.sub("", str(raw))
    if not _CLEANED.fullmatch(cleaned):
        # letters, other symbols, a "+" that is not at the start, or non-ASCII digits
        raise InvalidRecipient(LETTERS_OR_SYMBOLS)
    if cleaned.startswith("+"):
        return cleaned[1:], True
    if cleaned.startswith("00"):
        return cleaned[2:], True
    return cleaned, False


def _validate_nl(national: str) -> PhoneNumber:
    # "+31 (0)6 ..." and "0031 06 ...": the trunk 0 written after the country code is dropped
    if national.startswith("0"):
        national = national[1:]
    if national and not national.startswith("6"):
        raise InvalidRecipient(NOT_NL_MOBILE)
    if len(national) > NL_MOBILE_LENGTH:
        raise InvalidRecipient(TOO_MANY_DIGITS)
    if len(national) < NL_MOBILE_LENGTH:
        raise InvalidRecipient(NOT_ENOUGH_DIGITS)
    return PhoneNumber(
        e164=f"+{NL_PREFIX}{national}",
        international=False,
        country_prefix=NL_PREFIX,
        rate_multiplier=RATE_MULTIPLIERS[NL_PREFIX],
    )


def _validate_international(digits: str) -> PhoneNumber:
    try:
        number = phonenumbers.parse(f"+{digits}", None)
    except NumberParseException as error:
        if error.error_type == NumberParseException.INVALID_COUNTRY_CODE:
            raise InvalidRecipient(INVALID_COUNTRY_PREFIX) from None
        if error.error_type == NumberParseException.TOO_LONG:
            raise InvalidRecipient(TOO_MANY_DIGITS) from None
        # NOT_A_NUMBER (e.g. "+44" alone), TOO_SHORT_NSN, TOO_SHORT_AFTER_IDD
        raise InvalidRecipient(NOT_ENOUGH_DIGITS) from None

    reason = phonenumbers.is_possible_number_with_reason(number)
    if reason == ValidationResult.INVALID_COUNTRY_CODE:
        raise InvalidRecipient(INVALID_COUNTRY_PREFIX)
    if reason == ValidationResult.TOO_LONG:
        raise InvalidRecipient(TOO_MANY_DIGITS)
    if reason != ValidationResult.IS_POSSIBLE:
        # TOO_SHORT; INVALID_LENGTH (between two allowed lengths, so a digit is missing);
        # IS_POSSIBLE_LOCAL_ONLY (the area code is missing)
        raise InvalidRecipient(NOT_ENOUGH_DIGITS)
    if not phonenumbers.is_valid_number(number):
        raise InvalidRecipient(_why_invalid(digits))

    prefix = str(number.country_code)
    return PhoneNumber(
        e164=phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164),
        international=True,
        country_prefix=prefix,
        rate_multiplier=RATE_MULTIPLIERS.get(prefix, DEFAULT_RATE_MULTIPLIER),
    )


def _why_invalid(digits: str) -> Refusal:
    """Message for a number of a possible length that is still not valid.

    Possible lengths are per country, not per range, so a UK mobile one digit short
    (10 digits) passes the length check. If one more digit would make it valid it is
    "Not enough digits"; if one fewer would, "Too many digits". Otherwise the leading
    digits after the country code are not an allocated range (e.g. +44 7700 900xxx,
    reserved for drama): the prefix is what is wrong, so "Not a valid country prefix".
    """
    if any(_is_valid(f"+{digits}{extra}") for extra in "0123456789"):
        return NOT_ENOUGH_DIGITS
    if _is_valid(f"+{digits[:-1]}"):
        return TOO_MANY_DIGITS
    return INVALID_COUNTRY_PREFIX


def _is_valid(candidate: str) -> bool:
    try:
        return phonenumbers.is_valid_number(phonenumbers.parse(candidate, None))
    except NumberParseException:
        return False
