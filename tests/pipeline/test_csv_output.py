"""The one CSV writer: what a spreadsheet would run as a formula comes out as text."""
from __future__ import annotations

import csv
import io

import pytest

from pipeline.domain.csv_output import csv_text


@pytest.mark.parametrize("value, cell", [
    ("=1+1", "'=1+1"), ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1+1", "'\t=1+1"), ("\r=1+1", "'\r=1+1"), ("+31 6 1234 5678", "'+31 6 1234 5678"),
    ("+31612345678", "+31612345678"), ("-42", "-42"), ("-3.50", "-3.50"), ("a=b", "a=b"), (None, ""), (7, "7"),
])
def test_a_cell_reads_back_as_text(value, cell):
    assert list(csv.reader(io.StringIO(csv_text([[value, "x"]]), newline=""))) == [[cell, "x"]]
