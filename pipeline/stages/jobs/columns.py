"""The columns a spreadsheet needs for a template, and the names they go by in Dutch and English.

A column is known by its canonical name (the API field in words: "phone number", "email address", a
letter's "address line 1" .. "address line 7" and "postcode"); a file may head it with any of its
names in either language, matched like placeholder names (case, spaces, '_' and '-' ignored). A page
shows a column in its reader's language. A placeholder's column is named as the template writes it.
"""
from __future__ import annotations

from dataclasses import dataclass

from models.template import TemplateVersion, contact_block_of
from pipeline.domain.letters.content import letter_texts
from pipeline.domain.rendering import normalise_key, placeholder_names
from pipeline.domain.rendering.address_names import SPEC_NAMES, shown_name, spec_name

PHONE, EMAIL = "phone number", "email address"
# Every name a recipient column may be headed with; the first of each language is the one shown.
RECIPIENT_NAMES: dict[str, dict[str, tuple[str, ...]]] = {
    PHONE: {"en": ("phone number", "mobile number", "mobile"),
            "nl": ("telefoonnummer", "mobiel nummer", "mobiele nummer", "mobielnummer", "mobiel")},
    EMAIL: {"en": ("email address", "email", "e-mail address"),
            "nl": ("e-mailadres", "e-mail", "emailadres")},
}
ADDRESS_COLUMNS = tuple(name.replace("_", " ") for name in SPEC_NAMES)  # "address line 1" .. "postcode"
RECIPIENT_COLUMN = {"sms": PHONE, "email": EMAIL, "letter": ADDRESS_COLUMNS[0]}
# A letter's address needs its first two lines and a third, or the postcode (as the API's address does).
REQUIRED_ADDRESS = ADDRESS_COLUMNS[:2]
THIRD_LINE = (ADDRESS_COLUMNS[2], ADDRESS_COLUMNS[-1])


def _keys(column: str) -> set[str]:
    names = RECIPIENT_NAMES.get(column)
    if names is None:
        return {normalise_key(column)}
    return {normalise_key(name) for language in names.values() for name in language}


def shown(column: str, language: str) -> str:
    """A column's name as the reader's language writes it; a placeholder's as the template does."""
    if column in RECIPIENT_NAMES:
        return RECIPIENT_NAMES[column].get(language, RECIPIENT_NAMES[column]["en"])[0]
    if column in ADDRESS_COLUMNS:
        return shown_name(SPEC_NAMES[ADDRESS_COLUMNS.index(column)], language)
    return column


def other_names(column: str, language: str) -> list[str]:
    """The names besides the shown one a file may head a column with, the reader's language first."""
    names = RECIPIENT_NAMES.get(column, {})
    ordered = [*names.get(language, ()), *(name for other, kept in names.items() if other != language for name in kept)]
    return [name for name in ordered if name != shown(column, language)]


def find_column(header: list[str], column: str) -> int | None:
    """The index of the file's column for a canonical column (any of its names), or None."""
    keys = _keys(column)
    return next((i for i, name in enumerate(header) if normalise_key(name) in keys), None)


def _names(version: TemplateVersion) -> list[str]:
    channel = version.template.template_type
    if channel == "letter":
        return placeholder_names(*letter_texts(version, contact_block_of(version)))
    return placeholder_names(version.subject or "", version.body)


def placeholder_columns(version: TemplateVersion) -> list[str]:
    """The template's placeholders that need a column of their own, as written (a letter's address
    names are its address columns)."""
    names = _names(version)
    return [name for name in names if version.template.template_type != "letter" or spec_name(name) is None]


def _address_columns(version: TemplateVersion) -> list[str]:
    """A letter's address columns: its first three lines, and any further line or the postcode its text repeats."""
    used = {spec_name(name) for name in _names(version)}
    return [column for n, column in enumerate(ADDRESS_COLUMNS) if n < 3 or SPEC_NAMES[n] in used]


@dataclass(frozen=True)
class Columns:
    recipient: list[str]  # canonical names: the phone number, the email address or three address lines
    placeholders: list[str]  # as the template writes them

    def shown(self, language: str) -> list[str]:
        return [shown(name, language) for name in self.recipient + self.placeholders]


def template_columns(version: TemplateVersion) -> Columns:
    """The columns a file for this template has: what the example file holds and the upload page lists."""
    channel = version.template.template_type
    recipient = _address_columns(version) if channel == "letter" else [RECIPIENT_COLUMN[channel]]
    return Columns(recipient, placeholder_columns(version))


@dataclass(frozen=True)
class Needed:
    """A column a file for the template must have; `instead` is a column that may stand for it."""
    column: str  # canonical name
    instead: str | None = None


def needed_columns(version: TemplateVersion) -> list[Needed]:
    """What the upload page says a file needs and what the upload refuses a file without: one list. A
    letter needs its first two address lines, and the third or the postcode standing for it (the API's
    legacy address), besides any line its text repeats; the rows' addresses are then checked as the API
    checks one (3 to 7 lines, the last a postcode and town or a country)."""
    channel = version.template.template_type
    if channel == "letter":
        extra = _address_columns(version)[3:]  # lines the text repeats, or the postcode
        third = [] if THIRD_LINE[1] in extra else [Needed(THIRD_LINE[0], instead=THIRD_LINE[1])]
        recipient = [*(Needed(name) for name in REQUIRED_ADDRESS), *third, *(Needed(name) for name in extra)]
    else:
        recipient = [Needed(RECIPIENT_COLUMN[channel])]
    return [*recipient, *(Needed(name) for name in placeholder_columns(version))]


def missing_columns(header: list[str], version: TemplateVersion) -> list[str]:
    """Every column the file lacks, in the order the template's columns are listed (canonical names)."""
    def has(column: str) -> bool:
        return find_column(header, column) is not None

    return [need.column for need in needed_columns(version)
            if not has(need.column) and not (need.instead and has(need.instead))]
