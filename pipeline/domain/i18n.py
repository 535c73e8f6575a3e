"""The language a service speaks to its recipients: gettext catalogues and Babel formatting.

Catalogues are the .po files under translations/ (source strings in English, one catalogue per
language); they are compiled in memory on first use, so no build step or binary .mo file is needed.
Dates and numbers are formatted by Babel for the language's locale ("23 november 2026").
"""
from __future__ import annotations

import datetime
import functools
import io
from pathlib import Path

from babel.dates import format_date as babel_format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations
from markupsafe import Markup

DUTCH, ENGLISH = "nl", "en"
# A service that chose no language speaks Dutch. models/appearance.py stores the same default: the models
# sit above this floor and may not be imported here (tests/test_layers.py holds the two equal).
DEFAULT_LANGUAGE = DUTCH
LANGUAGES = (DUTCH, ENGLISH)
# Babel's plain "en" is American ("November 23, 2026"); recipients here expect the British order.
LOCALES = {DUTCH: "nl_NL", ENGLISH: "en_GB"}
TRANSLATIONS_DIR = Path(__file__).parent / "translations"
DOMAIN = "messages"


@functools.cache
def translations(language: str) -> Translations:
    """The compiled catalogue of one language (English source strings stand for themselves)."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language: {language!r}")
    with open(TRANSLATIONS_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po", "rb") as po:
        catalog = read_po(po, locale=LOCALES[language], domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


class Translator:
    """gettext for one language, plus its date and number formats."""

    def __init__(self, language: str | None) -> None:
        self.language = language if language in LANGUAGES else DEFAULT_LANGUAGE
        self.locale = LOCALES[self.language]
        self._catalogue = translations(self.language)

    def gettext(self, message: str, **values: object) -> str:
        """The translation of ``message`` with ``%(name)s`` values filled in (plain text)."""
        text = self._catalogue.gettext(message)
        return text % values if values else text

    def markup(self, message: str, **values: object) -> Markup:
        """For HTML templates: the catalogue is trusted, the values are escaped."""
        text = Markup(self._catalogue.gettext(message))
        return text % values if values else text

    def date(self, value: datetime.date) -> str:
        """'23 november 2026' / '23 November 2026'."""
        return babel_format_date(value, format="long", locale=self.locale)

    def decimal(self, value: float, pattern: str = "#,##0.#") -> str:
        return format_decimal(value, format=pattern, locale=self.locale)

    def file_size(self, size: int) -> str:
        if size < 1024:
            return self.gettext("%(count)s bytes", count=size)
        if size < 1024 * 1024:
            return f"{self.decimal(size / 1024, '#,##0' if size >= 10 * 1024 else '#,##0.0')} KB"
        return f"{self.decimal(size / 1024 / 1024, '#,##0.0')} MB"

    def jinja_context(self) -> dict[str, object]:
        """What a jinja template needs: ``_`` (escaping values), the language and the date format."""
        return {"_": self.markup, "lang": self.language, "format_date": self.date}


def translator(language: str | None) -> Translator:
    return Translator(language)


def N_(message: str) -> str:  # noqa: N802 (gettext's conventional name)
    """Marks a string for the catalogue where it is defined; it is translated where it is shown."""
    return message
