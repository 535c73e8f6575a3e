"""Keyword-only factories for test data, built with the same functions the admin API uses."""
from __future__ import annotations

from models.api_key import create_api_key
from models.service import Service
from models.template import Template, create_template


def create_service(*, name: str | None = None, trial_mode: bool = False, permissions: list[str] | None = None,
                   **settings: object) -> Service:
    import uuid

    return Service.create(
        name=name or f"service {uuid.uuid4().hex[:8]}",
        trial_mode=trial_mode,
        permissions=permissions if permissions is not None else ["email", "sms", "letter", "international_sms"],
        **settings,
    )


def create_key(*, service: Service, key_type: str = "live", name: str = "key") -> str:
    return create_api_key(service, name=name, key_type=key_type)[1]


def create_sample_template(*, service: Service, template_type: str = "sms", name: str = "sample",
                           body: str = "Hello ((name))", subject: str | None = None,
                           postage: str | None = None, **extra: object) -> Template:
    if template_type == "email" and subject is None:
        subject = "Subject ((name))"
    if template_type == "letter":
        subject = subject or "Letter heading"
        postage = postage or "second"
    return create_template(service, template_type=template_type, name=name, body=body, subject=subject,
                           postage=postage, created_by="tests@example.nl", **extra)
