"""The business rules' refusals in the page's language, worded from each refusal's code and values.

On a console page each known refusal is a sentence in the page's language, without the API's field
name (the form, or a spreadsheet's column, already shows where the problem is), and the trial-mode
refusals with their link as a link. The API's English words are never read (docs/architecture.md#refusals-carry-codes):
a refusal without a code here is shown as the rule worded it.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import request, url_for
from flask_babel import format_decimal, gettext as _, lazy_gettext as _l
from markupsafe import Markup

from console.auth import current_user
from console.redirect_target import is_same_site
from pipeline.domain.errors import Refusal

Words = Callable[[Mapping[str, Any]], str]


def fixed(sentence: object) -> Words:
    """Words that are the same whatever the values (a lazy string, made in the page's language)."""
    return lambda values: str(sentence)


def in_words(message: str, words: Mapping[str, Words]) -> str | None:
    """The refusal worded by `words` from its code and values; None when they have none for it."""
    if isinstance(message, Refusal) and message.code in words:
        return words[message.code](message.values)
    return None


_UNFINISHED = {
    "reply_to_address": _l("Add a reply-to email address before requesting to go live"),
    "template": _l("Add a template before requesting to go live"),
    "team_member": _l("Add a team member other than you before requesting to go live"),
}
_NOT_ALLOWED = {"sms": _l("This service may not send text messages"), "email": _l("This service may not send emails"),
                "letter": _l("This service may not send letters")}
_KINDS = {"sms": _l("text messages"), "email": _l("emails"), "letter": _l("letters"),
          "international_sms": _l("text messages to numbers abroad")}


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


def _not_to_this_recipient(values: Mapping[str, Any]) -> str:
    sentence = _with_trial_mode_link(_(
        "In trial mode this service sends only to its team and its guest list. Its team is the email address "
        "and the confirmed mobile number on the account of each of its members. %(link)s"))
    return sentence + _own_number_link()


def _kind(values: Mapping[str, Any]) -> str:
    return str(_KINDS.get(values["kind"], values["kind"]))


# A problem of a value ("<field> <problem>" in the API) reads the same whichever field it is about.
PROBLEMS: dict[str, Words] = {
    "not_valid_email": fixed(_l("Enter a valid email address")),
    "too_many_digits": fixed(_l("The number has too many digits")),
    "not_enough_digits": fixed(_l("The number has too few digits")),
    "not_nl_mobile": fixed(_l("Enter a Dutch mobile number")),
    "letters_or_symbols": fixed(_l("A phone number cannot contain letters or symbols")),
    "invalid_country_prefix": fixed(_l("The country code is not valid")),
    "not_https": fixed(_l("Enter a URL that starts with https://")),
    "url_has_credentials": fixed(_l("Enter a URL without a user name or password")),
    "url_not_public": fixed(_l("Enter a URL of a server on the public internet")),
    "sms_sender_problem": fixed(_l("Use up to 11 letters, digits and spaces, or a phone number")),
    "inbound_number_problem": fixed(_l("Enter a phone number of 3 to 15 digits, optionally starting with +")),
    "colour_problem": fixed(_l("Enter a colour written #rrggbb, like #154273")),
    "blank": fixed(_l("Fill this in")),
}
WORDS: dict[str, Words] = {
    **PROBLEMS,
    "no_result": fixed(_l("That is no longer there: someone else may have just removed it")),
    "already_live": fixed(_l("The service is already live")),
    "go_live_already_requested": fixed(_l("Going live has already been requested for this service")),
    "go_live_nothing_to_decide": fixed(_l("There is no request to go live waiting for a decision")),
    "go_live_unfinished": lambda values: str(_UNFINISHED[values["item"]]),
    "default_kept": fixed(_l("This is the default: make another one the default instead")),
    "last_manager": fixed(_l("A service needs at least one member who can manage settings and team")),
    "team_key_recipient": fixed(_l("A team key sends only to the service's team and guest list")),
    "international_sms_not_allowed": fixed(_l("This service may not send text messages to numbers abroad")),
    "channel_not_allowed": lambda values: str(_NOT_ALLOWED[values["channel"]]),
    "address_too_few_lines": fixed(_l("An address needs at least 3 lines")),
    "address_too_many_lines": fixed(_l("An address has at most 7 lines")),
    "address_forbidden_characters": fixed(_l("An address line cannot start with any of @ ( ) = [ ] ” \\ / , < >")),
    "not_postcode_or_country": fixed(_l("The last line of the address must be a Dutch postcode and town, "
                                        "or a country")),
    "not_real_postcode": fixed(_l("Enter a real Dutch postcode")),
    "not_real_address": fixed(_l("Enter a real address")),
    "bfpo_with_country": fixed(_l("The last line of a British forces (BFPO) address cannot be a country")),
    "service_name_taken": lambda values: _("A service called %(name)s already exists", name=values["name"]),
    "sms_too_long": lambda values: _("A text message can be at most %(limit)s characters long; this one has "
                                     "%(length)s", limit=format_decimal(values["limit"]),
                                     length=format_decimal(values["length"])),
    "email_too_long": lambda values: _("An email can be at most %(limit)s bytes long; this one has %(size)s",
                                       limit=format_decimal(values["limit"]), size=format_decimal(values["size"])),
    "daily_limit_exceeded": lambda values: _(
        "The service has sent its %(limit)s %(kind)s for today, its daily limit: try again tomorrow",
        limit=format_decimal(values["limit"]), kind=_kind(values)),
    "rate_limit_exceeded": lambda values: _(
        "Too many messages at once: at most %(limit)s per %(seconds)s seconds. Try again in a minute",
        limit=format_decimal(values["limit"]), seconds=values["seconds"]),
    "missing_personalisation": lambda values: _("Fill in a value for: %(names)s", names=", ".join(values["names"])),
    "trial_mode_recipient": _not_to_this_recipient,
    "trial_mode_letters": lambda values: _with_trial_mode_link(
        _("In trial mode this service cannot send letters. %(link)s")),
}


def translated(message: str) -> str:
    """The refusal as the page shows it (Markup when it holds a link); one without words here as the
    rule worded it."""
    worded = in_words(message, WORDS)
    return message if worded is None else worded
