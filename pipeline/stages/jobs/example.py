"""An example file for a template: its columns named in the reader's language, as CSV or XLSX, and one row
that the upload takes as it is, so a newcomer can try the whole way before writing their own.

The row goes to the downloader themselves: their email address or mobile number (a text or email
template; without a number of their own there is no row, as a made-up number may be someone's), or for
a letter the service's own address (its default contact block, when that is a postal address), so a
letter sent unchanged comes back to the team; without one, an address in Voorbeeldstad, a town that does
not exist, which the check page shows before anything is sent. Each placeholder holds its own name
("naam"), so what arrives reads as the example it is.
"""
from __future__ import annotations

import io

from models.template import TemplateVersion
from pipeline.domain.csv_output import csv_text
from pipeline.domain.recipients import AddressErrors, validate_postal_address, written_recipient
from pipeline.stages.jobs.columns import template_columns

EXAMPLE_ADDRESS = ("A. de Vries", "Voorbeeldstraat 1", "1234 AB Voorbeeldstad")


def example_address(contact_block: str | None) -> tuple[str, ...]:
    """The address a letter's example row goes to: the service's contact block when its lines are a postal
    address, else the example town's."""
    lines = [line.strip() for line in (contact_block or "").splitlines() if line.strip()]
    try:
        validate_postal_address({f"address_line_{n}": line for n, line in enumerate(lines, start=1)})
    except AddressErrors:
        return EXAMPLE_ADDRESS
    return tuple(lines)


def example_rows(version: TemplateVersion, language: str, own_recipient: str | None,
                 contact_block: str | None = None) -> list[list[str]]:
    columns = template_columns(version)
    rows = [columns.shown(language)]
    channel = version.template.template_type
    if channel == "letter":
        address = example_address(contact_block)
        if len(address) > len(columns.recipient):  # more lines than the file has address columns
            address = EXAMPLE_ADDRESS
        recipient = [address[n] if n < len(address) else "" for n in range(len(columns.recipient))]
    elif own_recipient:
        recipient = [written_recipient(channel, own_recipient)]
    else:
        return rows
    return [*rows, recipient + list(columns.placeholders)]


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
