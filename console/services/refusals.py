"""The business rules' refusals in the page's language.

The shared functions word their refusals in English for the admin API ("<field> <problem>" for bad
values); on a console page each known one is shown translated, without the API's field name, which
the form already shows.
"""
from __future__ import annotations

import re

from flask_babel import gettext as _, lazy_gettext as _l

from core import go_live, senders
from core.service_users import LAST_MANAGER
from pipeline import outbound
from pipeline.errors import BLANK
from pipeline.recipients import email_address, phone

WHOLE = {
    go_live.ALREADY_LIVE: _l("The service is already live"),
    go_live.ALREADY_REQUESTED: _l("Going live has already been requested for this service"),
    go_live.NOTHING_TO_DECIDE: _l("There is no request to go live waiting for a decision"),
    go_live.unfinished("reply_to_address"): _l("Add a reply-to email address before requesting to go live"),
    go_live.unfinished("template"): _l("Add a template before requesting to go live"),
    go_live.unfinished("team_member"): _l("Add a team member other than you before requesting to go live"),
    senders.DEFAULT_KEPT: _l("This is the default: make another one the default instead"),
    LAST_MANAGER: _l("A service needs at least one member who can manage settings and team"),
}
PROBLEMS = {
    email_address.NOT_VALID_EMAIL: _l("Enter a valid email address"),
    phone.TOO_MANY_DIGITS: _l("The number has too many digits"),
    phone.NOT_ENOUGH_DIGITS: _l("The number has too few digits"),
    phone.NOT_NL_MOBILE: _l("Enter a Dutch mobile number"),
    phone.LETTERS_OR_SYMBOLS: _l("A phone number cannot contain letters or symbols"),
    phone.INVALID_COUNTRY_PREFIX: _l("The country code is not valid"),
    outbound.NOT_HTTPS: _l("Enter a URL that starts with https://"),
    outbound.HAS_CREDENTIALS: _l("Enter a URL without a user name or password"),
    outbound.NOT_PUBLIC: _l("Enter a URL of a server on the public internet"),
    senders.SMS_SENDER_PROBLEM: _l("Use up to 11 letters, digits and spaces, or a phone number"),
    BLANK: _l("Fill this in"),
}
_SERVICE_NAME_TAKEN = re.compile(r"Service name '(?P<name>.*)' already exists")


def translated(message: str) -> str:
    """The refusal as the page shows it; an unknown one as the rule worded it."""
    if message in WHOLE:
        return str(WHOLE[message])
    taken = _SERVICE_NAME_TAKEN.fullmatch(message)
    if taken:
        return _("A service called %(name)s already exists", name=taken["name"])
    _field, _space, problem = message.partition(" ")
    if problem in PROBLEMS:
        return str(PROBLEMS[problem])
    return message
