"""Spreadsheet bombs: files that claim or repeat far more than they hold are refused with the cap they
break, within a second and in bounded memory; files at a cap are read. Each bomb is built here."""
from __future__ import annotations

import io
import re
import time
import tracemalloc
import zipfile

import pytest

from pipeline.stages.jobs.sheet_limits import SheetTooBig
from pipeline.stages.jobs.spreadsheet import UnreadableFile, read_sheet
from tests.jobs.helpers import csv_file, phone, xlsx_file

# The issue asks for a refusal within a second; the bound is generous for a loaded test machine,
# and far below what the bombs cost before (85 s, or all of the memory).
REFUSED_WITHIN_SECONDS = 3.0
MEMORY_BOUND_BYTES = 50_000_000

ODS_NAMESPACES = ('xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
                  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
                  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')


def _zip(entries: dict[str, bytes | str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in entries.items():
            archive.writestr(name, body)
    return out.getvalue()


def ods(rows: str, prologue: str = "") -> bytes:
    """An ODS file whose first table holds these table:table-row elements, as LibreOffice writes them."""
    content = (f'<?xml version="1.0" encoding="UTF-8"?>{prologue}<office:document-content {ODS_NAMESPACES}>'
               f'<office:body><office:spreadsheet><table:table table:name="Sheet1">{rows}</table:table>'
               f'<table:table table:name="Sheet2"><table:table-row><table:table-cell office:value-type="string">'
               f'<text:p>second sheet</text:p></table:table-cell></table:table-row></table:table>'
               f'</office:spreadsheet></office:body></office:document-content>')
    return _zip({"mimetype": "application/vnd.oasis.opendocument.spreadsheet", "content.xml": content})


def cell(text: str, repeat: int = 1) -> str:
    repeated = f' table:number-columns-repeated="{repeat}"' if repeat > 1 else ""
    if not text:
        return f"<table:table-cell{repeated}/>"
    return f'<table:table-cell office:value-type="string"{repeated}><text:p>{text}</text:p></table:table-cell>'


def row(*cells: str, repeat: int = 1) -> str:
    repeated = f' table:number-rows-repeated="{repeat}"' if repeat > 1 else ""
    return f"<table:table-row{repeated}>{''.join(cells)}</table:table-row>"


HEADER = row(cell("phone number"), cell("name"))
# LibreOffice's own way of ending a sheet: the empty rest of each row and of the sheet, repeated.
TRAILING = row(cell("", 16384), repeat=1048574)


def xlsx_claiming_the_whole_sheet(far_cell: str) -> bytes:
    """A real XLSX whose <dimension> says A1:XFD1048576, with one more cell at the far corner."""
    made = zipfile.ZipFile(io.BytesIO(xlsx_file(["phone number"], [[phone(0)]])))
    entries: dict[str, bytes | str] = {}
    for name in made.namelist():
        body = made.read(name)
        if name == "xl/worksheets/sheet1.xml":
            body, claimed = re.subn(rb'<dimension ref="A1:A2" ?/>', b'<dimension ref="A1:XFD1048576"/>', body)
            assert claimed == 1
            body = body.replace(b"</sheetData>", f'<row r="1048576">{far_cell}</row></sheetData>'.encode())
        entries[name] = body
    return _zip(entries)


def xlsx_with_sheet(rows_xml: str, prologue: str = "") -> bytes:
    """A real XLSX whose first sheet's data is replaced by these rows."""
    made = zipfile.ZipFile(io.BytesIO(xlsx_file(["phone number"], [[phone(0)]])))
    entries: dict[str, bytes | str] = {}
    for name in made.namelist():
        body = made.read(name)
        if name == "xl/worksheets/sheet1.xml":
            start, end = body.index(b"<sheetData>"), body.index(b"</sheetData>") + len(b"</sheetData>")
            body = prologue.encode() + body[body.index(b"<worksheet"):start] + \
                f"<sheetData>{rows_xml}</sheetData>".encode() + body[end:]
        entries[name] = body
    return _zip(entries)


def _refusal(file_name: str, data: bytes) -> tuple[str, float, int]:
    """The refusal's message, how long it took, and the peak memory of a second run."""
    started = time.monotonic()
    with pytest.raises(SheetTooBig) as refused:
        read_sheet(file_name, data)
    took = time.monotonic() - started
    tracemalloc.start()
    try:
        with pytest.raises(SheetTooBig):
            read_sheet(file_name, data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return str(refused.value), took, peak


BOMBS = {
    # One row repeated to the last row of a sheet (the 846-byte file of the issue).
    "ods-row-repeated-1048576-times": lambda: ("people.ods", ods(HEADER + row(cell(phone(0)), cell("Ann"),
                                                                               repeat=1048576)),
                                               "The file has more than 100,000 rows"),
    # A1:XFD1048576: every row and column of the sheet, with text in its last cell.
    "ods-claiming-a1-xfd1048576": lambda: ("people.ods", ods(HEADER + TRAILING + row(cell("", 16383), cell("x"))),
                                           "The file has more than 1,000 columns"),
    "ods-cell-repeated-to-the-last-column": lambda: ("people.ods", ods(HEADER + row(cell("x", 16384))),
                                                     "The file has more than 1,000 columns"),
    "xlsx-claiming-a1-xfd1048576": lambda: ("people.xlsx", xlsx_claiming_the_whole_sheet(
        '<c r="XFD1048576" t="inlineStr"><is><t>x</t></is></c>'), "The file has more than 1,000 columns"),
    # openpyxl holds a row's cells before handing the row over: a row of a million cells without
    # references (numbers, so that the file packs less than 100 to 1) is refused by counting them.
    "xlsx-row-of-300000-cells": lambda: ("people.xlsx", xlsx_with_sheet(
        "<row>" + "".join(f"<c><v>{n * 7919 % 1000003}</v></c>" for n in range(300_000)) + "</row>"),
        "The file has more than 1,000 columns"),
    # openpyxl keeps an emptied element for each row read; 600,000 empty rows are refused unread.
    "xlsx-600000-empty-rows": lambda: ("people.xlsx", xlsx_with_sheet(
        "".join(f'<row r="{n}"/>' for n in range(1, 600_001))), "The file has more than 100,000 rows"),
    # openpyxl hands over an empty row for each row number skipped: a row numbered two billion.
    "xlsx-row-numbered-beyond-excels-last": lambda: ("people.xlsx", xlsx_with_sheet(
        '<row r="1"><c r="A1"><v>1</v></c></row><row r="2000000000"><c><v>2</v></c></row>'),
        "The file has more than 100,000 rows"),
    # openpyxl pads a row up to its last cell: 2,000 rows out to XFD are 32 million cells to make.
    "xlsx-rows-padded-to-xfd": lambda: ("people.xlsx", xlsx_with_sheet(
        "".join(f'<row r="{n}"><c r="A{n}"><v>{n}</v></c><c r="XFD{n}" s="0"/></row>' for n in range(1, 2001))),
        "The file has more than 4,000,000 cells"),
    "csv-of-150000-rows": lambda: ("people.csv", csv_file(["phone number"], [[phone(n)] for n in range(150_000)]),
                                   "The file has more than 100,000 rows"),
    # 50 MB of spaces packed into 50 KB.
    "xlsx-packed-1000-to-1": lambda: ("people.xlsx", _zip({"xl/worksheets/sheet1.xml": b" " * 50_000_000}),
                                      "The file is too big once unpacked"),
    "ods-of-2000-entries": lambda: ("people.ods", _zip({f"Pictures/{n}.png": b"x" for n in range(2000)}),
                                    "The file is too big once unpacked"),
    # 30,000 characters repeated over 2,000 rows: 60 million characters from a few kilobytes.
    "ods-long-text-repeated": lambda: ("people.ods", ods(HEADER + row(cell(phone(0)), cell("x" * 30_000),
                                                                      repeat=2000)),
                                       "The file has more than 50,000,000 characters of text"),
    "ods-a-million-spaces": lambda: ("people.ods", ods(HEADER + row(cell(phone(0)), '<table:table-cell><text:p>a'
                                                                    '<text:s text:c="1000000"/>b</text:p>'
                                                                    '</table:table-cell>')),
                                     "A cell of the file has more than 32,767 characters"),
    # A thousand runs of 30,000 spaces, each under the cap: 30 million characters from 30 kB.
    "ods-many-runs-of-spaces": lambda: ("people.ods", ods(HEADER + row(cell(phone(0)), '<table:table-cell><text:p>'
                                                                       + '<text:s text:c="30000"/>' * 1000 +
                                                                       '</text:p></table:table-cell>')),
                                        "A cell of the file has more than 32,767 characters"),
    # A record of a million fields made of short lines, each a quoted line break.
    "csv-record-of-quoted-line-breaks": lambda: ("people.csv", b"phone number\n" + b'"\n",' * 400_000 + b"x\n",
                                                 "A row of the file has more than 1,000,000 characters"),
    # A header 1,000 columns wide over 4,001 rows of one cell each: four million empty cells to pad.
    "csv-wide-header-over-many-rows": lambda: ("people.csv", csv_file(
        ["phone number"] + [f"c{n}" for n in range(999)], [[phone(n)] for n in range(4_001)]),
        "The file has more than 4,000,000 cells"),
}


@pytest.mark.parametrize("bomb", BOMBS, ids=list(BOMBS))
def test_a_bomb_is_refused_with_its_cap_within_a_second_in_bounded_memory(bomb):
    file_name, data, expected = BOMBS[bomb]()
    message, took, peak = _refusal(file_name, data)
    assert message == expected
    assert took < REFUSED_WITHIN_SECONDS, f"refused after {took:.2f} s"
    assert peak < MEMORY_BOUND_BYTES, f"peak {peak / 1e6:.1f} MB"


def test_a_sheet_ended_the_way_libreoffice_ends_it_is_read_without_expanding_its_empty_runs():
    data = ods(HEADER + row(cell(phone(0)), cell("Ann"), cell("", 16382)) + row(cell(phone(1)), cell("Bob")) +
               TRAILING)
    tracemalloc.start()
    try:
        sheet = read_sheet("people.ods", data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sheet.header == ["phone number", "name"]
    assert sheet.rows == [[phone(0), "Ann"], [phone(1), "Bob"]]  # the second table is not read
    assert peak < MEMORY_BOUND_BYTES


def test_an_ods_row_with_text_repeated_counts_each_time_and_a_styled_empty_far_cell_costs_nothing():
    sheet = read_sheet("people.ods", ods(HEADER + row(cell(phone(0)), cell("Ann"), repeat=3)))
    assert sheet.rows == [[phone(0), "Ann"]] * 3
    sheet = read_sheet("people.xlsx", xlsx_claiming_the_whole_sheet('<c r="XFD1048576" s="0"/>'))
    assert (sheet.header, sheet.rows) == (["phone number"], [[phone(0)]])


def test_an_xlsx_of_1024_rows_each_with_an_empty_styled_cell_at_xfd_is_read():
    rows = "".join(f'<row r="{n}"><c r="A{n}"><v>{612000000 + n}</v></c><c r="XFD{n}" s="0"/></row>'
                   for n in range(2, 1025))
    header = '<row r="1"><c r="A1" t="inlineStr"><is><t>phone number</t></is></c><c r="XFD1" s="0"/></row>'
    sheet = read_sheet("people.xlsx", xlsx_with_sheet(header + rows))
    assert sheet.header == ["phone number"] and len(sheet.rows) == 1023 and sheet.rows[-1] == ["612001024"]


def test_an_xlsx_whose_rows_go_back_is_refused_as_damaged_and_rows_without_numbers_follow_the_last():
    header = '<row r="1"><c r="A1" t="inlineStr"><is><t>phone number</t></is></c></row>'
    unnumbered = "".join(f"<row><c><v>{612000000 + n}</v></c></row>" for n in range(2))
    sheet = read_sheet("people.xlsx", xlsx_with_sheet(header + unnumbered))
    assert sheet.rows == [["612000000"], ["612000001"]]
    back = '<row r="3"><c r="A3"><v>612000003</v></c></row><row r="2"><c r="A2"><v>612000002</v></c></row>'
    with pytest.raises(UnreadableFile, match="^row 2 after row 3$"):
        read_sheet("people.xlsx", xlsx_with_sheet(header + back))


def test_an_ods_cell_keeps_its_spaces_tabs_and_lines_but_not_its_comment():
    text = ('<table:table-cell office:value-type="string"><office:annotation><text:p>a comment</text:p>'
            '</office:annotation><text:p>Ann<text:s text:c="2"/>van<text:tab/>Dijk</text:p><text:p>'
            '<text:span>second</text:span> line</text:p></table:table-cell>')
    sheet = read_sheet("people.ods", ods(HEADER + row(cell(phone(0)), text)))
    assert sheet.rows == [[phone(0), "Ann  van\tDijk\nsecond line"]]


def test_a_file_at_each_cap_is_read():
    at_rows = csv_file(["phone number", "name"], [[phone(n), f"Person {n}"] for n in range(100_000)])
    started = time.monotonic()
    sheet = read_sheet("people.csv", at_rows)
    took = time.monotonic() - started
    assert len(sheet.rows) == 100_000 and sheet.rows[-1] == [phone(99_999), "Person 99999"]
    print(f"100,000 rows of CSV read in {took:.2f} s")
    one_more = at_rows + f"{phone(100_000)},Person 100000\r\n".encode()
    with pytest.raises(SheetTooBig, match="^The file has more than 100,000 rows$"):
        read_sheet("people.csv", one_more)

    wide = read_sheet("people.csv", csv_file([f"c{n}" for n in range(1000)], [["x"] * 1000]))
    assert len(wide.header) == 1000 and wide.rows == [["x"] * 1000]
    with pytest.raises(SheetTooBig, match="^The file has more than 1,000 columns$"):
        read_sheet("people.csv", csv_file(["phone number"], [[phone(0)] + [""] * 999 + ["x"]]))
    trailing_commas = read_sheet("people.csv", csv_file(["phone number", *[""] * 2000], [[phone(0), *[""] * 2000]]))
    assert (trailing_commas.header, trailing_commas.rows) == (["phone number"], [[phone(0)]])

    long_cell = read_sheet("people.csv", csv_file(["phone number", "note"], [[phone(0), "x" * 32_767]]))
    assert long_cell.rows[0][1] == "x" * 32_767
    with pytest.raises(SheetTooBig, match="^A cell of the file has more than 32,767 characters$"):
        read_sheet("people.csv", csv_file(["phone number", "note"], [[phone(0), "x" * 32_768]]))
    with pytest.raises(SheetTooBig, match="^A cell of the file has more than 32,767 characters$"):
        read_sheet("people.csv", csv_file(["phone number", "note"], [[phone(0), "x" * 200_000]]))


def test_an_xlsx_of_100000_rows_is_read_and_one_more_row_is_refused():
    rows = "".join(f'<row r="{n}"><c r="A{n}"><v>{612000000 + n}</v></c></row>' for n in range(2, 100_002))
    header = '<row r="1"><c r="A1" t="inlineStr"><is><t>phone number</t></is></c></row>'
    started = time.monotonic()
    sheet = read_sheet("people.xlsx", xlsx_with_sheet(header + rows))
    print(f"100,000 rows of XLSX read in {time.monotonic() - started:.2f} s")
    assert len(sheet.rows) == 100_000 and sheet.rows[-1] == ["612100001"]
    more = '<row r="100002"><c r="A100002"><v>1</v></c></row>'
    with pytest.raises(SheetTooBig, match="^The file has more than 100,000 rows$"):
        read_sheet("people.xlsx", xlsx_with_sheet(header + rows + more))


BILLION_LAUGHS = ('<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
                  '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>')


@pytest.mark.parametrize("file_name,data", [
    ("people.ods", ods(row(cell("&lol3;")), prologue=BILLION_LAUGHS)),
    ("people.xlsx", xlsx_with_sheet('<row r="1"><c r="A1" t="inlineStr"><is><t>&lol3;</t></is></c></row>',
                                    prologue=BILLION_LAUGHS)),
])
def test_xml_entities_are_not_expanded(file_name, data):
    with pytest.raises(UnreadableFile):
        read_sheet(file_name, data)
