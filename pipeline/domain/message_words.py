"""The words a person reads for a message's channel and status, and how a console download writes its
values for its reader.

One source: the console's pages (console/messages/labels.py) and its downloads, including the messages
report a worker builds without a request, word a status here, so a letter that is "Gedrukt en gepost" on
its page is that on the job's page and in the spreadsheet too. The source strings are English; the Dutch
is in pipeline/domain/translations (pipeline.domain.i18n). The API's own names (`delivered`,
`received`) stay on the wire and in the API's files.
"""
from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass

from pipeline.domain import statuses
from pipeline.domain.i18n import N_, translator
from pipeline.domain.recipients import written_recipient
from pipeline.domain.wall_clock import on_the_clock, on_the_wall

CHANNEL = {"email": N_("Email"), "sms": N_("Text message"), "letter": N_("Letter")}
STATUS = {
    statuses.CREATED: N_("Accepted"),
    statuses.SENDING: N_("Sending"),
    statuses.PENDING: N_("Sending"),
    statuses.SENT: N_("Sent to an international number"),
    statuses.DELIVERED: N_("Delivered"),
    statuses.PERMANENT_FAILURE: N_("Not delivered: the address or number does not exist"),
    statuses.TEMPORARY_FAILURE: N_("Not delivered: the phone or inbox was not available"),
    statuses.TECHNICAL_FAILURE: N_("Not delivered: technical failure"),
    statuses.PENDING_VIRUS_CHECK: N_("Checking the file"),
    statuses.VIRUS_SCAN_FAILED: N_("Refused: the file contains a virus"),
    statuses.VALIDATION_FAILED: N_("Validation failed"),
    statuses.CANCELLED: N_("Cancelled"),
    statuses.RETURNED_LETTER: N_("Returned to the sender"),
}
# A letter's stages are the post's: handed to the printer, printed and posted.
LETTER_STATUS = {
    statuses.SENDING: N_("Handed to the printer"),
    statuses.DELIVERED: N_("Printed and posted"),
    statuses.PERMANENT_FAILURE: N_("Refused by the printer"),
}


def status_words(channel: str, status: str) -> str:
    """The status's words (English, the catalogue's source) for a message of the channel; an unknown
    status as it is."""
    if channel == "letter" and status in LETTER_STATUS:
        return LETTER_STATUS[status]
    return STATUS.get(status, status)


def channel_words(channel: str) -> str:
    return CHANNEL.get(channel, channel)


@dataclass(frozen=True)
class Written:
    """How a download writes its values for one reader: in their language, times on the service's clock
    as the console writes them, a recipient as the console shows it."""
    language: str
    time_zone: str | None = None
    # How the reader's door words a refusal kept with a message (pipeline.domain.errors.kept): the console
    # words its known codes in the page's language; without it, the rule's own words.
    worded_refusal: Callable[[dict], str] | None = None

    def word(self, english: str) -> str:
        return translator(self.language).gettext(english)

    def status(self, channel: str, status: str) -> str:
        return self.word(status_words(channel, status))

    def channel(self, channel: str) -> str:
        return self.word(channel_words(channel))

    def time(self, value: datetime.datetime | None) -> str:
        return on_the_clock(value, self.time_zone, self.language) if value is not None else ""

    def recipient(self, channel: str, to: str | None) -> str:
        return written_recipient(channel, to)

    def refusal(self, records: list[dict] | None) -> str:
        if not records:
            return ""
        return "; ".join(self.worded_refusal(record) if self.worded_refusal else str(record.get("text", ""))
                         for record in records)

    def file_stamp(self, value: datetime.datetime) -> str:
        """For a file's name: "2026-12-07-1538", the minute on the service's clock."""
        return f"{on_the_wall(value, self.time_zone):%Y-%m-%d-%H%M}"
