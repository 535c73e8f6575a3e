"""Placeholders written ``((name))`` or ``((name??text))`` and how values are matched to them."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from .address_names import DUTCH_KEYS, compact

# Same shape as GOV.UK Notify: anything but round brackets between (( and )).
PLACEHOLDER_RE = re.compile(r"\(\(([^()]+)\)\)")
CONDITIONAL_SEPARATOR = "??"
# "ja"/"j" too: the Dutch guide tells writers to answer "ja" (issue 32); "yes" reads as before.
TRUTHY_STRINGS = frozenset({"true", "yes", "y", "1", "ja", "j"})


@dataclass(frozen=True)
class Placeholder:
    name: str  # as written in the template, surrounding spaces removed
    conditional_text: str | None  # the text after '??', None for an ordinary placeholder

    @property
    def key(self) -> str:
        return normalise_key(self.name)


def normalise_key(name: str) -> str:
    """Key used to match a placeholder to a value: case, spaces, '_' and '-' are ignored, and a letter's
    address line in Dutch is the spec's (((adresregel_1)) is filled from address_line_1)."""
    key = compact(name)
    return DUTCH_KEYS.get(key, key)


def parse_placeholder(inner: str) -> Placeholder | None:
    """The placeholder written as ``((inner))``, or None when it has no name."""
    name, separator, text = inner.partition(CONDITIONAL_SEPARATOR)
    name = name.strip()
    if not name:
        return None
    return Placeholder(name=name, conditional_text=text if separator else None)


def iter_placeholders(*texts: str) -> Iterator[Placeholder]:
    for text in texts:
        if not text:
            continue
        for match in PLACEHOLDER_RE.finditer(text):
            placeholder = parse_placeholder(match.group(1))
            if placeholder is not None:
                yield placeholder


@functools.lru_cache(maxsize=256)
def _names_and_keys(texts: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    # Every send of a template asks this of the same texts: parsed once per process (a few hundred
    # templates kept), not once per request.
    names: dict[str, str] = {}
    for placeholder in iter_placeholders(*texts):
        names.setdefault(placeholder.key, placeholder.name)
    return tuple((name, key) for key, name in names.items())


def placeholder_names(*texts: str) -> list[str]:
    """Unique names in order of first appearance; the first spelling of a name wins."""
    return [name for name, _ in _names_and_keys(texts)]


def personalisation_map(*texts: str) -> dict[str, dict]:
    """The template's ``personalisation`` field: every placeholder is required."""
    return {name: {"required": True} for name in placeholder_names(*texts)}


def normalised_values(values: Mapping[str, object] | None) -> dict[str, object]:
    """Values keyed by normalised name; when two keys collide the later one wins."""
    if not values:
        return {}
    return {normalise_key(str(key)): value for key, value in values.items()}


def missing_personalisation(texts: Iterable[str], values: Mapping[str, object] | None) -> list[str]:
    """Placeholder names (template spelling) whose value is absent or None."""
    if isinstance(texts, str):
        texts = (texts,)
    supplied = normalised_values(values)
    return [name for name, key in _names_and_keys(tuple(texts)) if supplied.get(key) is None]


def is_truthy(value: object) -> bool:
    """Whether a conditional placeholder shows its text.

    True, non-zero numbers and the strings true/yes/y/1/ja/j (any case, surrounding spaces ignored)
    show it; everything else (None, False, 0, "no", "", lists, ...) hides it.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value != 0
    if isinstance(value, str):
        return value.strip().lower() in TRUTHY_STRINGS
    return False


def fill(text: str, values: Mapping[str, object], format_value: Callable[[str, object], str]) -> str:
    """Replace every placeholder in one pass, so text inside a value is never substituted again.

    ``values`` must already be keyed by normalised name. ``format_value(key, value)`` turns a
    supplied value into text. A placeholder without a key in ``values`` is left as written;
    a conditional one without a key shows nothing.
    """
    if not text:
        return ""

    def replace(match: re.Match[str]) -> str:
        placeholder = parse_placeholder(match.group(1))
        if placeholder is None:
            return match.group(0)
        key = placeholder.key
        if placeholder.conditional_text is not None:
            return placeholder.conditional_text if is_truthy(values.get(key)) else ""
        if key not in values:
            return match.group(0)
        return format_value(key, values[key])

    return PLACEHOLDER_RE.sub(replace, text)
