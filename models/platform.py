"""The platform's own service: the console's emails (sign-in codes, invitations, password resets) and
texts (codes) are sent as ordinary notifications of it, through the configured providers.

Its rows have fixed ids, so every process finds them without a lookup table and making them is
idempotent: they are made on first use, and again should someone delete them.
"""
from __future__ import annotations

import uuid

import peewee

from models.db import database
from models.service import Service
from models.template import Template, TemplateVersion

_NAMESPACE = uuid.UUID("8f1d6f3e-7f49-4c8e-9a55-2f4f1b2a9c10")
PLATFORM_SERVICE_ID = uuid.uuid5(_NAMESPACE, "service")
PLATFORM_SERVICE_NAME = "Notify NL platform"

# Each email in Dutch and English: the recipient may not have chosen a language yet.
TEMPLATES: dict[str, tuple[str, str]] = {
    "sign-in-code": (
        "Inlogcode / Sign-in code",
        "((code)) is uw inlogcode voor Notify NL. De code is 10 minuten geldig.\n\n"
        "((code)) is your Notify NL sign-in code. It is valid for 10 minutes.",
    ),
    "invitation": (
        "Uitnodiging voor ((service_name)) / Invitation to ((service_name))",
        "((invited_by)) nodigt u uit voor ((service_name)) op Notify NL. Maak uw account aan via deze link "
        "(geldig tot ((expires))):\n\n((url))\n\n"
        "((invited_by)) has invited you to ((service_name)) on Notify NL. Create your account with this link "
        "(valid until ((expires))):\n\n((url))",
    ),
    "password-reset": (
        "Wachtwoord opnieuw instellen / Reset your password",
        "Stel een nieuw wachtwoord in via deze link (1 uur geldig):\n\n((url))\n\n"
        "Reset your password with this link (valid for 1 hour):\n\n((url))\n\n"
        "Heeft u dit niet gevraagd? Dan kunt u deze e-mail negeren. / "
        "Did not ask for this? Then ignore this email.",
    ),
    # An API key about to expire (pipeline/key_expiry.py), to the managers of its service.
    "api-key-expiring": (
        "API-sleutel ((key_name)) verloopt binnenkort / API key ((key_name)) expires soon",
        "De API-sleutel ((key_name)) van ((service_name)) verloopt op ((expires)). Daarna weigert Notify NL "
        "hem. Maak op tijd een nieuwe sleutel (\"Vervangen\"):\n\n((url))\n\n"
        "The API key ((key_name)) of ((service_name)) expires on ((expires)). After that Notify NL refuses it. "
        "Make a new key in time (\"Rotate\"):\n\n((url))",
    ),
    # Go-live decisions (core/go_live.py), to the requester and the service's team.
    "go-live-approved": (
        "((service_name)) is live",
        "((service_name)) is nu live: de dienst kan berichten naar iedereen sturen.\n\n"
        "((service_name)) is now live: it can send messages to anyone.",
    ),
    # A request waiting for an organisation's approval, to the organisation's admins.
    "go-live-awaits-organisation": (
        "((service_name)) wacht op uw goedkeuring / ((service_name)) awaits your approval",
        "((requested_by)) vraagt om ((service_name)) live te zetten. Als beheerder van ((organisation_name)) "
        "beslist u eerst:\n\n((url))\n\n"
        "((requested_by)) asks to take ((service_name)) live. As an admin of ((organisation_name)) you "
        "decide first:\n\n((url))",
    ),
    # The organisation approved: the team hears that the platform's admins decide next.
    "go-live-organisation-approved": (
        "((organisation_name)) heeft ((service_name)) goedgekeurd / ((organisation_name)) approved "
        "((service_name))",
        "((organisation_name)) heeft de aanvraag om ((service_name)) live te zetten goedgekeurd. Het team "
        "van Notify NL beslist nu.\n\n"
        "((organisation_name)) approved the request to take ((service_name)) live. The Notify NL team "
        "decides next.",
    ),
    "go-live-rejected": (
        "((service_name)) kan nog niet live / ((service_name)) cannot go live yet",
        "Uw aanvraag om ((service_name)) live te zetten is afgewezen: ((reason))\n\n"
        "Your request to take ((service_name)) live was turned down: ((reason))",
    ),
    # To the new address of an account (core/account_settings.py): the change applies once followed.
    "email-change": (
        "Bevestig uw nieuwe e-mailadres / Confirm your new email address",
        "Bevestig via deze link (1 uur geldig) dat u dit e-mailadres wilt gebruiken voor Notify NL:\n\n((url))\n\n"
        "Confirm with this link (valid for 1 hour) that you want to use this email address for Notify NL:\n\n"
        "((url))\n\nHeeft u dit niet gevraagd? Dan kunt u deze e-mail negeren. / "
        "Did not ask for this? Then ignore this email.",
    ),
}

# Texts, short enough for one fragment: a code to confirm a mobile number, or to sign in.
SMS_TEMPLATES: dict[str, str] = {
    "mobile-code": "((code)) is uw Notify NL-code / is your Notify NL code. 10 min geldig / valid.",
}


def template_id(key: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"template:{key}")


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
    every: list[tuple[str, str, str | None, str]] = [
        (key, "email", subject, body) for key, (subject, body) in TEMPLATES.items()]
    every += [(key, "sms", None, body) for key, body in SMS_TEMPLATES.items()]
    for key, channel, subject, body in every:
        if Template.get_or_none(Template.id == template_id(key)) is None:
            try:
                with database.atomic():
                    Template.insert(id=template_id(key), service=service, template_type=channel).execute()
                    TemplateVersion.create(template=template_id(key), version=1, name=key, body=body,
                                           subject=subject, created_by="platform")
            except peewee.IntegrityError:
                pass  # made by another process meanwhile
    return service


