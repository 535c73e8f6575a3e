"""Postal address validation for letters sent from the Netherlands.

The address comes from personalisation keys ``address_line_1``..``address_line_7`` plus the
legacy ``postcode`` key (taken as the last line). Its last line must be a real Dutch
postcode line ("1234 AB" or "1234 AB  AMSTERDAM") or the name of another country.
All problems are reported together, in a fixed order, so a sender can fix them in one go.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from pipeline.domain.errors import Refusal
from pipeline.domain.recipients.countries import NETHERLANDS, Country, find_country

MIN_LINES = 3
MAX_LINES = 7
REQUIRED_KEYS = ("address_line_1", "address_line_2", "address_line_3")
FORBIDDEN_FIRST_CHARACTERS = "@()=[]\u201d\\/,<>"  # \u201d is the closing curly double quote ”

NOT_ENOUGH_LINES = Refusal("address_too_few_lines", f"Address must be at least {MIN_LINES} lines",
                           {"limit": MIN_LINES})
TOO_MANY_LINES = Refusal("address_too_many_lines", f"Address must be no more than {MAX_LINES} lines",
                         {"limit": MAX_LINES})
FORBIDDEN_CHARACTERS = Refusal("address_forbidden_characters", "Address lines must not start with any of the "
                               "following characters: " + " ".join(FORBIDDEN_FIRST_CHARACTERS))
NOT_REAL_POSTCODE = Refusal("not_real_postcode", "Must be a real NL postcode")
NOT_POSTCODE_OR_COUNTRY = Refusal("not_postcode_or_country",
                                  "Last line of address must be a real NL postcode or another country")
BFPO_WITH_COUNTRY = Refusal("bfpo_with_country", "The last line of a BFPO address must not be a country.")
NOT_REAL_ADDRESS = Refusal("not_real_address", "Must be a real address")


def line_required(key: str) -> Refusal:
    """A line of the address the letter cannot do without, missing from its personalisation."""
    return Refusal("address_line_required", f"personalisation {key} is a required property", {"field": key})

# BFPO mail is handed to the UK's British Forces Post Office, so from NL it is Europe-zone mail.
BFPO_COUNTRY = "United Kingdom"
BFPO_POSTAGE_ZONE = "europe"

# Dutch postcode: 4 digits 1000-9999 then 2 letters, optionally followed by the town.
# An "NL-" prefix (older international style) and a hyphen or no space inside are tolerated.
_POSTCODE_LINE = re.compile(
    r"(?:NL[- ]?)?(?P<digits>\d{4})[ -]?(?P<letters>[A-Z]{2})(?:[ ,]+(?P<town>[^ ,].*))?", re.IGNORECASE
)
_EXCLUDED_LETTERS = {"SA", "SD", "SS"}  # never issued (wartime/political connotations)
# Lines that are clearly an attempt at a postcode, so "Must be a real NL postcode" is the
# helpful message: 4 digits as a first word ("0123 AB", "1234 A", "1234 Amsterdam"), or
# the whole line is digits + 2 letters with the wrong digit count ("123 AB", "12345AB").
_POSTCODE_ATTEMPTS = (
    re.compile(r"(?:NL[- ]?)?\d{4}(?:[ -]?[A-Z]{1,3})?(?:[ ,].*)?", re.IGNORECASE),
    re.compile(r"\d{3,5}[ -]?[A-Z]{2}", re.IGNORECASE),
)
_BFPO = re.compile(r"\bB\.?\s?F\.?\s?P\.?\s?O\b", re.IGNORECASE)
# No fixed abode: the phrases anywhere in a line, the abbreviations only as a whole line
# (so a company called "NFA Logistics" is not rejected). Matched on _plain() text.
_NO_FIXED_ABODE_PHRASES = re.compile(
    r"\bno fixed (abode|address|residence|home)\b"  # English
    r"|\b(zonder|geen) vaste? (woon|verblijf|adres)"  # zonder vaste woon- of verblijfplaats, geen vast adres
)
_NO_FIXED_ABODE_LINES = {"nfa", "n f a", "zvwo", "z v w o"}
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")


class AddressErrors(ValueError):
    """Every problem found in one address, as exact spec messages in a stable order."""

    def __init__(self, messages: list[Refusal]) -> None:
        super().__init__("; ".join(messages))
        self.messages = list(messages)


@dataclass(frozen=True)
class PostalAddress:
    lines: list[str]  # normalised lines (3..7); last is the postcode line or the country
    postcode: str | None  # "1234 AB" for NL, else None
    country: str | None  # None for NL, else the canonical English country name
    international: bool
    postage_zone: str | None  # None for NL (the template's postage applies), "europe" or "rest-of-world"
    is_bfpo: bool


def validate_postal_address(personalisation: Mapping[str, object]) -> PostalAddress:
    """Validate and normalise the address in a letter's personalisation; raise AddressErrors."""
    lines, missing = _address_lines(personalisation)
    messages = [line_required(key) for key in missing]

    is_bfpo = any(_BFPO.search(line) for line in lines)
    country = find_country(lines[-1]) if lines else None
    # "Nederland" as the last line just confirms NL: drop it, the postcode line is before it.
    ends_with_netherlands = country is not None and country.code == NETHERLANDS and not is_bfpo
    body = lines[:-1] if ends_with_netherlands else lines

    if len(body) < MIN_LINES:
        messages.append(NOT_ENOUGH_LINES)
    if len(body) > MAX_LINES:
        messages.append(TOO_MANY_LINES)
    if any(line[0] in FORBIDDEN_FIRST_CHARACTERS for line in lines):
        messages.append(FORBIDDEN_CHARACTERS)

    postcode_line: tuple[str, str] | None = None
    if is_bfpo:
        if country is not None:
            messages.append(BFPO_WITH_COUNTRY)
    elif country is not None and not ends_with_netherlands:
        pass  # international address; nothing more to check on the last line
    elif body:
        postcode_line = _parse_postcode_line(body[-1])
        if postcode_line is None:
            looks_like_postcode = ends_with_netherlands or any(p.fullmatch(body[-1]) for p in _POSTCODE_ATTEMPTS)
            messages.append(NOT_REAL_POSTCODE if looks_like_postcode else NOT_POSTCODE_OR_COUNTRY)

    if any(_is_no_fixed_abode(line) for line in lines):
        messages.append(NOT_REAL_ADDRESS)

    if messages:
        raise AddressErrors(list(dict.fromkeys(messages)))  # each once, first-seen order

    if is_bfpo:
        return PostalAddress(lines, None, BFPO_COUNTRY, True, BFPO_POSTAGE_ZONE, True)
    if postcode_line is None:
        assert country is not None  # an international address is the only other way through
        return _international(lines, country)
    postcode, normalised_line = postcode_line
    return PostalAddress(body[:-1] + [normalised_line], postcode, None, False, None, False)


def _international(lines: list[str], country: Country) -> PostalAddress:
    zone = "europe" if country.europe else "rest-of-world"
    return PostalAddress(lines[:-1] + [country.name], None, country.name, True, zone, False)


def _address_lines(personalisation: Mapping[str, object]) -> tuple[list[str], list[str]]:
    """Return (non-blank normalised lines in order, required keys that are absent or null)."""
    slots: dict[str, object] = {}
    for key, value in personalisation.items():
        slot = _slot(key)
        if slot is None:
            continue
        # "address_line_1" spelt exactly wins over a variant spelling ("Address Line 1");
        # among variants the first one in the mapping wins.
        if key == slot:
            slots[slot] = value
        elif slot not in slots:
            slots[slot] = value

    required: tuple[str, ...] = REQUIRED_KEYS
    if slots.get("postcode") is not None:
        # Legacy callers send address_line_1, address_line_2 and postcode: the postcode
        # key stands in for the third required line so those requests keep working.
        required = REQUIRED_KEYS[:-1]
    missing = [key for key in required if slots.get(key) is None]
    ordered = [slots.get(f"address_line_{n}") for n in range(1, MAX_LINES + 1)] + [slots.get("postcode")]
    lines = [_normalise_line(value) for value in ordered if value is not None]
    return [line for line in lines if line], missing


def _slot(key: object) -> str | None:
    """Canonical key for an address key compared ignoring case, spaces, "_" and "-"."""
    if not isinstance(key, str):
        return None
    compact = re.sub(r"[\s_-]+", "", key).lower()
    if compact == "postcode":
        return "postcode"
    match = re.fullmatch(r"addressline([1-7])", compact)
    return f"address_line_{match.group(1)}" if match else None


def _normalise_line(value: object) -> str:
    # One key is one line: inner newlines and runs of whitespace become single spaces;
    # trailing commas (a habit from writing addresses on one line) are dropped.
    return " ".join(_INVISIBLE.sub("", str(value)).split()).rstrip(" ,")


def _parse_postcode_line(line: str) -> tuple[str, str] | None:
    """(postcode, normalised line) for a real Dutch postcode line, else None."""
    match = _POSTCODE_LINE.fullmatch(line)
    if not match:
        return None
    digits, letters = match["digits"], match["letters"].upper()
    if digits[0] == "0" or letters in _EXCLUDED_LETTERS:
        return None
    postcode = f"{digits} {letters}"
    town = match["town"]
    # PostNL: two spaces between postcode and town, town in capitals
    return postcode, f"{postcode}  {town.upper()}" if town else postcode


def _plain(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(character for character in text if not unicodedata.combining(character))
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text).split())


def _is_no_fixed_abode(line: str) -> bool:
    plain = _plain(line)
    return plain in _NO_FIXED_ABODE_LINES or bool(_NO_FIXED_ABODE_PHRASES.search(plain))
