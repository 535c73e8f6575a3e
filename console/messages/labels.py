"""How the messages pages name statuses, channels and timeline steps, in the reader's language."""
from __future__ import annotations

from flask_babel import LazyString, get_locale, lazy_gettext as _l

from core import message_timeline
from pipeline.domain import message_words, statuses
from pipeline.domain.i18n import translator


def _domain_words(english: str) -> str:
    return translator(str(get_locale())).gettext(english)


# The API's first/second/economy by how soon the post delivers, not by Royal Mail's class names.
POSTAGE = {"first": _l("Priority"), "second": _l("Standard"),
           "economy": _l("Economy"), "europe": _l("Europe"),
           "rest-of-world": _l("Rest of the world")}
# A channel's and a status's words are the domain's (pipeline/domain/message_words.py), which the
# downloads read too: one wording per status per channel, translated in the page's language.
CHANNELS = {channel: LazyString(lambda english=english: _domain_words(english))
            for channel, english in message_words.CHANNEL.items()}
STATUS = {status: LazyString(lambda english=english: _domain_words(english))
          for status, english in message_words.STATUS.items()}
_LETTER_STATUS = {status: LazyString(lambda english=english: _domain_words(english))
                  for status, english in message_words.LETTER_STATUS.items()}
STEP = {
    message_timeline.ACCEPTED: STATUS[statuses.CREATED],
    message_timeline.HANDED_OVER: _l("Handed to the provider"),
}
LETTER_STEP = {message_timeline.HANDED_OVER: _LETTER_STATUS[statuses.SENDING]}
# The public status filters of the list (the API's names, pipeline.domain.statuses.FILTER_VALUES) and their
# labels: a filter of one status by that status's words.
STATUS_FILTERS = {
    "created": STATUS[statuses.CREATED],
    "sending": STATUS[statuses.SENDING],
    "pending": _l("Pending"),
    "sent": STATUS[statuses.SENT],
    "delivered": STATUS[statuses.DELIVERED],
    "failed": _l("Failed (every kind of failure)"),
    **{status: STATUS[status] for status in (
        statuses.PERMANENT_FAILURE, statuses.TEMPORARY_FAILURE, statuses.TECHNICAL_FAILURE, statuses.CANCELLED,
        statuses.PENDING_VIRUS_CHECK, statuses.VIRUS_SCAN_FAILED, statuses.VALIDATION_FAILED,
        statuses.RETURNED_LETTER)},
    "accepted": _l("Letters: accepted"),
    "received": _l("Letters: printed and posted"),
}


def status_label(channel: str, status: str) -> str:
    return _domain_words(message_words.status_words(channel, status))


def step_label(channel: str, kind: str) -> str:
    if channel == "letter" and kind in LETTER_STEP:
        return str(LETTER_STEP[kind])
    if kind in STEP:
        return str(STEP[kind])
    return status_label(channel, kind)
