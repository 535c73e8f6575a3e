"""Spreadsheets and jobs for the bulk-sending tests."""
from __future__ import annotations

import io
import time
from collections.abc import Callable

from models.job import Job
from models.service import Service
from models.template import Template, find_version
from pipeline.stages.jobs.lifecycle import create_job
from pipeline.stages.jobs.upload import check_upload


def phone(n: int) -> str:
    """A distinct valid Dutch mobile number per n, written as people write them."""
    return f"06{12000000 + n:08d}"


def csv_file(header: list[str], rows: list[list[str]]) -> bytes:
    lines = [",".join(header)] + [",".join(row) for row in rows]
    return ("\r\n".join(lines) + "\r\n").encode()


def xlsx_file(header: list[str], rows: list[list[object]]) -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(header)
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def ods_file(header: list[str], rows: list[list[object]]) -> bytes:
    from odf.opendocument import OpenDocumentSpreadsheet
    from odf.table import Table, TableCell, TableRow
    from odf.text import P

    document = OpenDocumentSpreadsheet()
    table = Table(name="Sheet1")
    for values in [header, *rows]:
        row = TableRow()
        for value in values:
            if isinstance(value, (int, float)):
                cell = TableCell(valuetype="float", value=value)
            else:
                cell = TableCell(valuetype="string")
            cell.addElement(P(text=str(value)))
            row.addElement(cell)
        table.addElement(row)
    document.spreadsheet.addElement(table)
    out = io.BytesIO()
    document.write(out)
    return out.getvalue()


def sms_rows(count: int) -> bytes:
    return csv_file(["Phone number", "name"], [[phone(n), f"Person {n}"] for n in range(count)])


def make_job(service: Service, template: Template, data: bytes, file_name: str = "people.csv", **options) -> Job:
    version = find_version(service, template.id)
    checked = check_upload(service, version, file_name, data)
    assert checked.problems == []
    return create_job(service, version, file_name, checked, **options)


def wait_for(condition: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.1)
