"""Checking every row of an uploaded sheet with the API's rules, before anything is sent.

The recipient columns are Notify's ("phone number" for text messages, "email address" for emails,
"address line 1" to "address line 7" and "postcode" for letters) under any of their Dutch or English
names (columns.py). Every missing column is named at once; then each problem is reported with its row
(numbered as the spreadsheet program shows it: the header is row 1) and column, in the API's words.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from models.template import TemplateVersion, contact_block_of
from pipeline.domain.cost import sms_too_long, sms_too_long_message
from pipeline.domain.errors import Refusal
from pipeline.domain.letters.content import ADDRESS_KEYS, letter_texts
from pipeline.domain.recipients import AddressErrors, InvalidRecipient, recipient_of, validate_postal_address
from pipeline.domain.recipients.email_address import format_email_for_comparison
from pipeline.domain.recipients.phone import format_phone_for_comparison
from pipeline.domain.refusals import (
    INTERNATIONAL_SMS_NOT_ALLOWED,
    email_too_long_message,
    missing_personalisation_message,
)
from pipeline.domain.rendering import missing_personalisation, normalise_key, placeholder_names, render
from pipeline.domain.rendering.address_names import in_spec_names
from pipeline.stages.jobs.columns import RECIPIENT_COLUMN, find_column, missing_columns
from pipeline.stages.jobs.spreadsheet import Sheet

NO_ROWS = Refusal("file_no_rows", "The file has no rows of recipients")


def missing_column(name: str) -> Refusal:
    return Refusal("file_missing_column", f"Missing column: {name}", {"name": name})

API_FIELDS = {"sms": "phone_number", "email": "email_address"}


@dataclass(frozen=True)
class Problem:
    row: int | None  # spreadsheet row number, None for the whole file
    column: str | None
    message: Refusal


@dataclass
class CheckedSheet:
    header: list[str]
    recipient_column: int | None
    rows: list[list]  # [recipient, {placeholder column: value}] per data row, in file order
    problems: list[Problem] = field(default_factory=list)
    international_rows: int = 0


def filled(channel: str, version: TemplateVersion, values: dict) -> tuple[str, str | None]:
    """The message's plain text and subject (a letter's heading). An email's HTML is made at dispatch,
    so it is not built here: letters fill body and subject with the same Markdown-aware rules."""
    rendered = render("letter" if channel == "email" else channel, version.body, version.subject, values)
    return rendered.body, rendered.subject if channel != "sms" else None


def _texts(channel: str, version: TemplateVersion) -> list[str]:
    if channel == "letter":
        return letter_texts(version, contact_block_of(version))
    return [version.subject or "", version.body]


def content_problems(channel: str, version: TemplateVersion, values: dict) -> list[tuple[str | None, Refusal]]:
    """(column or None for the whole row, problem) for each problem of the row's message."""
    missing = missing_personalisation(_texts(channel, version), values)
    if missing:
        return [(name, missing_personalisation_message([name])) for name in missing]
    if channel == "letter":
        return []  # a letter's length is its pages, checked when its PDF is made, as for the API's letters
    body, subject = filled(channel, version, values)
    if channel == "sms" and sms_too_long(body):
        return [(None, sms_too_long_message(len(body)))]
    too_long = email_too_long_message(body, subject) if channel == "email" else None
    return [(None, too_long)] if too_long else []


@dataclass(frozen=True)
class _RecipientRules:
    channel: str
    column: str  # the recipient column's name in the file
    international_allowed: bool
    allowed_recipients: set[str] | None
    trial_message: Refusal


def _recipient_problems(rules: _RecipientRules, raw: str, values: dict) -> tuple[list[Problem], bool]:
    """The row's recipient problems (row None: the caller numbers them), and whether it is international."""
    if rules.channel == "letter":
        try:
            validate_postal_address(values)
        except AddressErrors as errors:
            return [Problem(None, None, message) for message in errors.messages], False
        return [], False
    try:
        recipient = recipient_of(rules.channel, raw)
    except InvalidRecipient as exc:
        return [Problem(None, rules.column, exc.message.about(API_FIELDS[rules.channel]))], False
    problems = []
    if recipient.international and not rules.international_allowed:
        problems.append(Problem(None, rules.column, INTERNATIONAL_SMS_NOT_ALLOWED))
    compare = format_email_for_comparison if rules.channel == "email" else format_phone_for_comparison
    if rules.allowed_recipients is not None and compare(recipient.normalised) not in rules.allowed_recipients:
        problems.append(Problem(None, rules.column, rules.trial_message))
    return problems, recipient.international


def check_sheet(sheet: Sheet, channel: str, version: TemplateVersion, *, international_allowed: bool,
                allowed_recipients: set[str] | None, trial_message: Refusal) -> CheckedSheet:
    """Every row checked; allowed_recipients (comparison form) is given for a trial-mode service."""
    keys = [normalise_key(name) for name in sheet.header]
    placeholders = {normalise_key(name) for name in placeholder_names(*_texts(channel, version))}
    checked = CheckedSheet(sheet.header, find_column(sheet.header, RECIPIENT_COLUMN[channel]), [])
    missing = missing_columns(sheet.header, version)
    checked.problems.extend(Problem(None, None, missing_column(name)) for name in missing)
    if missing or checked.recipient_column is None:
        return checked
    if not sheet.rows:
        checked.problems.append(Problem(None, None, NO_ROWS))
        return checked
    kept = placeholders | (ADDRESS_KEYS if channel == "letter" else frozenset())
    columns = [i for i, key in enumerate(keys) if key in kept]
    rules = _RecipientRules(channel, sheet.header[checked.recipient_column], international_allowed,
                            allowed_recipients, trial_message)
    for offset, cells in enumerate(sheet.rows):
        row_number = offset + 2
        raw = cells[checked.recipient_column]
        # A letter's Dutch address columns under the spec's names, which the address rules read.
        values = in_spec_names({sheet.header[i]: cells[i] for i in columns if cells[i] != ""})
        checked.rows.append([raw, values])
        problems, international = _recipient_problems(rules, raw, values)
        checked.international_rows += international
        checked.problems.extend(Problem(row_number, p.column, p.message) for p in problems)
        for placeholder, message in content_problems(channel, version, values):
            column = None if placeholder is None else sheet.header[keys.index(normalise_key(placeholder))]
            checked.problems.append(Problem(row_number, column, message))
    return checked
