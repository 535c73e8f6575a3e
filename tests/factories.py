"""Keyword-only factories for test data, built with the same functions the admin API uses."""
from __future__ import annotations

import dataclasses
import datetime

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


def auth_headers(key: str) -> dict[str, str]:
    """Headers as the official clients send them, for the Flask test client."""
    from core.tokens import create_token

    return {"Authorization": f"Bearer {create_token(key[-73:-37], key[-36:])}", "Content-Type": "application/json"}


from models.notification import Notification  # noqa: E402  (appended: the imports above belong to others)


def create_notification(*, service: Service, template: Template | None = None, notification_type: str | None = None,
                        key_type: str = "live", status: str = "created", to: str | None = None,
                        **fields: object) -> Notification:
    """A notification row as the send path records it; any column can be overridden (created_at, ...).
    Its place in a fallback chain too: fallback (the alternatives), fallback_for, fallback_sent_as,
    fallback_refused (kept beside the row, models.notification_fallback)."""
    import uuid

    chain = {name: fields.pop(name) for name in CHAIN_FIELDS if name in fields}

    kind = notification_type or (template.template_type if template is not None else "sms")
    defaults: dict[str, object] = {
        "template_id": template.id if template is not None else uuid.uuid4(),
        "template_version": template.current_version if template is not None else 1,
        "body": "Hello there",
    }
    if kind == "sms":
        defaults.update(to=to or "+31612345678", normalised_to=to or "+31612345678")
    elif kind == "email":
        defaults.update(to=to or "someone@example.nl", normalised_to=to or "someone@example.nl",
                        subject="Subject")
    else:
        lines = (to or "A. Person\nDorpsstraat 1\n1234 AB  AMSTERDAM").splitlines()
        defaults.update(to="\n".join(lines), subject="Letter heading", postage="second",
                        address={"lines": lines, "postcode": None})
    defaults.update(fields)
    row = Notification.create(service=service, key_type=key_type, notification_type=kind, status=status,
                              **defaults)
    if chain:
        set_chain(row.id, **chain)
    return row


# A test's names of a notification's chain link fields (models.notification_fallback), as the API reads them.
CHAIN_FIELDS = {"fallback": "alternatives", "fallback_for": "fallback_for", "fallback_sent_as": "sent_as",
                "fallback_refused": "refused", "fallback_failed_at": "failed_at"}


@dataclasses.dataclass(frozen=True)
class Chain:
    fallback: list | None = None
    fallback_for: object = None
    fallback_sent_as: object = None
    fallback_refused: list | None = None
    fallback_failed_at: object = None


def chain_of(notification_id: object) -> Chain:
    """A notification's chain link, by the test's names; every field None without one."""
    from models.notification_fallback import NotificationFallback

    link = NotificationFallback.get_or_none(NotificationFallback.notification == notification_id)
    if link is None:
        return Chain()
    return Chain(**{name: getattr(link, field) for name, field in CHAIN_FIELDS.items()})


def set_chain(notification_id: object, **fields: object) -> None:
    """Set fields of a notification's chain link (by the test's names), making the link if it has none."""
    from models.notification_fallback import NotificationFallback

    values = {CHAIN_FIELDS[name]: value for name, value in fields.items()}
    if not NotificationFallback.update(values).where(NotificationFallback.notification == notification_id).execute():
        NotificationFallback.create(notification=notification_id, **values)


# The rate card a fresh install is given (migration step 110, release 0.8.0's): what a test's emptied
# table gets back.
DEFAULT_VALID_FROM = datetime.date(2020, 1, 1)
DEFAULT_SMS_RATE = "0.0227"
DEFAULT_LETTER_RATES = {  # postage: (first sheet, each further sheet)
    "second": ("0.68", "0.05"),
    "first": ("1.22", "0.05"),
    "economy": ("0.59", "0.05"),
    "europe": ("1.63", "0.05"),
    "rest-of-world": ("1.63", "0.05"),
}


def seed_default_rates() -> None:
    """The default rate card, when the table is empty."""
    from models.rate import LETTER, SMS, Rate

    if Rate.select().exists():
        return
    rows = [{"notification_type": SMS, "postage": None, "valid_from": DEFAULT_VALID_FROM, "rate": DEFAULT_SMS_RATE}]
    rows += [{"notification_type": LETTER, "postage": postage, "valid_from": DEFAULT_VALID_FROM, "rate": first,
              "sheet_rate": further} for postage, (first, further) in DEFAULT_LETTER_RATES.items()]
    for row in rows:
        Rate.create(**row)
