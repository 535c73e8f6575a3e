"""Reading an uploaded spreadsheet (CSV, XLSX, ODS) into a header and rows of text cells.

Every format is read as a stream and checked against the caps of sheet_limits.py while it is read,
so a file that claims or repeats more than it may is refused before anything is expanded: the csv
module for CSV, openpyxl's read-only sheet for XLSX (xlsx_reader.py), defusedxml's event parser for ODS
(ods_reader.py). Only the first sheet is read; rows with no text at all are skipped, as a
spreadsheet program's trailing blank rows are not recipients.
"""
from __future__ import annotations

import codecs
import csv
import io
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePath
from xml.etree.ElementTree import ParseError

from pipeline.stages.jobs.ods_reader import ods_rows
from pipeline.stages.jobs.sheet_limits import (
    CELL_TOO_LONG,
    MAX_ROW_CHARS,
    ROW_TOO_LONG,
    SheetTooBig,
    check_cell,
    collect,
)
from pipeline.stages.jobs.xlsx_reader import xlsx_rows

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


def _encoding(data: bytes) -> str:
    """UTF-8 when the whole file decodes as such (checked in pieces, never decoded whole), else
    Windows-1252, what spreadsheet programs on Windows save."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    try:
        for start in range(0, len(data), 1 << 16):
            decoder.decode(data[start:start + (1 << 16)])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return "cp1252"
    return "utf-8-sig"


class _Lines:
    """The file's lines for csv.reader, which takes them one record at a time: the characters taken
    since the last record are that record's, and a record over the row cap is refused before the
    reader splits it into fields."""

    def __init__(self, text: io.TextIOBase) -> None:
        self._text = text
        self.taken = 0

    def __iter__(self) -> Iterator[str]:
        for line in self._text:
            self.taken += len(line)
            if self.taken > MAX_ROW_CHARS:
                raise SheetTooBig(ROW_TOO_LONG)
            yield line


def _csv_rows(data: bytes) -> Iterator[tuple[list[str], int]]:
    text = io.TextIOWrapper(io.BytesIO(data), encoding=_encoding(data), errors="replace", newline="")
    try:
        dialect = csv.Sniffer().sniff(text.read(4096), delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    text.seek(0)
    lines = _Lines(text)
    try:
        for record in csv.reader(lines, dialect):
            lines.taken = 0
            yield [check_cell(cell.strip()) for cell in record], 1
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):  # the csv module's own cap, above ours
            raise SheetTooBig(CELL_TOO_LONG) from None
        raise


def _readers() -> dict[str, Callable[[bytes], Iterable[tuple[list[str], int]]]]:
    return {"csv": _csv_rows, "xlsx": xlsx_rows, "ods": ods_rows}


def read_sheet(file_name: str, data: bytes) -> Sheet:
    """The file's first sheet. Raises SheetTooBig when it is over a cap, UnreadableFile when it cannot
    be read or has no header row."""
    kind = file_format(file_name)
    if kind is None:
        raise UnreadableFile("unknown file type")
    try:
        header, rows = collect(_readers()[kind](data))
    except SheetTooBig:
        raise
    except (zipfile.BadZipFile, KeyError, IndexError, ValueError, OSError, csv.Error, ParseError,
            RecursionError) as exc:
        raise UnreadableFile(str(exc)) from None
    if not header:
        raise UnreadableFile("no header row")
    return Sheet(header, rows)
