"""CSV files the service hands out: every cell goes through `text_cell`, so a spreadsheet opening the file
never runs a cell as a formula (OWASP "CSV injection"), and no cell shows a mark it was not given.

References, template names, key and file names, addresses and refusals are typed by services, recipients
and callers, so any of them can hold a formula. A spreadsheet takes a cell for a formula when it starts with
=, +, - or @ (or their full-width forms, which some locales read the same), also after a tab, a carriage
return or spaces that the program may strip first. So can a part of a cell after a comma, a semicolon or a
line break: a program that splits the file at another separator than ours (a Dutch Excel splits at ";")
makes that part a cell of its own. Each such start is neutralised with a zero-width space (U+200B) before its
sign: the cell then starts with a character that is no formula's, reads exactly as given, and a phone
number or address copied out of it and pasted back is read the same (the phone and address rules drop
zero-width characters). A leading apostrophe would do the same but shows in the cell, where Excel opening
a CSV keeps it.

Left as they are: a plain number (an optional sign, digits, optional decimals: +31612345678 or -3.5), which
evaluates to itself, and a lone sign ("-" for "none"); a sign inside a word ("a=b", "jan+nieuws@example.nl").
"""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable

NEUTRAL = "\u200b"  # ZERO WIDTH SPACE: not a formula's first character, and drawn as nothing
_SIGNS = "=+\\-@\uff1d\uff0b\uff0d\uff20"  # = + - @ and their full-width forms
# A part of the cell where a spreadsheet may start reading a cell: the start, or after a separator a
# program may split at; then what it may strip before reading (spaces, tabs, returns); then a sign.
_PART_START = re.compile(rf"(?:^|(?<=[,;\r\n]))[ \t\r\n]*(?=[{_SIGNS}])")
_NOT_A_FORMULA = re.compile(rf"[+\-]?[0-9]+(?:[.,][0-9]+)?|[{_SIGNS}]")
_PART_END = re.compile(r"[,;\r\n]")


def text_cell(value: object) -> str:
    """The value as a cell's text; None is an empty cell."""
    text = "" if value is None else str(value)
    pieces: list[str] = []
    taken = 0
    for start in _PART_START.finditer(text):
        sign = start.end()
        if sign < taken or (pieces and sign == taken):  # after "\r\n" both line ends find the same sign
            continue
        end = _PART_END.search(text, sign)
        part = text[sign:end.start() if end else len(text)].rstrip(" \t")
        if _NOT_A_FORMULA.fullmatch(part):
            continue
        pieces += [text[taken:sign], NEUTRAL]
        taken = sign
    return "".join(pieces) + text[taken:]


def csv_text(rows: Iterable[Iterable[object]]) -> str:
    """The rows as CSV (Excel's dialect, CRLF line ends), every cell through text_cell."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows([text_cell(cell) for cell in row] for row in rows)
    return out.getvalue()
