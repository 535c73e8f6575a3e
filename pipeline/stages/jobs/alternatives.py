"""A sheet's alternatives (issue 44): the templates its texts (or emails) fall back to, an email then
a letter, chosen for the whole file, and each row's own recipients for them.

A row gives an alternative its recipient from the same file: the email address column for an email,
the address columns for a letter. A row whose cells for an alternative are all blank gets no such
alternative (not everyone has an email address); a row that fills them in is checked as that message
would be if sent alone, and its problems refuse the file as the first message's do. Each row's
alternatives are kept with it, as the API's `fallback` list, until the stage that makes its
notification gives them to it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from models.template import TemplateVersion
from pipeline.domain.errors import Refusal
from pipeline.domain.letters.content import ADDRESS_KEYS
from pipeline.domain.recipients import AddressErrors, InvalidRecipient, recipient_of, validate_postal_address
from pipeline.domain.recipients.email_address import format_email_for_comparison
from pipeline.domain.rendering import normalise_key
from pipeline.domain.rendering.address_names import in_spec_names
from pipeline.stages.jobs.checking import CheckedSheet, Problem, content_problems, missing_column
from pipeline.stages.jobs.columns import EMAIL, find_column, missing_columns, placeholder_columns
from pipeline.stages.jobs.spreadsheet import Sheet


def _own_values(version: TemplateVersion, header: list[str], cells: list[str]) -> dict[str, object]:
    """The row's values of this template's placeholders, and a letter's address cells under the spec's
    names."""
    keys = {normalise_key(name) for name in placeholder_columns(version)}
    if version.template.template_type == "letter":
        keys |= ADDRESS_KEYS
    return in_spec_names({name: cells[i] for i, name in enumerate(header)
                          if cells[i] != "" and normalise_key(name) in keys})


def _email(version: TemplateVersion, header: list[str], cells: list[str], values: Mapping[str, object],
           allowed: set[str] | None, trial_message: Refusal) -> tuple[dict | None, list[Problem]]:
    column = find_column(header, EMAIL)
    raw = cells[column].strip() if column is not None else ""
    if column is None or not raw:
        return None, []
    try:
        recipient = recipient_of("email", raw)
    except InvalidRecipient as exc:
        return None, [Problem(None, header[column], exc.message.about("email_address"))]
    if allowed is not None and format_email_for_comparison(recipient.normalised) not in allowed:
        return None, [Problem(None, header[column], trial_message)]
    merged = {**values, **_own_values(version, header, cells)}
    problems = [Problem(None, name, message) for name, message in content_problems("email", version, merged)]
    alternative = {"type": "email", "template_id": str(version.template.id), "personalisation": merged,
                   "email_address": raw}
    return (None if problems else alternative), problems


def _letter(version: TemplateVersion, header: list[str], cells: list[str],
            values: Mapping[str, object]) -> tuple[dict | None, list[Problem]]:
    own = _own_values(version, header, cells)
    if not any(normalise_key(key) in ADDRESS_KEYS for key in own):
        return None, []
    try:
        validate_postal_address(own)
    except AddressErrors as errors:
        return None, [Problem(None, None, message) for message in errors.messages]
    merged = {**values, **own}
    problems = [Problem(None, name, message) for name, message in content_problems("letter", version, merged)]
    alternative = {"type": "letter", "template_id": str(version.template.id), "personalisation": merged}
    return (None if problems else alternative), problems


def check_alternatives(sheet: Sheet, checked: CheckedSheet, versions: Sequence[TemplateVersion], *,
                       allowed_emails: set[str] | None, trial_message: Refusal) -> None:
    """Check each row's alternatives (versions: the templates, in the order they are tried) and keep them
    as the row's third item; allowed_emails (comparison form) is given for a trial-mode service."""
    if not versions or len(checked.rows) != len(sheet.rows):  # the file as a whole was refused
        return
    header = sheet.header
    missing = list(dict.fromkeys(name for version in versions for name in missing_columns(header, version)))
    checked.problems.extend(Problem(None, None, missing_column(name)) for name in missing)
    if missing:
        return
    for offset, (cells, row) in enumerate(zip(sheet.rows, checked.rows, strict=True)):
        made = []
        for version in versions:
            if version.template.template_type == "email":
                alternative, problems = _email(version, header, cells, row[1], allowed_emails, trial_message)
            else:
                alternative, problems = _letter(version, header, cells, row[1])
            checked.problems.extend(Problem(offset + 2, p.column, p.message) for p in problems)
            made += [alternative] if alternative else []
        row.append(made)
