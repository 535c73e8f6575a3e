"""Plain-text treatment of personalisation values named in ``sanitise_content_for``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .placeholders import normalise_key

# Backslash-escapable ASCII punctuation that means something to the Markdown we render.
MARKDOWN_SPECIAL = "\\`*_{}[]()#+-.!|>^~<"
_SPECIAL_RE = re.compile("([" + re.escape(MARKDOWN_SPECIAL) + "])")
# Trailing punctuation is not part of the URL ("see https://x.org." keeps its full stop).
_URL_RE = re.compile(r"""(?:https?://|www\.)[^\s<]*[^<.,:;"')\]\s]""", re.IGNORECASE)


def remove_urls(value: str) -> str:
    return _URL_RE.sub("", value)


def escape_markdown(value: str) -> str:
    return _SPECIAL_RE.sub(r"\\\1", value)


def sanitise_value(value: str) -> str:
    """``value`` as plain text for Markdown: URLs removed, then special characters escaped."""
    return escape_markdown(remove_urls(value))


def _sanitise_any(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return [_sanitise_any(item) for item in value]
    return sanitise_value(str(value))


def sanitise_values(values: Mapping[str, object], keys: Iterable[str]) -> dict[str, object]:
    """``values`` with those named in ``keys`` (matched as placeholders are) already sanitised.

    Stored this way, a render at dispatch (the HTML email) treats them as the accept-time render
    did, without having to know which keys the caller named.
    """
    wanted = {normalise_key(str(key)) for key in keys}
    return {key: _sanitise_any(value) if normalise_key(str(key)) in wanted else value
            for key, value in values.items()}


def sanitised_content(values: Mapping[str, object] | None, keys: Iterable[str]) -> dict[str, dict[str, object]]:
    """The send response's ``sanitised_content``: ``{key: {"sanitised": ..., "unsanitised": ...}}``.

    Keys are matched to values like placeholders are (case, spaces, '_' and '-' ignored) and
    reported as the caller spelled them in ``keys``; keys without a supplied value, and values the
    sanitising left as they were, are left out (the clients' own suites expect ``{}`` then).
    """
    by_key = {normalise_key(str(key)): value for key, value in (values or {}).items()}
    result: dict[str, dict[str, object]] = {}
    for key in keys:
        normalised = normalise_key(key)
        if normalised in by_key:
            original = by_key[normalised]
            sanitised = _sanitise_any(original)
            if sanitised != original:
                result[key] = {"sanitised": sanitised, "unsanitised": original}
    return result
