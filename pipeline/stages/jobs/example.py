"""An example file for a template: its columns named in the reader's language, as CSV or XLSX.

Its one example row holds only the recipient when that is the downloader's own email address or
mobile number: every other cell is left to fill in, so a file uploaded unchanged is refused for its
empty cells and never sends made-up text or a letter to a made-up address.
"""
from __future__ import annotations

import io

from models.template import TemplateVersion
from pipeline.domain.csv_output import csv_text
from pipeline.stages.jobs.columns import template_columns


def example_rows(version: TemplateVersion, language: str, own_recipient: str | None) -> list[list[str]]:
    columns = template_columns(version)
    rows = [columns.shown(language)]
    if own_recipient and version.template.template_type != "letter":
        rows.append([own_recipient] + [""] * len(columns.placeholders))
    return rows


def example_csv(rows: list[list[str]]) -> bytes:
    # With a byte order mark: spreadsheet programs on Windows read UTF-8 only then ("e-mailadres", "ë").
    return csv_text(rows).encode("utf-8-sig")


def example_xlsx(rows: list[list[str]]) -> bytes:
    import openpyxl
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
    from openpyxl.utils import get_column_letter

    book = openpyxl.Workbook()
    sheet = book.active
    for row_number, row in enumerate(rows, start=1):
        for column_number, value in enumerate(row, start=1):
            cell = sheet.cell(row=row_number, column=column_number, value=ILLEGAL_CHARACTERS_RE.sub("", value))
            cell.data_type = "s"  # text, even where a name starts with "=": never a formula
            cell.number_format = "@"
    for column_number in range(1, len(rows[0]) + 1):
        # Text columns: a number typed in later keeps its leading zero (0612345678).
        sheet.column_dimensions[get_column_letter(column_number)].number_format = "@"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
