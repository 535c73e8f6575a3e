"""Reading the first sheet of an XLSX file as a stream of rows.

openpyxl (read-only mode) reads the workbook's parts and turns each cell into its value (shared
strings, numbers, dates by their style); its own row iteration is not used, because it trusts the
sheet's <dimension> and makes every empty cell and row before a far one (A1:XFD1048576 is a million
rows of 16,384 cells). Here the sheet's XML is read cell by cell with openpyxl's parser (defusedxml's
when installed, as it is here) and each cell is dropped once read: memory holds one row's text.
"""
from __future__ import annotations

import io
from collections.abc import Iterator
from xml.etree.ElementTree import Element

from pipeline.jobs.cells import cell_text
from pipeline.jobs.sheet_limits import open_zip, place


def xlsx_rows(data: bytes) -> Iterator[tuple[list[str], int]]:
    import openpyxl
    from openpyxl.worksheet._reader import CELL_TAG, ROW_TAG, WorkSheetParser
    from openpyxl.xml.functions import iterparse

    open_zip(data).close()
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        sheet = book.worksheets[0]
        # The parser the read-only sheet makes for its rows (openpyxl 3.1's ReadOnlyWorksheet._cells_by_row).
        parser = WorkSheetParser(None, sheet._shared_strings, data_only=True, epoch=book.epoch,
                                 date_formats=book._date_formats, timedelta_formats=book._timedelta_formats)
        with sheet._get_source() as source:
            open_elements: list[Element] = []
            in_cell = 0
            cells: list[str] = []
            for event, element in iterparse(source, events=("start", "end")):
                if event == "start":
                    open_elements.append(element)
                    in_cell += element.tag == CELL_TAG
                    if element.tag == ROW_TAG:
                        parser.col_counter = 0  # a cell without a reference follows the one before it
                        cells = []
                    continue
                open_elements.pop()
                if element.tag == CELL_TAG:
                    in_cell -= 1
                    cell = parser.parse_cell(element)
                    text = cell_text(cell["value"])
                    if text:
                        place(cells, cell["column"] - 1, text)
                elif element.tag == ROW_TAG:
                    yield cells, 1
                if open_elements and not in_cell:
                    # What has been read is dropped: memory holds the open elements and one row's text.
                    open_elements[-1].remove(element)
    finally:
        book.close()
