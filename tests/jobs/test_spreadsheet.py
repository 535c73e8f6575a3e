"""Reading uploaded files: CSV (comma, semicolon, Excel's BOM and Windows encoding), XLSX and ODS
made by their libraries, numbers typed into cells, blank rows and unreadable files."""
from __future__ import annotations

import pytest

from pipeline.stages.jobs.spreadsheet import UnreadableFile, read_sheet
from tests.jobs.helpers import ods_file, xlsx_file

EXPECTED = [["0612345678", "Ann", "12"], ["0612345679", "Bob", "7.5"]]


@pytest.mark.parametrize("name,data", [
    ("a.csv", b"phone number,name,amount\r\n0612345678,Ann,12\r\n0612345679,Bob,7.5\r\n"),
    ("a.CSV", "\ufeffphone number;name;amount\n0612345678;Ann;12\n\n0612345679;Bob;7.5\n".encode()),
    ("a.csv", "phone number\tname\tamount\n0612345678\tAnn\t12\n0612345679\tBob\t7.5\n".encode("cp1252")),
])
def test_csv_files(name, data):
    sheet = read_sheet(name, data)
    assert sheet.header == ["phone number", "name", "amount"]
    assert sheet.rows == EXPECTED


def test_a_windows_csv_keeps_its_accents():
    sheet = read_sheet("a.csv", "email address,name\nann@example.nl,Zoë\n".encode("cp1252"))
    assert sheet.rows == [["ann@example.nl", "Zoë"]]


@pytest.mark.parametrize("name,make", [("a.xlsx", xlsx_file), ("a.ods", ods_file)])
def test_spreadsheet_files_with_numbers_typed_into_cells(name, make):
    data = make(["phone number", "name", "amount"], [["0612345678", "Ann", 12], ["0612345679", "Bob", 7.5]])
    sheet = read_sheet(name, data)
    assert sheet.header == ["phone number", "name", "amount"]
    assert sheet.rows == EXPECTED


def test_dates_typed_into_cells():
    import datetime

    data = xlsx_file(["phone number", "date"], [["0612345678", datetime.datetime(2026, 3, 1, 9, 30)]])
    assert read_sheet("a.xlsx", data).rows == [["0612345678", "2026-03-01 09:30:00"]]


def test_short_rows_are_padded_and_long_ones_cut_to_the_header():
    sheet = read_sheet("a.csv", b"phone number,name\n0612345678\n0612345679,Bob,extra\n")
    assert sheet.rows == [["0612345678", ""], ["0612345679", "Bob"]]


@pytest.mark.parametrize("name,data", [("a.xlsx", b"not a zip"), ("a.ods", b"PK\x03\x04broken"), ("a.csv", b""),
                                       ("a.txt", b"phone number\n0612345678\n")])
def test_unreadable_files(name, data):
    with pytest.raises(UnreadableFile):
        read_sheet(name, data)
