"""The organisation rules' refusals in the page's language; any other as console/services/refusals.py
shows it."""
from __future__ import annotations

import re

from flask_babel import gettext as _, lazy_gettext as _l

from console.services.refusals import translated as service_translated
from core import go_live
from core.organisation_members import ALREADY_MEMBER, LAST_ADMIN, NO_ACCOUNT
from core.organisations import DOMAIN_TAKEN, NO_RATES, NOT_A_DOMAIN, NOT_A_TIME_ZONE

WHOLE = {
    LAST_ADMIN: _l("An organisation needs at least one admin: make another member admin first"),
    go_live.NOT_FOR_ORGANISATION: _l("There is no request to go live waiting for the organisation's approval"),
    go_live.NOTHING_TO_DECIDE: _l("There is no request to go live waiting for a decision"),
}


def _pattern(text: str) -> re.Pattern[str]:
    """A refusal's template ("... {domain} ...") as a pattern naming its parts."""
    return re.compile(re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>.+)", re.escape(text)))


_TAKEN, _NOT_A_DOMAIN = _pattern(DOMAIN_TAKEN), _pattern(NOT_A_DOMAIN)
_NO_ACCOUNT, _ALREADY_MEMBER = _pattern(NO_ACCOUNT), _pattern(ALREADY_MEMBER)
_NOT_A_TIME_ZONE, _NO_RATES = _pattern(NOT_A_TIME_ZONE), _pattern(NO_RATES)
_NAME_TAKEN = re.compile(r"Organisation name '(?P<name>.*)' already exists")


def translated(message: str) -> str:
    if message in WHOLE:
        return str(WHOLE[message])
    if found := _TAKEN.fullmatch(message):
        return _("The email domain %(domain)s already belongs to %(organisation)s", **found.groupdict())
    if found := _NOT_A_DOMAIN.fullmatch(message):
        return _("%(domain)s is not an email domain: write what comes after the @, like utrecht.nl",
                 **found.groupdict())
    if found := _NO_ACCOUNT.fullmatch(message):
        return _("There is no console account with the email address %(email)s", **found.groupdict())
    if found := _ALREADY_MEMBER.fullmatch(message):
        return _("%(email)s is already a member of this organisation", **found.groupdict())
    if found := _NAME_TAKEN.fullmatch(message):
        return _("An organisation called %(name)s already exists", **found.groupdict())
    if found := _NOT_A_TIME_ZONE.fullmatch(message):
        return _("%(time_zone)s is not a time zone: enter its name, such as Europe/Amsterdam or America/Curacao",
                 **found.groupdict())
    if found := _NO_RATES.fullmatch(message):
        return _("The rate agreement %(rate_table)s has no prices", **found.groupdict())
    return service_translated(message)
