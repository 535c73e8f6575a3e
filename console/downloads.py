"""The console's downloads (the job report, the messages report, unsubscribe requests, an organisation's
usage): written for the person downloading, in the page's language and on the service's clock
(pipeline.domain.message_words.Written), and answered one way: CSV in UTF-8 with a byte order mark, which
spreadsheet programs on Windows need to read "ë" and "€", under a file name that says what it holds in the
page's language.
"""
from __future__ import annotations

import datetime
import itertools
import re
from collections.abc import Iterable

from flask import Response, stream_with_context
from flask_babel import get_locale
from markupsafe import Markup

from console import times
from console.services.refusals import translated
from pipeline.domain.errors import restored
from pipeline.domain.message_words import Written

BYTE_ORDER_MARK = "\ufeff"
MEDIA_TYPE = "text/csv; charset=utf-8"
_NOT_IN_FILE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


_LINK = re.compile(r"<a\b[^>]*>.*?</a>", re.S)


def _worded(record: dict) -> str:
    """A kept refusal as the console's pages word it, without the links a page adds (a file has none)."""
    text = translated(restored(record))
    return Markup(_LINK.sub("", str(text))).striptags() if isinstance(text, Markup) else str(text)


def written(time_zone: str | None = None) -> Written:
    """How this page's reader reads a download: their language, the service's clock, the console's words."""
    return Written(str(get_locale()), time_zone or times.zone_name(), worded_refusal=_worded)


def file_name(*parts: str, suffix: str = "csv") -> str:
    """"berichten-2026-12-07-1538.csv": the parts joined by hyphens, anything but ASCII letters, digits,
    dots and hyphens made a hyphen, so the name needs no quoting in the header and every browser keeps it."""
    joined = "-".join(_NOT_IN_FILE_NAME.sub("-", part).strip("-") for part in parts if part)
    return f"{joined or 'download'}.{suffix}"


def stamp(value: datetime.datetime, time_zone: str | None = None) -> str:
    """A moment for a file's name, on the service's clock (the console's times are on it too)."""
    return written(time_zone).file_stamp(value)


def csv_download(pieces: Iterable[str] | str | bytes, name: str) -> Response:
    """The CSV text (or pieces of it, streamed as they come) as a download named `name`. Bytes are a file
    built before, byte order mark included."""
    if isinstance(pieces, bytes):
        body: Iterable[str] | bytes = pieces
    else:
        body = stream_with_context(itertools.chain([BYTE_ORDER_MARK], [pieces] if isinstance(pieces, str) else pieces))
    return Response(body, content_type=MEDIA_TYPE,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
