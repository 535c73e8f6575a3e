"""An uploaded file checked as a whole before anything is sent: readable, its template allowed,
every row good, the trial-mode recipients and today's limits respected."""
from __future__ import annotations

from collections.abc import Sequence

from models.service import Service
from models.template import TemplateVersion
from pipeline.domain.errors import Refusal
from pipeline.domain.refusals import not_allowed_message
from pipeline.infrastructure import daily_limits
from pipeline.stages.jobs.alternatives import check_alternatives
from pipeline.stages.jobs.checking import CheckedSheet, Problem, check_sheet
from pipeline.stages.jobs.sheet_limits import SheetTooBig
from pipeline.stages.jobs.spreadsheet import UnreadableFile, file_format, read_sheet
from pipeline.stages.send_checks import team_and_guest_list, trial_letters_message, trial_mode_message

BULK_CHANNELS = ("sms", "email", "letter")


NOT_A_SPREADSHEET = Refusal("file_not_a_spreadsheet", "The file must be a CSV, XLSX or ODS spreadsheet")
UNREADABLE = Refusal("file_unreadable", "The file could not be read as a spreadsheet")


def _refused(message: Refusal) -> CheckedSheet:
    return CheckedSheet([], None, [], [Problem(None, None, message)])


def _over_limit(kind: str, limit: int, rows: int, left: int) -> Refusal:
    over = daily_limits.limit_message(kind, limit)
    return Refusal("file_over_daily_limit", f"{over}: {rows} rows, {left} left today",
                   {**over.values, "rows": rows, "left": left})


def _over_limits(service: Service, channel: str, checked: CheckedSheet) -> list[Problem]:
    wanted = {channel: len(checked.rows), "international_sms": checked.international_rows}
    used = daily_limits.used_today(service.id, list(wanted))
    return [Problem(None, None, _over_limit(kind, service.daily_limit(kind), wanted[kind],
                                            max(0, service.daily_limit(kind) - used[kind])))
            for kind in wanted if wanted[kind] and used[kind] + wanted[kind] > service.daily_limit(kind)]


def check_upload(service: Service, version: TemplateVersion, file_name: str, data: bytes,
                 alternatives: Sequence[TemplateVersion] = ()) -> CheckedSheet:
    """The file checked for the template and for the alternatives its rows fall back to (email, then
    letter: pipeline/stages/jobs/alternatives.py)."""
    channel = version.template.template_type
    for used in (channel, *(other.template.template_type for other in alternatives)):
        if not service.has_permission(used):
            return _refused(not_allowed_message(used))
        if used == "letter" and service.trial_mode:
            return _refused(trial_letters_message())
    if file_format(file_name) is None:
        return _refused(NOT_A_SPREADSHEET)
    try:
        sheet = read_sheet(file_name, data)
    except SheetTooBig as exc:
        return _refused(exc.refusal)
    except UnreadableFile:
        return _refused(UNREADABLE)
    checked = check_sheet(
        sheet, channel, version, international_allowed=service.has_permission("international_sms"),
        allowed_recipients=team_and_guest_list(service, channel) if service.trial_mode else None,
        trial_message=trial_mode_message())
    check_alternatives(sheet, checked, alternatives, trial_message=trial_mode_message(),
                       allowed_emails=team_and_guest_list(service, "email") if service.trial_mode else None)
    if not checked.problems:
        checked.problems.extend(_over_limits(service, channel, checked))
    return checked
