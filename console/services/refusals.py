"""The business rules' refusals in the page's language.

The shared functions word their refusals in English for the API ("<field> <problem>" for bad values);
on a console page each known one is shown as a sentence in the page's language, without the API's
field name (the form, or a spreadsheet's column, already shows where the problem is), and the
trial-mode refusals with their link as a link.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from flask import request, url_for
from flask_babel import format_decimal, gettext as _, lazy_gettext as _l
from markupsafe import Markup

from console.auth import current_user
from console.redirect_target import is_same_site
from core import brands, go_live, senders
from core.send_checks import TEAM_KEY_REFUSAL
from core.service_users import LAST_MANAGER
from pipeline import outbound, refusals, trial
from pipeline.errors import BLANK, NO_RESULT
from pipeline.recipients import email_address, phone, postal_address

WHOLE = {
    NO_RESULT: _l("That is no longer there: someone else may have just removed it"),
    go_live.ALREADY_LIVE: _l("The service is already live"),
    go_live.ALREADY_REQUESTED: _l("Going live has already been requested for this service"),
    go_live.NOTHING_TO_DECIDE: _l("There is no request to go live waiting for a decision"),
    go_live.unfinished("reply_to_address"): _l("Add a reply-to email address before requesting to go live"),
    go_live.unfinished("template"): _l("Add a template before requesting to go live"),
    go_live.unfinished("team_member"): _l("Add a team member other than you before requesting to go live"),
    senders.DEFAULT_KEPT: _l("This is the default: make another one the default instead"),
    LAST_MANAGER: _l("A service needs at least one member who can manage settings and team"),
    TEAM_KEY_REFUSAL: _l("A team key sends only to the service's team and guest list"),
    refusals.INTERNATIONAL_SMS_NOT_ALLOWED: _l("This service may not send text messages to numbers abroad"),
    refusals.not_allowed_message("sms"): _l("This service may not send text messages"),
    refusals.not_allowed_message("email"): _l("This service may not send emails"),
    refusals.not_allowed_message("letter"): _l("This service may not send letters"),
    postal_address.NOT_ENOUGH_LINES: _l("An address needs at least 3 lines"),
    postal_address.TOO_MANY_LINES: _l("An address has at most 7 lines"),
    postal_address.FORBIDDEN_CHARACTERS: _l("An address line cannot start with any of @ ( ) = [ ] ” \\ / , < >"),
    postal_address.NOT_POSTCODE_OR_COUNTRY: _l("The last line of the address must be a Dutch postcode and town, "
                                               "or a country"),
    postal_address.NOT_REAL_POSTCODE: _l("Enter a real Dutch postcode"),
    postal_address.NOT_REAL_ADDRESS: _l("Enter a real address"),
    postal_address.BFPO_WITH_COUNTRY: _l("The last line of a British forces (BFPO) address cannot be a country"),
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
    senders.INBOUND_NUMBER_PROBLEM: _l("Enter a phone number of 3 to 15 digits, optionally starting with +"),
    brands.COLOUR_PROBLEM: _l("Enter a colour written #rrggbb, like #154273"),
    BLANK: _l("Fill this in"),
    postal_address.NOT_REAL_POSTCODE: _l("Enter a real Dutch postcode"),
}
_SERVICE_NAME_TAKEN = re.compile(r"Service name '(?P<name>.*)' already exists")
_KINDS = {"sms": _l("text messages"), "email": _l("emails"), "letter": _l("letters"),
          "international_sms": _l("text messages to numbers abroad")}


def _number(found: re.Match[str], name: str) -> str:
    return format_decimal(int(found[name]))


# Refusals with figures in them: the pattern of the API's words, and the sentence made of its parts.
PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (_SERVICE_NAME_TAKEN, lambda m: _("A service called %(name)s already exists", name=m["name"])),
    (re.compile(r"Text messages cannot be longer than (?P<limit>\d+) characters\. Your message is (?P<length>\d+) "
                r"characters\."),
     lambda m: _("A text message can be at most %(limit)s characters long; this one has %(length)s",
                 limit=_number(m, "limit"), length=_number(m, "length"))),
    (re.compile(r"Emails cannot be longer than (?P<limit>\d+) bytes\. Your message is (?P<size>\d+) bytes\."),
     lambda m: _("An email can be at most %(limit)s bytes long; this one has %(size)s",
                 limit=_number(m, "limit"), size=_number(m, "size"))),
    (re.compile(r"Exceeded send limits \((?P<kind>[a-z_]+): (?P<limit>\d+)\) for today"),
     lambda m: _("The service has sent its %(limit)s %(kind)s for today, its daily limit: try again tomorrow",
                 limit=_number(m, "limit"), kind=_KINDS.get(m["kind"], m["kind"]))),
    (re.compile(r"Exceeded rate limit for key type \S+ of (?P<limit>\d+) requests per (?P<seconds>\d+) seconds"),
     lambda m: _("Too many messages at once: at most %(limit)s per %(seconds)s seconds. Try again in a minute",
                 limit=_number(m, "limit"), seconds=m["seconds"])),
    (re.compile(re.escape(refusals.MISSING_PERSONALISATION) + r"(?P<names>.+)"),
     lambda m: _("Fill in a value for: %(names)s", names=m["names"])),
]


def _with_trial_mode_link(sentence: str) -> Markup:
    """The sentence (ours, from the catalogue) with the link to the trial mode page put in."""
    link = Markup('<a class="utrecht-link" href="{}">{}</a>').format(url_for("main.trial_mode"),
                                                                    _("What trial mode means"))
    return Markup(sentence) % {"link": link}


def _own_number_link() -> Markup:
    """Where a signed-in user without a confirmed mobile number adds one, coming back to this page."""
    user = current_user()
    if user is None or user.mobile_number:
        return Markup("")
    back = request.path if is_same_site(request.path) else None
    return Markup(' <a class="utrecht-link" href="{}">{}</a>').format(
        url_for("account_settings.mobile", next=back), _("Add your mobile number to your account"))


def _not_to_this_recipient() -> Markup:
    sentence = _with_trial_mode_link(_(
        "In trial mode this service sends only to its team and its guest list. Its team is the email address "
        "and the confirmed mobile number on the account of each of its members. %(link)s"))
    return sentence + _own_number_link()


def translated(message: str) -> str:
    """The refusal as the page shows it (Markup when it holds a link); an unknown one as the rule
    worded it."""
    if message == trial.trial_mode_message():
        return _not_to_this_recipient()
    if message == trial.trial_letters_message():
        return _with_trial_mode_link(_("In trial mode this service cannot send letters. %(link)s"))
    if message in WHOLE:
        return str(WHOLE[message])
    for pattern, words in PATTERNS:
        if (found := pattern.fullmatch(message)) is not None:
            return words(found)
    _field, _space, problem = message.partition(" ")
    if problem in PROBLEMS:
        return str(PROBLEMS[problem])
    return message
