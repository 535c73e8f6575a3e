"""What a file is, judged by its content as well as its name.

The name alone would let anything through as "report.pdf" (and the download page would hand it out
with the PDF content type); the content alone cannot tell csv from txt. So the content decides the
family (PDF, PNG, JPEG, Word, Excel, ODT, RTF, UTF-8 text) and the name, when given, must be one of
that family's extensions.
"""
from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass
from io import BytesIO

from pipeline.domain.errors import BadRequestError

MIMETYPES = {
    ".csv": "text/csv",
    ".doc": "application/msword",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".jpeg": "image/jpeg",
    ".jpg": "image/jpeg",
    ".json": "application/json",
    ".odt": "application/vnd.oasis.opendocument.text",
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".rtf": "application/rtf",
    ".txt": "text/plain",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
# As GOV.UK Notify writes the list: sorted, each extension quoted.
ALLOWED_LIST = ", ".join(f"'{ext}'" for ext in sorted(MIMETYPES))
UNKNOWN_CONTENT = "application/octet-stream"  # what content we cannot identify is called

_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ODF = {"application/vnd.oasis.opendocument.text": ".odt",
        "application/vnd.oasis.opendocument.spreadsheet": ".ods",
        "application/vnd.oasis.opendocument.presentation": ".odp"}
_OOXML = {"word/": ".docx", "xl/": ".xlsx", "ppt/": ".pptx"}
_OTHER_MAGIC = {b"GIF87a": ".gif", b"GIF89a": ".gif", b"MZ": ".exe", b"\x7fELF": ".elf",
                b"\x1f\x8b": ".gz", b"BM": ".bmp", b"II*\x00": ".tiff", b"MM\x00*": ".tiff"}
_TEXT = ".txt"
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f]")


def unsupported(file_type: str) -> BadRequestError:
    return BadRequestError(f"Unsupported file type '{file_type}'. Supported types are: {ALLOWED_LIST}")


@dataclass(frozen=True)
class Resolved:
    extension: str
    mimetype: str


def resolve(data: bytes, named_extension: str | None, is_csv: bool = False) -> Resolved:
    """The file's extension and content type; raises the unsupported-type error when the content is
    not an allowed type or contradicts the name (the message then names what the content is)."""
    detected = sniff(data)
    if detected is None:
        raise unsupported(UNKNOWN_CONTENT)
    family = {".txt": {".txt", ".csv", ".json"}, ".jpg": {".jpg", ".jpeg"}}.get(detected, {detected})
    if not family & MIMETYPES.keys():
        raise unsupported(detected)
    if named_extension is not None:
        if named_extension not in family:
            raise unsupported(detected)
        return Resolved(named_extension, MIMETYPES[named_extension])
    extension = _text_extension(data, is_csv) if detected == _TEXT else detected
    return Resolved(extension, MIMETYPES[extension])


def sniff(data: bytes) -> str | None:
    """The extension the content looks like (allowed or not), or None when it cannot be identified."""
    head = data[:16]
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"%PDF-"):
        return ".pdf"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return ".png"
    if head.startswith(b"\xff\xd8\xff"):
        return ".jpg"
    if head.startswith(b"PK\x03\x04"):
        return _zip_kind(data)
    if head.startswith(_OLE):
        return _ole_kind(data)
    if head.startswith(b"{\\rtf"):
        return ".rtf"
    if _is_text(data):
        return _TEXT
    for magic, extension in _OTHER_MAGIC.items():
        if head.startswith(magic):
            return extension
    return None


def _zip_kind(data: bytes) -> str:
    try:
        with zipfile.ZipFile(BytesIO(data)) as archive:
            names = archive.namelist()
            if "mimetype" in names:
                declared = archive.read("mimetype")[:100].decode("ascii", "replace").strip()
                return _ODF.get(declared, ".zip")
            if "[Content_Types].xml" in names:
                for prefix, extension in _OOXML.items():
                    if any(name.startswith(prefix) for name in names):
                        return extension
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, OSError, EOFError):
        pass  # damaged or encrypted: not an office document we can hand out
    return ".zip"


def _ole_kind(data: bytes) -> str:
    # The compound file's directory names its streams in UTF-16LE; a Word file has "WordDocument".
    for stream, extension in (("WordDocument", ".doc"), ("Workbook", ".xls"), ("PowerPoint Document", ".ppt")):
        if stream.encode("utf-16-le") in data:
            return extension
    return UNKNOWN_CONTENT


def _is_text(data: bytes) -> bool:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    # Control characters other than tab, newlines and form feed mean binary that happens to decode.
    return _CONTROL.search(text) is None


def _text_extension(data: bytes, is_csv: bool) -> str:
    if is_csv:
        return ".csv"
    try:
        if isinstance(json.loads(data.decode("utf-8-sig")), (dict, list)):
            return ".json"
    except ValueError:
        pass
    return ".txt"
