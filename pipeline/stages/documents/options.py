"""Reading a prepared file object from personalisation, with the spec's exact error texts.

The wire form (from prepare_upload / prepareUpload) is
{"file": <base64>, "filename": <str|null>, "confirm_email_before_download": <bool|null>,
 "retention_period": <"N weeks"|null>}; null means the default. Older clients add "is_csv".
"""
from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

from pipeline.domain.errors import BadRequestError
from pipeline.stages.documents.filetypes import MIMETYPES, unsupported

MAX_FILE_BYTES = 2 * 1024 * 1024  # the clients' own limit: they refuse anything larger before sending
MAX_FILENAME_LENGTH = 100
DEFAULT_RETENTION_WEEKS = 26
MAX_RETENTION_WEEKS = 78

TOO_LARGE = "File is larger than 2MB"
NOT_BASE64 = "Document is not base64 encoded"
FILENAME_TOO_LONG = f"filename cannot be longer than {MAX_FILENAME_LENGTH} characters"
FILENAME_NO_EXTENSION = "filename must end with a file extension. For example, filename.csv"

_RETENTION = re.compile(r"([0-9]{1,9}) weeks?")  # more digits are out of range anyway
_EXTENSION = re.compile(r"\.([A-Za-z0-9]+)\Z")
_WHITESPACE = re.compile(rb"\s+")


@dataclass(frozen=True)
class FileOptions:
    content: Any  # the base64 text as sent; decoded (and checked) by decode()
    filename: str | None
    extension: str | None  # lower-case, with the dot, from the filename
    confirm_email: bool
    retention_weeks: int
    is_csv: bool


def read_options(value: dict) -> FileOptions:
    """Check the options of one prepared file (not yet its content)."""
    confirm = value.get("confirm_email_before_download")
    if confirm is None:
        confirm = True
    elif not isinstance(confirm, bool):
        raise BadRequestError(f"Unsupported value for confirm_email_before_download: '{_show(confirm)}'. "
                              "Use a boolean true or false value.")
    weeks = _retention_weeks(value.get("retention_period"))
    filename, extension = _filename(value.get("filename"))
    is_csv = value.get("is_csv")
    if is_csv is not None and not isinstance(is_csv, bool):
        raise BadRequestError(f"Unsupported value for is_csv: '{_show(is_csv)}'. Use a boolean true or false value.")
    return FileOptions(value["file"], filename, extension, confirm, weeks, bool(is_csv))


def decode(options: FileOptions) -> bytes:
    """The file's bytes; refuses text that is not base64 and files over the 2MB the clients allow."""
    if not isinstance(options.content, str):
        raise BadRequestError(NOT_BASE64)
    try:
        # Whitespace is dropped first because some encoders wrap base64 at 76 columns.
        data = base64.b64decode(_WHITESPACE.sub(b"", options.content.encode("ascii")), validate=True)
    except (UnicodeEncodeError, binascii.Error, ValueError):
        raise BadRequestError(NOT_BASE64) from None
    if len(data) > MAX_FILE_BYTES:
        raise BadRequestError(TOO_LARGE)
    return data


def _retention_weeks(value: Any) -> int:
    if value is None:
        return DEFAULT_RETENTION_WEEKS
    match = _RETENTION.fullmatch(value.strip().lower()) if isinstance(value, str) else None
    if match is None or not 1 <= int(match.group(1)) <= MAX_RETENTION_WEEKS:
        raise BadRequestError(f"Unsupported value for retention_period '{_show(value)}'. "
                              f"Supported periods are from 1 to {MAX_RETENTION_WEEKS} weeks.")
    return int(match.group(1))


def _filename(value: Any) -> tuple[str | None, str | None]:
    if value is None or value == "":
        return None, None
    if not isinstance(value, str):
        raise BadRequestError(FILENAME_NO_EXTENSION)
    if len(value) > MAX_FILENAME_LENGTH:
        raise BadRequestError(FILENAME_TOO_LONG)
    match = _EXTENSION.search(value)
    if match is None:
        raise BadRequestError(FILENAME_NO_EXTENSION)
    extension = "." + match.group(1).lower()
    if extension not in MIMETYPES:
        raise unsupported(extension)
    return value, extension


def _show(value: Any) -> str:
    """A refused value as the caller wrote it: strings as they are, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value)
