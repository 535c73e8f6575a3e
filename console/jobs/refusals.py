"""A checked file's problems in the page's language: those of the file as a whole here, a row's as the
console words the same refusal of a message sent one at a time (console/services/refusals.py). A
problem many rows share is shown once, with the rows it affects ("rows 2–200, 205")."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from flask_babel import format_decimal, get_locale, gettext as _, lazy_gettext as _l

from console.services.refusals import translated
from pipeline.jobs import sheet_limits as caps
from pipeline.jobs.checking import MISSING_COLUMN, Problem
from pipeline.jobs.columns import shown

WHOLE = {
    "The file must be a CSV, XLSX or ODS spreadsheet": _l("The file must be a CSV, XLSX or ODS spreadsheet"),
    "The file could not be read as a spreadsheet": _l("The file could not be read as a spreadsheet"),
    "The file has no rows of recipients": _l("The file has no rows of recipients"),
    "Service is not allowed to send text messages": _l("This service may not send text messages"),
    "Service is not allowed to send emails": _l("This service may not send emails"),
    "Service is not allowed to send letters": _l("This service may not send letters"),
}
# A file over a cap of pipeline/jobs/sheet_limits.py: the cap in the reader's way of writing numbers.
OVER_CAPS: dict[str, Callable[[], str]] = {
    caps.TOO_MANY_ROWS: lambda: _("The file has more than %(count)s rows", count=format_decimal(caps.MAX_ROWS)),
    caps.TOO_MANY_COLUMNS: lambda: _("The file has more than %(count)s columns",
                                     count=format_decimal(caps.MAX_COLUMNS)),
    caps.TOO_MANY_CELLS: lambda: _("The file has more than %(count)s cells", count=format_decimal(caps.MAX_CELLS)),
    caps.CELL_TOO_LONG: lambda: _("A cell of the file has more than %(count)s characters",
                                  count=format_decimal(caps.MAX_CELL_CHARS)),
    caps.ROW_TOO_LONG: lambda: _("A row of the file has more than %(count)s characters",
                                 count=format_decimal(caps.MAX_ROW_CHARS)),
    caps.TOO_MUCH_TEXT: lambda: _("The file has more than %(count)s characters of text",
                                  count=format_decimal(caps.MAX_TEXT_CHARS)),
    caps.TOO_BIG_UNPACKED: lambda: _("The file is too big once unpacked"),
}
_OVER_LIMIT = re.compile(r"Exceeded send limits \((?P<kind>[a-z_]+): (?P<limit>\d+)\) for today: "
                         r"(?P<rows>\d+) rows, (?P<left>\d+) left today")
KINDS = {"sms": _l("text messages"), "email": _l("emails"), "letter": _l("letters"),
         "international_sms": _l("international text messages")}


def translated_problem(message: str) -> str:
    if message in WHOLE:
        return str(WHOLE[message])
    if message in OVER_CAPS:
        return OVER_CAPS[message]()
    if message.startswith(MISSING_COLUMN):
        return _("The file has no column called “%(name)s”",
                 name=shown(message.removeprefix(MISSING_COLUMN), str(get_locale())))
    over = _OVER_LIMIT.fullmatch(message)
    if over:
        return _("The file has %(rows)s rows, but the service can send only %(left)s more %(kind)s today "
                 "(its daily limit is %(limit)s). Nothing has been sent.", rows=over["rows"], left=over["left"],
                 kind=KINDS[over["kind"]], limit=over["limit"])
    return translated(message)


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
