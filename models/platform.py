"""The platform's own service: the console's emails (sign-in codes, invitations, password resets) and
texts (codes) are sent as ordinary notifications of it, through the configured providers.

Its rows have fixed ids, so every process finds them without a lookup table and making them is
idempotent: they are made on first use, and again should someone delete them.
"""
from __future__ import annotations

import contextvars
import uuid

import peewee

from models.db import database
from models.service import Service
from models.template import Template, TemplateVersion

_NAMESPACE = uuid.UUID("8f1d6f3e-7f49-4c8e-9a55-2f4f1b2a9c10")
PLATFORM_SERVICE_ID = uuid.uuid5(_NAMESPACE, "service")
PLATFORM_SERVICE_NAME = "Notify NL platform"

# Each email and text in Dutch and in English: it goes in the language of the page that made it (the
# person signing in, the inviter), Dutch where no page did (a scheduled warning, the admin API).
LANGUAGES = ("nl", "en")
DEFAULT_LANGUAGE = "nl"
TEMPLATES: dict[str, dict[str, tuple[str, str]]] = {
    "sign-in-code": {
        "nl": ("Inlogcode", "((code)) is uw inlogcode voor Notify NL. De code is 10 minuten geldig."),
        "en": ("Sign-in code", "((code)) is your Notify NL sign-in code. It is valid for 10 minutes."),
    },
    "invitation": {
        "nl": ("Uitnodiging voor ((service_name))",
               "((invited_by)) nodigt u uit voor ((service_name)) op Notify NL. Maak uw account aan via deze link "
               "(geldig tot ((expires))):\n\n((url))"),
        "en": ("Invitation to ((service_name))",
               "((invited_by)) has invited you to ((service_name)) on Notify NL. Create your account with this link "
               "(valid until ((expires))):\n\n((url))"),
    },
    "password-reset": {
        "nl": ("Wachtwoord opnieuw instellen",
               "Stel een nieuw wachtwoord in via deze link (1 uur geldig):\n\n((url))\n\n"
               "Heeft u dit niet gevraagd? Dan kunt u deze e-mail negeren."),
        "en": ("Reset your password",
               "Reset your password with this link (valid for 1 hour):\n\n((url))\n\n"
               "Did not ask for this? Then ignore this email."),
    },
    # An API key about to expire (pipeline/stages/key_expiry.py), to the managers of its service.
    "api-key-expiring": {
        "nl": ("API-sleutel ((key_name)) verloopt binnenkort",
               "De API-sleutel ((key_name)) van ((service_name)) verloopt op ((expires)). Daarna weigert Notify NL "
               "hem. Maak op tijd een nieuwe sleutel (\"Vervangen\"):\n\n((url))"),
        "en": ("API key ((key_name)) expires soon",
               "The API key ((key_name)) of ((service_name)) expires on ((expires)). After that Notify NL refuses it. "
               "Make a new key in time (\"Rotate\"):\n\n((url))"),
    },
    # Go-live decisions (core/go_live.py), to the requester and the service's team.
    "go-live-approved": {
        "nl": ("((service_name)) is live",
               "((service_name)) is nu live: de dienst kan berichten naar iedereen sturen."),
        "en": ("((service_name)) is live", "((service_name)) is now live: it can send messages to anyone."),
    },
    # A request waiting for an organisation's approval, to the organisation's admins.
    "go-live-awaits-organisation": {
        "nl": ("((service_name)) wacht op uw goedkeuring",
               "((requested_by)) vraagt om ((service_name)) live te zetten. Als beheerder van ((organisation_name)) "
               "beslist u eerst:\n\n((url))"),
        "en": ("((service_name)) awaits your approval",
               "((requested_by)) asks to take ((service_name)) live. As an admin of ((organisation_name)) you "
               "decide first:\n\n((url))"),
    },
    # The organisation approved: the team hears that the platform's admins decide next.
    "go-live-organisation-approved": {
        "nl": ("((organisation_name)) heeft ((service_name)) goedgekeurd",
               "((organisation_name)) heeft de aanvraag om ((service_name)) live te zetten goedgekeurd. Het team "
               "van Notify NL beslist nu."),
        "en": ("((organisation_name)) approved ((service_name))",
               "((organisation_name)) approved the request to take ((service_name)) live. The Notify NL team "
               "decides next."),
    },
    "go-live-rejected": {
        "nl": ("((service_name)) kan nog niet live",
               "Uw aanvraag om ((service_name)) live te zetten is afgewezen: ((reason))"),
        "en": ("((service_name)) cannot go live yet",
               "Your request to take ((service_name)) live was turned down: ((reason))"),
    },
    # To the new address of an account (core/account_settings.py): the change applies once followed.
    "email-change": {
        "nl": ("Bevestig uw nieuwe e-mailadres",
               "Bevestig via deze link (1 uur geldig) dat u dit e-mailadres wilt gebruiken voor Notify NL:\n\n((url))"
               "\n\nHeeft u dit niet gevraagd? Dan kunt u deze e-mail negeren."),
        "en": ("Confirm your new email address",
               "Confirm with this link (valid for 1 hour) that you want to use this email address for Notify NL:\n\n"
               "((url))\n\nDid not ask for this? Then ignore this email."),
    },
}
# The templates' names as the platform service's template pages list them.
NAMES = {"sign-in-code": ("Inlogcode", "Sign-in code"), "invitation": ("Uitnodiging", "Invitation"),
         "password-reset": ("Wachtwoord opnieuw instellen", "Password reset"),
         "api-key-expiring": ("API-sleutel verloopt", "API key expiring"),
         "go-live-approved": ("Live gezet", "Gone live"),
         "go-live-awaits-organisation": ("Wacht op de organisatie", "Awaits the organisation"),
         "go-live-organisation-approved": ("Goedgekeurd door de organisatie", "Approved by the organisation"),
         "go-live-rejected": ("Niet live gezet", "Not taken live"),
         "email-change": ("Nieuw e-mailadres bevestigen", "Confirm a new email address"),
         "mobile-code": ("Code voor een mobiel nummer", "Code for a mobile number")}

# Texts, short enough for one fragment: a code to confirm a mobile number, or to sign in.
SMS_TEMPLATES: dict[str, dict[str, str]] = {
    "mobile-code": {"nl": "((code)) is uw Notify NL-code. De code is 10 minuten geldig.",
                    "en": "((code)) is your Notify NL code. It is valid for 10 minutes."},
}

_language: contextvars.ContextVar[str] = contextvars.ContextVar("platform_language", default=DEFAULT_LANGUAGE)


def current_language() -> str:
    """The language the platform's emails and texts are written in for this context."""
    return _language.get()


def set_language(language: str) -> None:
    """Declare the language of the page acting: each console request sets its own, first thing (a request's
    context is entered again to stream a file, so it is set, never reset)."""
    _language.set(language if language in LANGUAGES else DEFAULT_LANGUAGE)


def template_id(key: str, language: str = DEFAULT_LANGUAGE) -> uuid.UUID:
    # The bilingual templates of releases up to 0.8 had "template:<key>": each language has an id of its own.
    return uuid.uuid5(_NAMESPACE, f"template:{key}:{language}")


_LANGUAGE_OF = {template_id(key, language): language for key in [*TEMPLATES, *SMS_TEMPLATES] for language in LANGUAGES}


def language_of(template: uuid.UUID | None) -> str | None:
    """The language a platform template is written in (its email's HTML says so too); None for any other."""
    return _LANGUAGE_OF.get(template) if template is not None else None


def _archive_bilingual(service: Service) -> None:
    """Up to release 0.8 each template held both languages, under "template:<key>": archived, as a team
    deletes a template (their versions stay, so the messages sent from them still name them)."""
    bilingual = [uuid.uuid5(_NAMESPACE, f"template:{key}") for key in [*TEMPLATES, *SMS_TEMPLATES]]
    (Template.update(archived=True)
     .where((Template.service == service) & Template.id.in_(bilingual) & (Template.archived == False))  # noqa: E712
     .execute())


def ensure_platform_service() -> Service:
    """The platform service with its email and text templates, made when missing. It is live (not in trial
    mode): it writes to people who are not on any team yet."""
    service = Service.get_or_none(Service.id == PLATFORM_SERVICE_ID)
    if service is None:
        try:
            with database.atomic():
                service = Service.create(id=PLATFORM_SERVICE_ID, name=PLATFORM_SERVICE_NAME, trial_mode=False,
                                         permissions=["email", "sms"])
        except peewee.IntegrityError:  # another process made it at the same moment
            service = Service.get_by_id(PLATFORM_SERVICE_ID)
    every: list[tuple[str, str, str, str | None, str]] = [
        (key, language, "email", subject, body) for key, texts in TEMPLATES.items()
        for language, (subject, body) in texts.items()]
    every += [(key, language, "sms", None, body) for key, texts in SMS_TEMPLATES.items()
              for language, body in texts.items()]
    _archive_bilingual(service)
    for key, language, channel, subject, body in every:
        made = template_id(key, language)
        if Template.get_or_none(Template.id == made) is None:
            name = NAMES[key][LANGUAGES.index(language)]
            try:
                with database.atomic():
                    Template.insert(id=made, service=service, template_type=channel).execute()
                    TemplateVersion.create(template=made, version=1, name=name, body=body, subject=subject,
                                           created_by="platform")
            except peewee.IntegrityError:
                pass  # made by another process meanwhile
    return service


