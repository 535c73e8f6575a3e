"""The history's changes as sentences a person reads, in the page's language: a field's name in words,
a stored value by its name (a channel, key type, permission, status), yes/no for a switch, a time on the
service's clock, a figure with the language's separators; a field recorded with the same value before and
after is left out."""
from __future__ import annotations

import datetime
from typing import Any

from flask_babel import format_decimal, gettext as _, lazy_gettext as _l

from console import times
from console.appearance.views import LANGUAGE_LABELS
from console.messages.labels import POSTAGE, STATUS_FILTERS
from console.value_names import CHANNELS, GO_LIVE_STATUSES, JOB_STATUSES, KEY_TYPES, KINDS
from models.audit import AuditEvent

FIELDS = {
    "name": _l("Name"), "active": _l("Active"), "trial_mode": _l("Trial mode"), "permissions": _l("Permissions"),
    "rate_limit": _l("Requests per 60 seconds"), "sms_daily_limit": _l("Text messages per day"),
    "email_daily_limit": _l("Emails per day"), "letter_daily_limit": _l("Letters per day"),
    "international_sms_daily_limit": _l("International text messages per day"),
    "data_retention_days": _l("Days messages are kept"), "file_download_contact": _l("Contact for files sent by email"),
    "hosted_unsubscribe": _l("Unsubscribe page hosted by us"), "time_zone": _l("Time zone"),
    "language": _l("Language"), "email_brand_id": _l("Email brand"), "letter_brand_id": _l("Letter brand"),
    "key_type": _l("Key type"), "type": _l("Type"), "version": _l("Version"), "status": _l("Status"),
    "url": _l("Address"), "bearer_token": _l("Bearer token"), "folder_id": _l("Folder"), "parent_id": _l("Folder"),
    "email_address": _l("Email address"), "mobile_number": _l("Mobile number"), "recipient": _l("Recipient"),
    "number": _l("Number"), "file": _l("File"), "rows": _l("Rows"), "scheduled_for": _l("Scheduled for"),
    "sms_sender": _l("Sender"), "contact_block": _l("Contact block"), "is_default": _l("Default"),
    "body": _l("Text"), "subject": _l("Subject"), "postage": _l("Postage"), "letter_contact_id": _l("Contact block"),
    "letter_languages": _l("Letter languages"), "letter_english_subject": _l("English subject"),
    "letter_english_body": _l("English text"),
    "expires_at": _l("Stops working"), "revoked_at": _l("Revoked"), "replaced_by": _l("Replaced by key"),
    "expected_volumes": _l("Expected messages a year"), "recipients": _l("Who gets the messages"),
    "organisation": _l("Organisation"), "organisation_approved": _l("Approved by the organisation"),
    "reason": _l("Reason"),
    "zaken_root": "Zaken API", "catalogi_root": "Catalogi API", "klant_root": "Open Klant API",  # names
    "nrc_root": "Open Notificaties API", "client_id": _l("Client ID"),
    "nrc_client_id": _l("Client ID at Open Notificaties"), "client_secret": _l("Secret"),
    "klant_token": _l("Open Klant token"), "nrc_secret": _l("Secret at Open Notificaties"),
    "case_types": _l("Case types taking part"), "templates": _l("Templates"), "state": _l("State"),
}
RETENTION_CHANNELS = {"email": _l("email"), "sms": _l("text messages"), "letter": _l("letters")}
LETTER_LANGUAGES = {"single": _l("One language"), "dutch_then_english": _l("Dutch, then English")}
SECRET_CHANGED = "(changed)"  # what core records of a secret (a callback's bearer token) that was set
# A field's values by their names; a status by the kind of thing whose status it is (the action's first part).
VALUES = {"type": CHANNELS, "key_type": KEY_TYPES, "permissions": KINDS["permission"], "postage": POSTAGE,
          "letter_languages": LETTER_LANGUAGES, "language": LANGUAGE_LABELS}
STATUSES = {"go_live": GO_LIVE_STATUSES, "job": JOB_STATUSES, "notification": STATUS_FILTERS}


def _time(value: str) -> datetime.datetime | None:
    """A recorded time (the wire's ISO form, or a datetime's str), or None for any other text."""
    if len(value) < 16 or value[4:5] != "-" or value[10:11] not in ("T", " "):
        return None
    try:
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def shown(field: str, value: Any) -> str:
    """A recorded value as a person reads it."""
    if value is None or value == "" or value == []:
        return "–"
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, int | float):
        return format_decimal(value)
    if isinstance(value, datetime.datetime):
        return times.when(value)
    if isinstance(value, list):
        return ", ".join(shown(field, item) for item in value)
    if isinstance(value, dict):
        if field == "data_retention_days":
            return ", ".join(f"{RETENTION_CHANNELS.get(key, key)}: {shown(key, days)}" for key, days in value.items())
        if field == "expected_volumes":
            return ", ".join(f"{CHANNELS.get(key, key)}: {shown(key, number)}" for key, number in value.items())
        return ", ".join(f"{key}: {shown(key, item)}" for key, item in value.items())
    if value == SECRET_CHANGED:
        return _("(changed)")
    if isinstance(value, str) and value in VALUES.get(field, {}):
        return str(VALUES[field][value])
    if isinstance(value, str) and (moment := _time(value)) is not None:
        return times.when(moment.astimezone(datetime.UTC).replace(tzinfo=None) if moment.tzinfo else moment)
    return str(value)


def _status(action: str, value: Any) -> Any:
    names = STATUSES.get(action.split(".", 1)[0], {})
    return str(names[value]) if isinstance(value, str) and value in names else value


def sentence(field: str, old: Any, new: Any, label: str | None = None) -> str:
    """The change of one field as a sentence; label: the field's name where FIELDS has none."""
    label = label or str(FIELDS.get(field, field.replace("_", " ")))
    if old is None:
        return _("%(field)s: %(new)s", field=label, new=shown(field, new))
    if new is None:
        return _("%(field)s was %(old)s", field=label, old=shown(field, old))
    return _("%(field)s changed from %(old)s to %(new)s", field=label, old=shown(field, old), new=shown(field, new))


def changes(event: AuditEvent) -> list[str]:
    """One sentence per field the event changed, in the order recorded."""
    before, after = event.before or {}, event.after or {}
    if event.action.startswith(tuple(STATUSES)):
        before = {**before, "status": _status(event.action, before.get("status"))} if "status" in before else before
        after = {**after, "status": _status(event.action, after.get("status"))} if "status" in after else after
    return [sentence(field, before.get(field), after.get(field)) for field in dict.fromkeys([*before, *after])
            if not (field in before and field in after and before[field] == after[field])
            and not (before.get(field) is None and after.get(field) is None)]
