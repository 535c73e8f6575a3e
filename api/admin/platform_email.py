"""Email from the platform to the people of a service (go-live decisions), sent through this
service's own pipeline: the platform is a service like any other, with one template."""
from __future__ import annotations

import uuid

from models.db import database, utcnow
from models.notification import Notification
from models.service import Service
from models.template import Template, create_template, latest_version
from pipeline.recipients import format_email_for_comparison, validate_email_address
from pipeline.rendering import render
from workers.sending import enqueue_deliveries

# Fixed, so every process finds the same platform service without a setting.
PLATFORM_SERVICE_ID = uuid.UUID("00000000-0000-4000-8000-00000000a11e")
PLATFORM_SERVICE_NAME = "Notify NL (platform)"


def platform_service() -> tuple[Service, Template]:
    """The platform service and its one email template, made on first use."""
    with database.atomic():
        service = Service.get_or_none(Service.id == PLATFORM_SERVICE_ID)
        if service is None:
            service = Service.create(id=PLATFORM_SERVICE_ID, name=PLATFORM_SERVICE_NAME, trial_mode=False,
                                     permissions=["email"])
        template = Template.select().where(Template.service == service).order_by(Template.created_at).first()
        if template is None:
            template = create_template(service, template_type="email", name="Platform message",
                                       subject="((subject))", body="((body))", created_by="system")
    return service, template


def send_platform_email(to: str, subject: str, body: str) -> Notification:
    """Queue one email from the platform; it goes out once the current transaction commits."""
    service, template = platform_service()
    version = latest_version(template)
    values = {"subject": subject, "body": body}
    rendered = render("email", version.body, version.subject, values)
    address = validate_email_address(to)
    row = Notification(
        id=uuid.uuid4(), service=service, key_type="live", notification_type="email",
        template_id=template.id, template_version=version.version, to=address,
        normalised_to=format_email_for_comparison(address), status="created", body=rendered.body,
        subject=rendered.subject, created_at=utcnow(), personalisation=values, fragment_count=0,
    )
    with database.atomic():
        row.save(force_insert=True)
        enqueue_deliveries([row])
    return row
