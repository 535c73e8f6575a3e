"""Reading the first sheet of an ODS file as a stream of rows, with defusedxml's event parser (no
entities, no DTD) over content.xml: nothing of the document is kept but the row being read.

ODS writes a run of equal rows or cells once, with a repeat count (number-rows-repeated,
number-columns-repeated): a sheet's trailing empty cells and rows come as one cell or row repeated
to the sheet's last column (16,384) or row (1,048,576). The counts are honoured arithmetically: an
empty run only moves the position, a run with text is checked against the caps before it is copied.
"""
from __future__ import annotations

from collections.abc import Iterator
from xml.etree.ElementTree import Element

from defusedxml.ElementTree import iterparse

from pipeline.stages.jobs.cells import cell_text
from pipeline.stages.jobs.sheet_limits import CELL_TOO_LONG, MAX_CELL_CHARS, SheetTooBig, open_zip, place

TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
CELLS = (f"{TABLE}table-cell", f"{TABLE}covered-table-cell")
NUMBER_TYPES = ("float", "percentage", "currency")


def _repeat(element: Element, name: str) -> int:
    count = int(element.get(f"{TABLE}{name}", "1"))
    if count < 1:
        raise ValueError(f"{name} {count}")
    return count


def _paragraph(element: Element, pieces: list[str], length: int = 0) -> int:
    """Adds a paragraph's text to pieces; returns the cell's length so far, refused over the cap as it
    grows (<text:s text:c="n"/> is n spaces, counted before they are made)."""
    def add(text: str | None, length: int) -> int:
        if text:
            length += len(text)
            if length > MAX_CELL_CHARS:
                raise SheetTooBig(CELL_TOO_LONG)
            pieces.append(text)
        return length

    length = add(element.text, length)
    for child in element:
        if child.tag == f"{TEXT}s":
            spaces = int(child.get(f"{TEXT}c", "1"))
            if length + spaces > MAX_CELL_CHARS:
                raise SheetTooBig(CELL_TOO_LONG)
            length = add(" " * spaces, length)
        elif child.tag == f"{TEXT}tab":
            length = add("\t", length)
        elif child.tag == f"{TEXT}line-break":
            length = add("\n", length)
        else:
            length = _paragraph(child, pieces, length)
        length = add(child.tail, length)
    return length


def _cell_text(cell: Element) -> str:
    """A number's value, else the text of the cell's paragraphs (not of its comment), one per line."""
    value = cell.get(f"{OFFICE}value")
    if cell.get(f"{OFFICE}value-type") in NUMBER_TYPES and value is not None:
        return cell_text(float(value))
    pieces: list[str] = []
    length = 0
    for child in cell:
        if child.tag in (f"{TEXT}p", f"{TEXT}h"):
            if pieces:
                pieces.append("\n")
            length = _paragraph(child, pieces, length + bool(pieces))
    return "".join(pieces).strip()


def ods_rows(data: bytes) -> Iterator[tuple[list[str], int]]:
    with open_zip(data) as archive, archive.open("content.xml") as content:
        open_elements: list[Element] = []
        tables = 0  # open tables: rows are read at 1 (the first table ends the reading)
        in_cell = 0
        cells: list[str] = []
        column = 0
        for event, element in iterparse(content, events=("start", "end")):
            tag = element.tag
            if event == "start":
                open_elements.append(element)
                tables += tag == f"{TABLE}table"
                in_cell += tag in CELLS
                if tag == f"{TABLE}table-row":
                    cells, column = [], 0
                continue
            open_elements.pop()
            if tag == f"{TABLE}table":
                tables -= 1
                if not tables:
                    return
            elif tag in CELLS:
                in_cell -= 1
                if tables == 1 and not in_cell:
                    repeat = _repeat(element, "number-columns-repeated")
                    text = _cell_text(element)
                    if text:
                        place(cells, column, text, repeat)
                    column += repeat
            elif tag == f"{TABLE}table-row" and tables == 1 and not in_cell:
                yield cells, _repeat(element, "number-rows-repeated")
            if not in_cell and open_elements:
                # What has been read is dropped: memory holds the open elements and one row's text.
                open_elements[-1].remove(element)
