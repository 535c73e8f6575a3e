"""POST bodies are JSON whatever the Content-Type (the clients do not all set it).

Parsing also refuses, once for every route, what JSON can carry but nothing behind it can take:
nesting deep enough to exhaust the recursion of the validators and encoders, lone surrogates (no
UTF-8 encoding exists for them) and NUL characters (PostgreSQL text cannot hold them). The query
string and path segments get the same NUL check before any route runs.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge

from api.errors import BadRequestError, ValidationError

INVALID_JSON = "Invalid JSON supplied in POST data"
# Real bodies nest a handful of levels (a file object inside personalisation is three).
MAX_DEPTH = 64
TOO_DEEP = f"{INVALID_JSON}: nested more than {MAX_DEPTH} levels deep"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_INTEGER = re.compile(r"-?[0-9]{1,18}")  # more digits would pass any maximum a schema has


def json_body(*, max_bytes: int | None = None, max_items: int | None = None) -> Any:
    """The parsed body. max_bytes caps the body before it is read (413 beyond it); max_items caps
    a top-level array's length before any item is looked at."""
    if max_bytes is not None:
        # One byte more than the cap: werkzeug stops reading a body sent without Content-Length
        # (chunked) at exactly its limit and returns what it read, which would pass as complete.
        request.max_content_length = max_bytes + 1
    raw = request.get_data(cache=True)
    if max_bytes is not None and len(raw) > max_bytes:
        raise RequestEntityTooLarge()
    return parse_body(raw, max_items=max_items)


def parse_body(raw: bytes, *, max_items: int | None = None) -> Any:
    """A body already read, parsed and checked as json_body does."""
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw, parse_constant=_not_json, parse_float=_finite_float)
    except RecursionError:
        raise BadRequestError(TOO_DEEP) from None
    except ValueError:
        raise BadRequestError(INVALID_JSON) from None
    if max_items is not None and isinstance(data, list) and len(data) > max_items:
        raise BadRequestError(f"Too many items: at most {max_items} in one request, got {len(data)}")
    if _may_hold_unstorable(raw):
        check_storable(data)
    return data


def _may_hold_unstorable(raw: bytes) -> bool:
    """False when no value parsed from raw can be too deep or hold a NUL or a lone surrogate: fewer
    brackets than the depth allowed, no escape (the only way JSON text spells a NUL or a surrogate)
    and no byte of a surrogate or a NUL written out (UTF-16 and UTF-32 bodies have NUL bytes, so they
    are walked). Nearly every body is such, and walking it cost a tenth of a send's own work."""
    return (raw.count(b"{") + raw.count(b"[") >= MAX_DEPTH or b"\\u" in raw or b"\xed" in raw
            or b"\x00" in raw)


def _not_json(constant: str) -> float:
    # Python reads NaN and Infinity, which JSON does not have.
    raise ValueError(f"{constant} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):  # 1e400: a number no float holds
        raise ValueError(f"{text} is out of range")
    return value


def check_storable(data: Any) -> None:
    """Refuse too deep nesting, lone surrogates and NULs anywhere in data, naming where."""
    # Iterative, so that the check itself cannot run out of recursion on the input it guards against.
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            _check_text(value, _where(path))
            continue
        if isinstance(value, dict):
            children: Any = value.items()
        elif isinstance(value, list):
            children = ((str(i), item) for i, item in enumerate(value))
        else:
            continue
        if len(path) >= MAX_DEPTH:
            raise BadRequestError(TOO_DEEP)
        for key, item in children:
            if isinstance(value, dict):
                _check_text(key, f"{_where(path)} keys")
            stack.append((item, (*path, key)))


def integer_argument(name: str, default: Any = None) -> Any:
    """A query parameter as an int when it is one (ASCII digits, an optional minus), else the text
    as given, for the schema to refuse by name ("limit x is not of type integer"); default when
    absent. str.isdigit() would also take "²", which int() refuses."""
    raw = request.args.get(name)
    if raw is None:
        return default
    return int(raw) if _INTEGER.fullmatch(raw.strip()) else raw


def check_query() -> None:
    """The query string's names and values and the path's segments, before any route reads them."""
    for key, value in request.args.items(multi=True):
        _check_text(key, "Query parameter names")
        _check_text(value, key)
    for name, value in (request.view_args or {}).items():
        if isinstance(value, str):
            _check_text(value, name)


def _where(path: tuple[str, ...]) -> str:
    return ".".join(path) if path else "POST data"


def _check_text(text: str, where: str) -> None:
    found = _UNSTORABLE.search(text)
    if found is None:
        return
    char = found.group()
    what = "NUL characters (U+0000)" if char == "\x00" else f"lone surrogates (U+{ord(char):04X})"
    raise ValidationError(f"{where} must not contain {what}")
