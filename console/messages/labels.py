"""How the messages pages name statuses, channels and timeline steps, in the reader's language."""
from __future__ import annotations

from flask_babel import lazy_gettext as _l

from core import message_timeline
from pipeline.domain import statuses

# The API's first/second/economy by how soon the post delivers, not by Royal Mail's class names.
POSTAGE = {"first": _l("Priority"), "second": _l("Standard"),
           "economy": _l("Economy"), "europe": _l("Europe"),
           "rest-of-world": _l("Rest of the world")}
CHANNELS = {"email": _l("Email"), "sms": _l("Text message"), "letter": _l("Letter")}
# Internal status -> what a person reads; letters have their own words for the stages of the post.
STATUS = {
    statuses.CREATED: _l("Accepted"),
    statuses.SENDING: _l("Sending"),
    statuses.PENDING: _l("Sending"),
    statuses.SENT: _l("Sent to an international number"),
    statuses.DELIVERED: _l("Delivered"),
    statuses.PERMANENT_FAILURE: _l("Not delivered: the address or number does not exist"),
    statuses.TEMPORARY_FAILURE: _l("Not delivered: the phone or inbox was not available"),
    statuses.TECHNICAL_FAILURE: _l("Not delivered: technical failure"),
    statuses.PENDING_VIRUS_CHECK: _l("Checking the file"),
    statuses.VIRUS_SCAN_FAILED: _l("Refused: the file contains a virus"),
    statuses.VALIDATION_FAILED: _l("Validation failed"),
    statuses.CANCELLED: _l("Cancelled"),
    statuses.RETURNED_LETTER: _l("Returned to the sender"),
}
LETTER_STATUS = {
    statuses.SENDING: _l("Handed to the printer"),
    statuses.DELIVERED: _l("Printed and posted"),
    statuses.PERMANENT_FAILURE: _l("Refused by the printer"),
}
STEP = {
    message_timeline.ACCEPTED: _l("Accepted"),
    message_timeline.HANDED_OVER: _l("Handed to the provider"),
}
LETTER_STEP = {message_timeline.HANDED_OVER: _l("Handed to the printer")}
# The public status filters of the list (the API's names, pipeline.domain.statuses.FILTER_VALUES) and their labels.
STATUS_FILTERS = {
    "created": _l("Accepted"),
    "sending": _l("Sending"),
    "pending": _l("Pending"),
    "sent": _l("Sent to an international number"),
    "delivered": _l("Delivered"),
    "failed": _l("Failed (every kind of failure)"),
    "permanent-failure": _l("Not delivered: the address or number does not exist"),
    "temporary-failure": _l("Not delivered: the phone or inbox was not available"),
    "technical-failure": _l("Not delivered: technical failure"),
    "cancelled": _l("Cancelled"),
    "pending-virus-check": _l("Checking the file"),
    "virus-scan-failed": _l("Refused: the file contains a virus"),
    "validation-failed": _l("Validation failed"),
    "returned-letter": _l("Returned to the sender"),
    "accepted": _l("Letters: accepted"),
    "received": _l("Letters: printed and posted"),
}


def status_label(channel: str, status: str) -> str:
    if channel == "letter" and status in LETTER_STATUS:
        return str(LETTER_STATUS[status])
    return str(STATUS.get(status, status))


def step_label(channel: str, kind: str) -> str:
    if channel == "letter" and kind in LETTER_STEP:
        return str(LETTER_STEP[kind])
    if kind in STEP:
        return str(STEP[kind])
    return status_label(channel, kind)
