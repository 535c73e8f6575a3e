"""A checked file's problems in the page's language: those of the file as a whole here, a row's as the
console words the same refusal of a message sent one at a time (console/services/refusals.py). A
problem many rows share is shown once, with the rows it affects ("rows 2–200, 205")."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flask_babel import format_decimal, get_locale, gettext as _, lazy_gettext as _l

from console.services.refusals import Words, fixed, in_words, translated
from pipeline.stages.jobs.checking import Problem
from pipeline.stages.jobs.columns import shown

KINDS = {"sms": _l("text messages"), "email": _l("emails"), "letter": _l("letters"),
         "international_sms": _l("international text messages")}


def _cap(values: Mapping[str, Any]) -> str:
    """A cap of pipeline/stages/jobs/sheet_limits.py in the reader's way of writing numbers."""
    return format_decimal(values["count"])


WORDS: dict[str, Words] = {
    "file_not_a_spreadsheet": fixed(_l("The file must be a CSV, XLSX or ODS spreadsheet")),
    "file_unreadable": fixed(_l("The file could not be read as a spreadsheet")),
    "file_no_rows": fixed(_l("The file has no rows of recipients")),
    "file_too_many_rows": lambda values: _("The file has more than %(count)s rows", count=_cap(values)),
    "file_too_many_columns": lambda values: _("The file has more than %(count)s columns", count=_cap(values)),
    "file_too_many_cells": lambda values: _("The file has more than %(count)s cells", count=_cap(values)),
    "file_cell_too_long": lambda values: _("A cell of the file has more than %(count)s characters",
                                           count=_cap(values)),
    "file_row_too_long": lambda values: _("A row of the file has more than %(count)s characters", count=_cap(values)),
    "file_too_much_text": lambda values: _("The file has more than %(count)s characters of text", count=_cap(values)),
    "file_too_big_unpacked": fixed(_l("The file is too big once unpacked")),
    "file_missing_column": lambda values: _("The file has no column called “%(name)s”",
                                            name=shown(values["name"], str(get_locale()))),
    # A row's address line left blank (a blank cell is no value): named as the file's column is.
    "address_line_required": lambda values: _("Fill in “%(name)s”", name=shown(
        values["field"].replace("_", " "), str(get_locale()))),
    "file_over_daily_limit": lambda values: _(
        "The file has %(rows)s rows, but the service can send only %(left)s more %(kind)s today "
        "(its daily limit is %(limit)s). Nothing has been sent.", rows=values["rows"], left=values["left"],
        kind=KINDS[values["kind"]], limit=values["limit"]),
}


def translated_problem(message: str) -> str:
    return in_words(message, WORDS) or translated(message)


@dataclass
class ProblemKind:
    """One problem as the page shows it, and the rows of the file (as numbered in a spreadsheet) it affects."""
    message: str
    column: str | None
    rows: list[int] = field(default_factory=list)

    @property
    def row_ranges(self) -> str:
        """"2–200, 205": runs of consecutive rows joined by an en dash."""
        runs: list[list[int]] = []
        for row in sorted(set(self.rows)):
            if runs and row == runs[-1][1] + 1:
                runs[-1][1] = row
            else:
                runs.append([row, row])
        return ", ".join(str(first) if first == last else f"{first}–{last}" for first, last in runs)


def problem_kinds(problems: Iterable[Problem]) -> list[ProblemKind]:
    """The problems grouped by what they say and which column they concern, in the order first met; the
    problems of the file as a whole first."""
    kinds: dict[tuple[str, str | None, bool], ProblemKind] = {}
    for problem in problems:
        message = translated_problem(problem.message)
        kind = kinds.setdefault((message, problem.column, problem.row is None),
                                ProblemKind(message, problem.column))
        if problem.row is not None:
            kind.rows.append(problem.row)
    return sorted(kinds.values(), key=lambda kind: bool(kind.rows))
