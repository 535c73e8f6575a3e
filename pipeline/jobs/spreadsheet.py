"""Reading an uploaded spreadsheet (CSV, XLSX, ODS) into a header and rows of text cells.

Each format is read by a maintained library: the csv module, openpyxl (read-only mode, which streams
the sheet) and odfpy. Only the first sheet is read; rows with no text at all are skipped, as a
spreadsheet program's trailing blank rows are not recipients.
"""
from __future__ import annotations

import csv
import datetime
import io
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from odf.element import Element

FORMATS = ("csv", "xlsx", "ods")


class UnreadableFile(ValueError):
    """The file is not a spreadsheet of a known format, or is damaged."""


@dataclass(frozen=True)
class Sheet:
    header: list[str]
    rows: list[list[str]]  # as many cells as the header, each a string ("" when empty)


def file_format(file_name: str) -> str | None:
    suffix = PurePath(file_name).suffix.lower().lstrip(".")
    return suffix if suffix in FORMATS else None


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # a number typed into a cell: 612345678, not 612345678.0
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    return str(value).strip()


def _csv_rows(data: bytes) -> Iterable[Sequence[object]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")  # what spreadsheet programs on Windows save
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    return list(csv.reader(io.StringIO(text, newline=""), dialect))


def _xlsx_rows(data: bytes) -> Iterable[Sequence[object]]:
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        return [list(row) for row in book.worksheets[0].iter_rows(values_only=True)]
    finally:
        book.close()


def _ods_cell_text(cell: Element) -> str:
    from odf import teletype
    from odf.namespaces import OFFICENS

    value_type = cell.getAttrNS(OFFICENS, "value-type")
    if value_type in ("float", "percentage", "currency"):
        return _text(float(cell.getAttrNS(OFFICENS, "value")))
    return teletype.extractText(cell)


def _ods_rows(data: bytes) -> Iterable[Sequence[object]]:
    from odf.namespaces import TABLENS
    from odf.opendocument import load
    from odf.table import Table, TableCell, TableRow

    document = load(io.BytesIO(data))
    tables = document.spreadsheet.getElementsByType(Table)
    if not tables:
        return []
    rows: list[list[object]] = []
    for row in tables[0].getElementsByType(TableRow):
        cells: list[object] = []
        for cell in row.getElementsByType(TableCell):
            repeat = int(cell.getAttrNS(TABLENS, "number-columns-repeated") or 1)
            text = _ods_cell_text(cell)
            # A sheet's trailing empty cells come as one cell repeated to the last column (16384).
            cells.extend([text] * (repeat if text else min(repeat, 1000)))
        repeat_rows = int(row.getAttrNS(TABLENS, "number-rows-repeated") or 1)
        if any(_text(c) for c in cells):
            rows.extend([cells] * repeat_rows)
    return rows


_READERS = {"csv": _csv_rows, "xlsx": _xlsx_rows, "ods": _ods_rows}


def read_sheet(file_name: str, data: bytes) -> Sheet:
    """The file's first sheet; raises UnreadableFile when it cannot be read or has no header row."""
    kind = file_format(file_name)
    if kind is None:
        raise UnreadableFile("unknown file type")
    try:
        raw = _READERS[kind](data)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, csv.Error) as exc:
        raise UnreadableFile(str(exc)) from None
    texts = [[_text(value) for value in row] for row in raw]
    texts = [row for row in texts if any(row)]
    if not texts:
        raise UnreadableFile("no header row")
    header = texts[0]
    while header and not header[-1]:
        header.pop()
    width = len(header)
    return Sheet(header, [(row + [""] * width)[:width] for row in texts[1:]])
