"""Country names for the last line of a postal address: English (pycountry), Dutch and variants.

``find_country`` answers "is this address line the name of a country, and which one?".
Names compare case-insensitively with accents, dots, apostrophes and a leading "the"
ignored ("U.K.", "the Netherlands", "Belgie", "Cote d'Ivoire" all match).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import pycountry

NETHERLANDS = "NL"


@dataclass(frozen=True)
class Country:
    code: str  # ISO 3166-1 alpha-2 ("XK" for Kosovo, which ISO has not assigned)
    name: str  # canonical English name, the form printed on international letters
    europe: bool  # True: "europe" postage zone; False: "rest-of-world"


# Canonical English names where pycountry's name (or common_name) is an inverted list
# form ("Congo, The Democratic Republic of the") that does not belong on an envelope.
CANONICAL_NAME_OVERRIDES: dict[str, str] = {
    "BN": "Brunei",
    "CD": "Democratic Republic of the Congo",
    "FK": "Falkland Islands",
    "FM": "Micronesia",
    "MF": "Saint Martin",
    "PS": "Palestine",
    "RU": "Russia",
    "SX": "Sint Maarten",
    "VA": "Vatican City",
    "VG": "British Virgin Islands",
    "VI": "United States Virgin Islands",
}

# Countries ISO 3166-1 does not list but post offices deliver to.
EXTRA_COUNTRIES: dict[str, str] = {"XK": "Kosovo"}

# The "europe" postage zone: EU and EEA members plus the rest of geographic Europe
# (UK, Switzerland, the Balkans, Belarus, Ukraine, Moldova, Russia, Turkey), the
# microstates and the European dependencies. Everything else is "rest-of-world",
# including the Caribbean parts of the Kingdom (Aruba, Curacao, Sint Maarten, BES).
EUROPE: frozenset[str] = frozenset(
    """
    AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE
    IS LI NO
    AD AL AX BA BY CH FO GB GG GI GL IM JE MC MD ME MK RS RU SJ SM TR UA VA XK
    """.split()
)

# Dutch names (and Dutch spelling variants) for every European country and the
# countries Dutch senders most often write to. Accents are optional when matching,
# so "Belgie" needs no separate entry.
DUTCH_NAMES: dict[str, list[str]] = {
    # Europe
    "AD": ["Andorra"],
    "AL": ["Albanië"],
    "AT": ["Oostenrijk"],
    "AX": ["Ålandeilanden", "Åland"],
    "BA": ["Bosnië en Herzegovina", "Bosnië-Herzegovina", "Bosnië"],
    "BE": ["België"],
    "BG": ["Bulgarije"],
    "BY": ["Wit-Rusland", "Belarus"],
    "CH": ["Zwitserland"],
    "CY": ["Cyprus"],
    "CZ": ["Tsjechië", "Tsjechische Republiek"],
    "DE": ["Duitsland", "Bondsrepubliek Duitsland"],
    "DK": ["Denemarken"],
    "EE": ["Estland"],
    "ES": ["Spanje"],
    "FI": ["Finland"],
    "FO": ["Faeröer", "Faeröereilanden", "Faerøer"],
    "FR": ["Frankrijk"],
    "GB": ["Verenigd Koninkrijk", "Groot-Brittannië", "Engeland", "Schotland", "Noord-Ierland"],
    "GG": ["Guernsey"],
    "GI": ["Gibraltar"],
    "GL": ["Groenland"],
    "GR": ["Griekenland"],
    "HR": ["Kroatië"],
    "HU": ["Hongarije"],
    "IE": ["Ierland"],
    "IM": ["Eiland Man"],
    "IS": ["IJsland"],
    "IT": ["Italië"],
    "JE": ["Jersey"],
    "LI": ["Liechtenstein"],
    "LT": ["Litouwen"],
    "LU": ["Luxemburg", "Groothertogdom Luxemburg"],
    "LV": ["Letland"],
    "MC": ["Monaco"],
    "MD": ["Moldavië", "Republiek Moldavië"],
    "ME": ["Montenegro"],
    "MK": ["Noord-Macedonië", "Macedonië"],
    "MT": ["Malta"],
    "NL": ["Nederland", "Koninkrijk der Nederlanden", "Holland"],
    "NO": ["Noorwegen"],
    "PL": ["Polen"],
    "PT": ["Portugal"],
    "RO": ["Roemenië"],
    "RS": ["Servië"],
    "RU": ["Rusland", "Russische Federatie"],
    "SE": ["Zweden"],
    "SI": ["Slovenië"],
    "SJ": ["Spitsbergen", "Svalbard en Jan Mayen"],
    "SK": ["Slowakije"],
    "SM": ["San Marino"],
    "TR": ["Turkije"],
    "UA": ["Oekraïne"],
    "VA": ["Vaticaanstad", "Heilige Stoel"],
    "XK": ["Kosovo"],
    # Caucasus and Central Asia
    "AM": ["Armenië"],
    "AZ": ["Azerbeidzjan"],
    "GE": ["Georgië"],
    "KG": ["Kirgizië", "Kirgizstan"],
    "KZ": ["Kazachstan"],
    "TJ": ["Tadzjikistan"],
    "TM": ["Turkmenistan"],
    "UZ": ["Oezbekistan"],
    # Americas and the Caribbean
    "AR": ["Argentinië"],
    "AW": ["Aruba"],
    "BQ": ["Caribisch Nederland", "Bonaire", "Sint Eustatius", "Saba"],
    "BR": ["Brazilië"],
    "CA": ["Canada"],
    "CL": ["Chili"],
    "CO": ["Colombia"],
    "CU": ["Cuba"],
    "CW": ["Curaçao"],
    "DO": ["Dominicaanse Republiek"],
    "EC": ["Ecuador"],
    "JM": ["Jamaica"],
    "MX": ["Mexico"],
    "PE": ["Peru"],
    "SR": ["Suriname"],
    "SX": ["Sint-Maarten"],
    "US": ["Verenigde Staten", "Verenigde Staten van Amerika", "Amerika"],
    "UY": ["Uruguay"],
    "VE": ["Venezuela"],
    # Asia and Oceania
    "AF": ["Afghanistan"],
    "AU": ["Australië"],
    "BD": ["Bangladesh"],
    "CN": ["China", "Volksrepubliek China"],
    "HK": ["Hongkong"],
    "ID": ["Indonesië"],
    "IN": ["India"],
    "JP": ["Japan"],
    "KP": ["Noord-Korea"],
    "KR": ["Zuid-Korea"],
    "LK": ["Sri Lanka"],
    "MN": ["Mongolië"],
    "MY": ["Maleisië"],
    "NP": ["Nepal"],
    "NZ": ["Nieuw-Zeeland"],
    "PH": ["Filipijnen"],
    "PK": ["Pakistan"],
    "SG": ["Singapore"],
    "TH": ["Thailand"],
    "TW": ["Taiwan"],
    "VN": ["Vietnam"],
    # Middle East
    "AE": ["Verenigde Arabische Emiraten"],
    "BH": ["Bahrein"],
    "IL": ["Israël"],
    "IQ": ["Irak"],
    "IR": ["Iran"],
    "JO": ["Jordanië"],
    "KW": ["Koeweit"],
    "LB": ["Libanon"],
    "OM": ["Oman"],
    "PS": ["Palestina", "Palestijnse Gebieden"],
    "QA": ["Qatar"],
    "SA": ["Saoedi-Arabië"],
    "SY": ["Syrië"],
    "YE": ["Jemen"],
    # Africa
    "AO": ["Angola"],
    "CD": ["Democratische Republiek Congo", "Congo-Kinshasa"],
    "CG": ["Republiek Congo", "Congo-Brazzaville"],
    "CI": ["Ivoorkust"],
    "CM": ["Kameroen"],
    "CV": ["Kaapverdië"],
    "DZ": ["Algerije"],
    "EG": ["Egypte"],
    "ER": ["Eritrea"],
    "ET": ["Ethiopië"],
    "GH": ["Ghana"],
    "KE": ["Kenia"],
    "LY": ["Libië"],
    "MA": ["Marokko"],
    "ML": ["Mali"],
    "MZ": ["Mozambique"],
    "NG": ["Nigeria"],
    "RW": ["Rwanda"],
    "SD": ["Soedan"],
    "SN": ["Senegal"],
    "SO": ["Somalië"],
    "SS": ["Zuid-Soedan"],
    "TN": ["Tunesië"],
    "TZ": ["Tanzania"],
    "UG": ["Oeganda"],
    "ZA": ["Zuid-Afrika"],
    "ZW": ["Zimbabwe"],
}

# English variants pycountry does not carry, plus names in the country's own language
# for the neighbours and main destinations (senders copy addresses as written abroad).
# Two-letter ISO codes are deliberately NOT accepted in general ("DE", "IN" and "ME"
# are too easily something else); only the customary abbreviations listed here are.
VARIANTS: dict[str, list[str]] = {
    "AE": ["UAE"],
    "AT": ["Österreich"],
    "BA": ["Bosnia", "Bosnia-Herzegovina"],
    "BE": ["Belgique", "Belgien", "Belgium"],
    "BY": ["Byelorussia"],
    "CD": ["DRC", "DR Congo", "Congo-Kinshasa"],
    "CG": ["Republic of the Congo", "Congo-Brazzaville"],
    "CH": ["Schweiz", "Suisse", "Svizzera"],
    "CI": ["Ivory Coast"],
    "CV": ["Cape Verde"],
    "CZ": ["Czech Republic", "Česko", "Česká republika"],
    "DE": ["Deutschland", "Federal Republic of Germany"],
    "DK": ["Danmark"],
    "ES": ["España"],
    "FI": ["Suomi"],
    "FR": ["République française"],
    "GB": ["UK", "GB", "Great Britain", "Britain", "England", "Scotland", "Wales", "Northern Ireland"],
    "GR": ["Hellas", "Ellada"],
    "HR": ["Hrvatska"],
    "HU": ["Magyarország"],
    "IE": ["Éire", "Republic of Ireland"],
    "IT": ["Italia"],
    "KR": ["Korea", "Republic of Korea"],
    "LU": ["Lëtzebuerg"],
    "MK": ["Macedonia"],
    "MM": ["Burma"],
    "NL": ["The Netherlands", "Niederlande", "Pays-Bas", "NL"],
    "NO": ["Norge"],
    "PL": ["Polska"],
    "PS": ["Palestine"],
    "SE": ["Sverige"],
    "SZ": ["Swaziland"],
    "TL": ["East Timor"],
    "TR": ["Turkey"],
    "US": ["USA", "US", "United States of America", "America"],
    "VA": ["Vatican", "Holy See"],
}

# Letters that NFKD does not decompose into base letter + accent.
_LETTER_FOLDS = str.maketrans({"ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"})


def normalise_name(text: str) -> str:
    """Matching key: casefolded, accents removed, dots/apostrophes dropped, words single-spaced."""
    text = unicodedata.normalize("NFKD", str(text).casefold().translate(_LETTER_FOLDS))
    text = "".join(character for character in text if not unicodedata.combining(character))
    text = text.translate(_LETTER_FOLDS).replace("&", " and ")
    text = re.sub(r"[.'’`]", "", text)  # "U.S.A." -> "usa", "d'Ivoire" -> "divoire"
    words = re.sub(r"[^0-9a-z]+", " ", text).split()  # commas, hyphens, brackets separate words
    if words and words[0] == "the":
        words = words[1:]
    return " ".join("saint" if word == "st" else word for word in words)  # "St Lucia"


def _build_index() -> dict[str, Country]:
    countries: dict[str, Country] = {}
    names: dict[str, list[str]] = {}
    for record in pycountry.countries:
        common = getattr(record, "common_name", None)
        official = getattr(record, "official_name", None)
        canonical = CANONICAL_NAME_OVERRIDES.get(record.alpha_2) or common or record.name
        countries[record.alpha_2] = Country(record.alpha_2, canonical, record.alpha_2 in EUROPE)
        names[record.alpha_2] = [n for n in (canonical, record.name, common, official) if n]
    for code, name in EXTRA_COUNTRIES.items():
        countries[code] = Country(code, name, code in EUROPE)
        names[code] = [name]
    for table in (DUTCH_NAMES, VARIANTS):
        for code, variants in table.items():
            names[code].extend(variants)

    index: dict[str, Country] = {}
    for code, variants in names.items():
        for variant in variants:
            key = normalise_name(variant)
            existing = index.setdefault(key, countries[code])
            if existing.code != code:
                # A table mistake must fail loudly at import, not pick a country silently.
                raise ValueError(f"country name {variant!r} is ambiguous: {existing.code} and {code}")
    return index


_INDEX = _build_index()


def find_country(text: str) -> Country | None:
    """The country this line names (in English, Dutch or a listed variant), or None."""
    return _INDEX.get(normalise_name(text))
