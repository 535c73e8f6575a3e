"""File types judged by content and name; SAMPLES are small real-looking files reused by the other
send-a-file tests."""
from __future__ import annotations

import io
import zipfile

import pytest

from api.errors import BadRequestError
from pipeline.stages.documents.filetypes import ALLOWED_LIST, resolve, sniff


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00" + bytes(range(256))
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01" + bytes(range(256)) + b"\xff\xd9"
DOCX = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>"})
XLSX = _zip({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<workbook/>"})
ODT = _zip({"mimetype": b"application/vnd.oasis.opendocument.text", "content.xml": b"<office:document/>"})
ODS = _zip({"mimetype": b"application/vnd.oasis.opendocument.spreadsheet", "content.xml": b"<x/>"})
DOC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + "WordDocument".encode("utf-16-le") + bytes(64)
XLS = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504) + "Workbook".encode("utf-16-le") + bytes(64)
RTF = b"{\\rtf1\\ansi Hello}"
CSV = "name,amount\nZoë,12\n".encode()
JSON = b'{"name": "Zo\\u00eb", "amount": 12}'
TXT = b"Dear customer,\r\n\tyour letter.\n"
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + bytes(range(200))
EXE = b"MZ\x90\x00\x03\x00\x00\x00" + bytes(range(256))
BINARY = bytes([0x00, 0x9F, 0x92, 0x96]) * 64
SAMPLES = {".pdf": PDF, ".png": PNG, ".jpg": JPEG, ".jpeg": JPEG, ".docx": DOCX, ".xlsx": XLSX, ".odt": ODT,
           ".doc": DOC, ".rtf": RTF, ".csv": CSV, ".json": JSON, ".txt": TXT}


def unsupported_message(file_type: str) -> str:
    return f"Unsupported file type '{file_type}'. Supported types are: {ALLOWED_LIST}"


def test_allowed_list_is_rendered_as_notify_renders_it():
    assert ALLOWED_LIST == ("'.csv', '.doc', '.docx', '.jpeg', '.jpg', '.json', '.odt', '.pdf', '.png', '.rtf', "
                            "'.txt', '.xlsx'")


@pytest.mark.parametrize("extension", sorted(SAMPLES))
def test_each_allowed_type_under_its_own_name(extension):
    resolved = resolve(SAMPLES[extension], extension)
    assert resolved.extension == extension


@pytest.mark.parametrize("content, extension, mimetype", [
    (PDF, ".pdf", "application/pdf"),
    (PNG, ".png", "image/png"),
    (JPEG, ".jpg", "image/jpeg"),
    (DOCX, ".docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
    (XLSX, ".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
    (ODT, ".odt", "application/vnd.oasis.opendocument.text"),
    (DOC, ".doc", "application/msword"),
    (RTF, ".rtf", "application/rtf"),
    (JSON, ".json", "application/json"),
    (TXT, ".txt", "text/plain"),
    (CSV, ".txt", "text/plain"),  # without a name or is_csv, comma-separated text is just text
])
def test_type_from_content_alone(content, extension, mimetype):
    resolved = resolve(content, None)
    assert (resolved.extension, resolved.mimetype) == (extension, mimetype)


def test_is_csv_names_text_csv():
    assert resolve(CSV, None, is_csv=True).mimetype == "text/csv"


def test_text_family_shares_names():
    for extension in (".csv", ".json", ".txt"):
        assert resolve(CSV, extension).extension == extension


@pytest.mark.parametrize("content, named, reported", [
    (PNG, ".pdf", ".png"),        # the name contradicts the content: the message names the content
    (PDF, ".docx", ".pdf"),
    (CSV, ".xlsx", ".txt"),
    (DOCX, ".odt", ".docx"),
    (GIF, ".png", ".gif"),
    (GIF, None, ".gif"),          # content of a type we do not take
    (ODS, None, ".ods"),
    (XLS, ".doc", ".xls"),
    (EXE, ".pdf", ".exe"),
    (_zip({"a.txt": b"x"}), ".docx", ".zip"),
    (BINARY, ".txt", "application/octet-stream"),  # content we cannot identify
])
def test_refused_types(content, named, reported):
    with pytest.raises(BadRequestError) as exc:
        resolve(content, named)
    assert exc.value.messages == [unsupported_message(reported)]


def test_sniffing_edge_cases():
    assert sniff(b"") == ".txt"  # an empty file is (empty) text
    assert sniff(b"\xef\xbb\xbf%PDF-1.7 ...") == ".pdf"
    assert sniff(b"text with a NUL\x00 inside") is None
    assert sniff("Grüße, 日本".encode()) == ".txt"
    assert sniff("Grüße".encode("latin-1")) is None  # not UTF-8
    assert sniff(b"PK\x03\x04 not really a zip") == ".zip"
