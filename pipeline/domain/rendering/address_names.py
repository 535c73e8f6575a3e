"""The names a letter's address goes by: the spec's, which the API takes (``address_line_1`` ..
``address_line_7`` and ``postcode``), and the Dutch ones a Dutch team writes in a template or a
spreadsheet's header and reads on the console's forms (``adresregel_1`` .. ``adresregel_7`` and
``postcode``). One table, read by placeholder matching, the spreadsheet checks and the console alike.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

LINES = 7
POSTCODE = "postcode"
SPEC_NAMES = (*(f"address_line_{n}" for n in range(1, LINES + 1)), POSTCODE)
DUTCH_NAMES = (*(f"adresregel_{n}" for n in range(1, LINES + 1)), POSTCODE)
NAMES = {"en": SPEC_NAMES, "nl": DUTCH_NAMES}

_NOT_IN_KEY = re.compile(r"[\s_-]+")


def compact(name: str) -> str:
    """A name as placeholders are matched: case, spaces, '_' and '-' ignored."""
    return _NOT_IN_KEY.sub("", name).lower()


# The Dutch name's key -> the spec name's key: ((adresregel_1)) is ((address_line_1)).
DUTCH_KEYS = {compact(dutch): compact(spec) for dutch, spec in zip(DUTCH_NAMES, SPEC_NAMES, strict=True)
              if dutch != spec}
_SPEC_BY_KEY = {compact(spec): spec for spec in SPEC_NAMES} | {
    dutch: spec for dutch, spec in zip(map(compact, DUTCH_NAMES), SPEC_NAMES, strict=True)}


def spec_name(name: str) -> str | None:
    """The spec's name of an address name in either language and any spelling ("Adresregel 1" ->
    "address_line_1"), None for any other name."""
    return _SPEC_BY_KEY.get(compact(name))


def in_spec_names(values: Mapping[str, object]) -> dict[str, object]:
    """The values with each Dutch address name under the spec's name (what the API's address rules
    read), every other name as it is; a name spelt the spec's way wins over its Dutch twin."""
    present = {compact(key) for key in values}
    renamed: dict[str, object] = {}
    for key, value in values.items():
        spec_key = DUTCH_KEYS.get(compact(key))
        if spec_key is None:
            renamed[key] = value
        elif spec_key not in present:
            renamed.setdefault(_SPEC_BY_KEY[spec_key], value)
    return renamed


def shown_name(spec: str, language: str) -> str:
    """A spec address name as a person reads it in a language: "adresregel 1", "address line 1"."""
    names = NAMES.get(language, SPEC_NAMES)
    return names[SPEC_NAMES.index(spec)].replace("_", " ")
