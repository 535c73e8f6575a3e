"""Reading the first sheet of an XLSX file as a stream of rows, through openpyxl's public read-only API.

openpyxl (read-only mode, values only) turns each cell into its value (shared strings, numbers, dates
by their style). Some of its habits would let a small file take much memory or time, or lose rows, so
every part of the archive is checked first, its start tags counted as they stream by (expat keeps no
element):
- it trusts the sheet's <dimension> and pads every row to it (A1:XFD1048576 is a million rows of
  16,384 cells): the claim is dropped (`reset_dimensions`), so a row is as wide as its last cell;
- it holds a whole row's cells before handing the row over: a row of more than 16,384 cells (the
  most Excel makes) is refused;
- it keeps an emptied element (about 80 bytes) for every row it has read: a part of more than
  524,288 rows, empty ones included, is refused, which keeps that under 45 MB;
- it reads the rows in the order of their numbers, handing over an empty row for each number skipped,
  and drops a row numbered at or before the one before it: a row numbered beyond Excel's last
  (1,048,576) is refused, and rows out of order are refused as damaged rather than read in part;
- it pads each row up to its last cell, even an empty styled one, at about 30 million cells a
  second: rows padded to more than 16,777,216 cells in all (1,024 rows out to XFD) are refused.
Every part is checked, since the workbook's relationships, not a part's name, say which one is the
first sheet.
"""
from __future__ import annotations

import io
from collections.abc import Iterator
from typing import IO
from xml.parsers import expat

from pipeline.stages.jobs.cells import cell_text
from pipeline.stages.jobs.sheet_limits import (
    MAX_COLUMNS,
    TOO_MANY_CELLS,
    TOO_MANY_COLUMNS,
    TOO_MANY_ROWS,
    SheetTooBig,
    open_zip,
    place,
)

EXCEL_COLUMNS = 16_384  # XFD: a row with more cells is damaged or hostile
EXCEL_ROWS = 1_048_576
MAX_ROW_ELEMENTS = 524_288
# How many cells openpyxl may make in all to pad the rows of one part up to their last cells.
MAX_PADDED_CELLS = 16_777_216
_SPREADSHEET_ML = "http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_ROW, _CELL = f"{_SPREADSHEET_ML}row", f"{_SPREADSHEET_ML}c"


class _NotChecked(Exception):
    """The part is not plain XML: openpyxl's own parser (defusedxml's) refuses it where this stops."""


def _column(reference: str | None, previous: int) -> int:
    """A cell's column (1-based) as openpyxl counts it: by its reference, else the one after the last."""
    if not reference:
        return previous + 1
    column = 0
    for letter in reference.rstrip("0123456789"):
        column = column * 26 + ord(letter.upper()) - 64
    return column


class _PartCounts:
    """A part's rows, the last row's number, the current row's cells and last column, and the cells
    padding would make."""

    def __init__(self) -> None:
        self.rows = self.number = self.cells = self.column = self.padded = 0

    def end_row(self) -> None:
        self.padded += self.column
        self.cells = self.column = 0
        if self.padded > MAX_PADDED_CELLS:
            raise SheetTooBig(TOO_MANY_CELLS)

    def start(self, tag: str, attributes: dict[str, str]) -> None:
        if tag == _ROW:
            self.end_row()
            self.rows += 1
            if self.rows > MAX_ROW_ELEMENTS:
                raise SheetTooBig(TOO_MANY_ROWS)
            reference = attributes.get("r")
            number = int(float(reference)) if reference else self.number + 1
            if number <= self.number:
                # openpyxl would drop the row unread: the file is refused as damaged, never read in part.
                raise ValueError(f"row {number} after row {self.number}")
            if number > EXCEL_ROWS:
                raise SheetTooBig(TOO_MANY_ROWS)
            self.number = number
        elif tag == _CELL:
            self.cells += 1
            self.column = _column(attributes.get("r"), self.column)
            if self.cells > EXCEL_COLUMNS:
                raise SheetTooBig(TOO_MANY_COLUMNS)


def _refuse_doctype(*_: object) -> None:
    raise _NotChecked


def _check_part(source: IO[bytes]) -> None:
    """A part that is not XML, or declares a DTD, is left to openpyxl, whose parser (defusedxml's)
    fails on it where this stops."""
    counts = _PartCounts()
    parser = expat.ParserCreate(namespace_separator="}")
    parser.StartElementHandler = counts.start
    parser.StartDoctypeDeclHandler = _refuse_doctype
    try:
        while chunk := source.read(1 << 16):
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except (expat.ExpatError, _NotChecked):
        return
    counts.end_row()


def _check_parts(data: bytes) -> None:
    with open_zip(data) as archive:
        for entry in archive.infolist():
            with archive.open(entry) as source:
                _check_part(source)


def _cells(values: tuple[object, ...]) -> list[str]:
    """A row's texts; a text beyond the columns' cap is refused, the empty cells there cost nothing."""
    cells: list[str] = []
    for column, value in enumerate(values[:MAX_COLUMNS]):
        text = cell_text(value)
        if text:
            place(cells, column, text)
    beyond = values[MAX_COLUMNS:]
    if beyond.count(None) != len(beyond) and any(cell_text(value) for value in beyond):
        raise SheetTooBig(TOO_MANY_COLUMNS)
    return cells


def xlsx_rows(data: bytes) -> Iterator[tuple[list[str], int]]:
    import openpyxl

    _check_parts(data)
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        sheet = book.worksheets[0]
        sheet.reset_dimensions()
        for values in sheet.iter_rows(values_only=True):
            if values:  # not one of the empty rows openpyxl hands over for the numbers skipped
                yield _cells(values), 1
    finally:
        book.close()
