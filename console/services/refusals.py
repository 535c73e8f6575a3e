"""The business rules' refusals in the page's language.

The shared functions word their refusals in English for the admin API ("<field> <problem>" for bad
values); on a console page each known one is shown translated, without the API's field name, which
the form already shows.
"""
from __future__ import annotations

import re

from flask_babel import gettext as _, lazy_gettext as _l

WHOLE = {
    "Service is already live": _l("The service is already live"),
    "Going live has already been requested for this service":
        _l("Going live has already been requested for this service"),
    "There is no request to go live waiting for a decision":
        _l("There is no request to go live waiting for a decision"),
    "Add a reply-to email address before requesting to go live":
        _l("Add a reply-to email address before requesting to go live"),
    "Add a template before requesting to go live": _l("Add a template before requesting to go live"),
    "Add a team member other than you before requesting to go live":
        _l("Add a team member other than you before requesting to go live"),
    "This is the default: make another one the default instead":
        _l("This is the default: make another one the default instead"),
    "A service needs at least one member who can manage settings and team":
        _l("A service needs at least one member who can manage settings and team"),
}
PROBLEMS = {
    "Not a valid email address": _l("Enter a valid email address"),
    "Too many digits": _l("The number has too many digits"),
    "Not enough digits": _l("The number has too few digits"),
    "Not a NL mobile number": _l("Enter a Dutch mobile number"),
    "Must not contain letters or symbols": _l("A phone number cannot contain letters or symbols"),
    "Not a valid country prefix": _l("The country code is not valid"),
    "is not a valid https url": _l("Enter a URL that starts with https://"),
    "must be up to 11 letters, digits and spaces, or a phone number":
        _l("Use up to 11 letters, digits and spaces, or a phone number"),
    "cannot be blank": _l("Fill this in"),
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
