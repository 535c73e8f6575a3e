"""The organisation rules' refusals in the page's language, from their codes; any other as
console/services/refusals.py shows it."""
from __future__ import annotations

from flask_babel import gettext as _, lazy_gettext as _l

from console.services.refusals import Words, fixed, in_words, translated as service_translated

WORDS: dict[str, Words] = {
    "last_organisation_admin": fixed(_l("An organisation needs at least one admin: make another member admin first")),
    "go_live_not_for_organisation": fixed(_l(
        "There is no request to go live waiting for the organisation's approval")),
    "go_live_nothing_to_decide": fixed(_l("There is no request to go live waiting for a decision")),
    "domain_taken": lambda values: _("The email domain %(domain)s already belongs to %(organisation)s",
                                     domain=values["domain"], organisation=values["organisation"]),
    "not_a_domain": lambda values: _(
        "%(domain)s is not an email domain: write what comes after the @, like utrecht.nl", domain=values["domain"]),
    "no_console_account": lambda values: _("There is no console account with the email address %(email)s",
                                           email=values["email"]),
    "already_member": lambda values: _("%(email)s is already a member of this organisation", email=values["email"]),
    "organisation_name_taken": lambda values: _("An organisation called %(name)s already exists",
                                                name=values["name"]),
    "not_a_time_zone": lambda values: _(
        "%(time_zone)s is not a time zone: enter its name, such as Europe/Amsterdam or America/Curacao",
        time_zone=values["time_zone"]),
    "no_rates": lambda values: _("The rate agreement %(rate_table)s has no prices", rate_table=values["rate_table"]),
}


def translated(message: str) -> str:
    return in_words(message, WORDS) or service_translated(message)
