"""CSV files the service hands out: every cell goes through `text_cell`, so a spreadsheet opening the
file never runs a cell as a formula (OWASP "CSV injection").

References, template names, key and file names and addresses are typed by services and recipients, so
any of them can start with a formula. A cell starting with =, +, -, @, a tab or a carriage return gets a
single quote in front, which spreadsheets read as "this is text". A cell that is a plain number
(optional sign, digits, optional decimals: an international phone number like +31612345678, or -3.5) is
left as it is: it evaluates to itself, so there is nothing to neutralise, and a quote would show in
every phone number of a report.
"""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def text_cell(value: object) -> str:
    """The value as a cell's text; None is an empty cell."""
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_text(rows: Iterable[Iterable[object]]) -> str:
    """The rows as CSV (Excel's dialect, CRLF line ends), every cell through text_cell."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows([text_cell(cell) for cell in row] for row in rows)
    return out.getvalue()
