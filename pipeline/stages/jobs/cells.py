"""A spreadsheet cell's value as the text a recipient's field holds, the same for every format."""
from __future__ import annotations

import datetime


def cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # a number typed into a cell: 612345678, not 612345678.0
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    return str(value).strip()
