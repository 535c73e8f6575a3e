"""Email from the platform to the people of a service (go-live decisions), sent through this
service's own pipeline: the platform is a service like any other, with a template per email."""
from __future__ import annotations

import uuid

from models.db import database, utcnow
from models.notification import Notification
from models.service import Service
from models.template import Template, TemplateVersion, latest_version
from pipeline.recipients import format_email_for_comparison
from pipeline.rendering import render
from workers.sending import enqueue_deliveries

_NAMESPACE = uuid.UUID("5b8e2d7a-3c1f-4e0b-9d6a-7f2c8e1a4b30")
PLATFORM_SERVICE_ID = uuid.uuid5(_NAMESPACE, "service")
PLATFORM_SERVICE_NAME = "Notify NL (platform)"

# Each email in Dutch and English: the recipient may not have chosen a language.
TEMPLATES: dict[str, tuple[str, str]] = {
    "go-live-approved": (
        "((service_name)) is live",
        "((service_name)) is nu live: de dienst kan berichten naar iedereen sturen.\n\n"
        "((service_name)) is now live: it can send messages to anyone.",
    ),
    "go-live-rejected": (
        "((service_name)) kan nog niet live / ((service_name)) cannot go live yet",
        "Uw aanvraag om ((service_name)) live te zetten is afgewezen: ((reason))\n\n"
        "Your request to take ((service_name)) live was turned down: ((reason))",
    ),
}


def _template_id(key: str) -> uuid.UUID:
    return uuid.uuid5(_NAMESPACE, f"template:{key}")


def _platform_service() -> Service:
    """The platform service and its templates, made on first use (fixed ids: idempotent)."""
    with database.atomic():
        service = Service.get_or_none(Service.id == PLATFORM_SERVICE_ID)
        if service is None:
            service = Service.create(id=PLATFORM_SERVICE_ID, name=PLATFORM_SERVICE_NAME, trial_mode=False,
                                     permissions=["email"])
        for key, (subject, body) in TEMPLATES.items():
            if Template.get_or_none(Template.id == _template_id(key)) is None:
                Template.insert(id=_template_id(key), service=service, template_type="email").execute()
                TemplateVersion.create(template=_template_id(key), version=1, name=key, body=body,
                                       subject=subject, created_by="platform")
    return service


def send_platform_email(template_key: str, email_address: str, personalisation: dict[str, str]) -> Notification:
    """Queue one platform email; it goes out once the current transaction commits."""
    service = _platform_service()
    version = latest_version(Template.get_by_id(_template_id(template_key)))
    rendered = render("email", version.body, version.subject, personalisation)
    row = Notification(
        id=uuid.uuid4(), service=service, key_type="live", notification_type="email",
        template_id=version.template_id, template_version=version.version, to=email_address,
        normalised_to=format_email_for_comparison(email_address), status="created", body=rendered.body,
        subject=rendered.subject, created_at=utcnow(), personalisation=personalisation, fragment_count=0,
    )
    with database.atomic():
        row.save(force_insert=True)
        enqueue_deliveries([row])
    return row
