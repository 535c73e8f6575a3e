"""Services: create one, change its settings, find one named in a path.

A service's settings as the history records them are `settings_of`; the admin API's answer is built
on the same values, so the two never disagree.
"""
from __future__ import annotations

import zoneinfo
from typing import Any

import peewee

from core.ids import checked_uuid
from models import audit
from models.db import database, utcnow
from models.service import CHANNELS, Service, find_service_by_name
from pipeline.domain.errors import BadRequestError, NoResultFound, Refusal, ValidationError

# Settings copied one to one onto the model.
PLAIN_SETTINGS = ("trial_mode", "active", "rate_limit", "sms_daily_limit", "email_daily_limit",
                  "letter_daily_limit", "international_sms_daily_limit", "permissions",
                  "file_download_contact", "hosted_unsubscribe", "time_zone")
# The longest a stored retention may be (ten years): the admin API's schema and the console's form
# both refuse more.
MAX_RETENTION_DAYS = 3650
# The largest value an INTEGER column holds on PostgreSQL: a larger limit is refused here, not by the
# database (the admin API's schema refuses it first, in the same words).
LARGEST_LIMIT = 2**31 - 1
LIMITS = ("rate_limit", "sms_daily_limit", "email_daily_limit", "letter_daily_limit", "international_sms_daily_limit")


def find_service(service_id: str) -> Service:
    """The service named in a path: 400 for a malformed id, 404 for an unknown one."""
    service = Service.get_or_none(Service.id == checked_uuid("service_id", service_id))
    if service is None:
        raise NoResultFound()
    return service


def settings_of(service: Service) -> dict[str, Any]:
    """What the history shows of a service: its settings, not its id or timestamps."""
    return {
        "name": service.name,
        "active": service.active,
        "trial_mode": service.trial_mode,
        "permissions": list(service.permissions or []),
        "rate_limit": service.rate_limit,
        "sms_daily_limit": service.sms_daily_limit,
        "email_daily_limit": service.email_daily_limit,
        "letter_daily_limit": service.letter_daily_limit,
        "international_sms_daily_limit": service.international_sms_daily_limit,
        "data_retention_days": {channel: service.retention_days(channel) for channel in CHANNELS},
        "file_download_contact": service.file_download_contact,
        "hosted_unsubscribe": service.hosted_unsubscribe,
        "time_zone": service.time_zone,
    }


def is_time_zone(name: str) -> bool:
    """Whether the name is an IANA time zone this machine knows (Europe/Amsterdam, UTC, ...)."""
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _apply(service: Service, changes: dict[str, Any]) -> None:
    too_large = [f"{field} {changes[field]} is greater than the maximum of {LARGEST_LIMIT}"
                 for field in LIMITS if isinstance(changes.get(field), int) and changes[field] > LARGEST_LIMIT]
    if too_large:
        raise ValidationError(*too_large)
    if "time_zone" in changes and not is_time_zone(changes["time_zone"]):
        raise ValidationError(f"time_zone {changes['time_zone']} is not a time zone")
    if "name" in changes:
        service.name = changes["name"].strip()
    for field in PLAIN_SETTINGS:
        if field in changes:
            setattr(service, field, changes[field])
    for channel, days in (changes.get("data_retention_days") or {}).items():
        setattr(service, f"{channel}_retention_days", days)


def _save(service: Service, *, insert: bool, before: dict[str, Any] | None) -> None:
    """Save and record the change, refusing a name another service already has (checked first for
    the message, and caught from the unique index for two requests racing)."""
    duplicate = BadRequestError(Refusal("service_name_taken", f"Service name '{service.name}' already exists",
                                        {"name": service.name}))
    if find_service_by_name(service.name, excluding=None if insert else service) is not None:
        raise duplicate
    try:
        with database.atomic():
            service.save(force_insert=insert)
            if before is None:
                audit.record(service.id, "service.create", after=settings_of(service))
            else:
                old, new = audit.differences(before, settings_of(service))
                if new:
                    audit.record(service.id, "service.update", before=old, after=new)
    except peewee.IntegrityError:
        raise duplicate from None


def create_service(name: str, **settings: Any) -> Service:
    """A new service; it starts in trial mode unless the settings say otherwise. `settings` are those
    of PLAIN_SETTINGS and `data_retention_days` ({channel: days})."""
    service = Service()
    _apply(service, {"name": name, **settings})
    with database.atomic():
        _save(service, insert=True, before=None)
    return service


def update_service(service_id: str, **changes: Any) -> Service:
    """Change only the settings given (the name, those of PLAIN_SETTINGS, and
    `data_retention_days`, whose channels not named keep their days)."""
    service = find_service(service_id)
    before = settings_of(service)
    _apply(service, changes)
    service.updated_at = utcnow()
    _save(service, insert=False, before=before)
    return service


def list_services() -> list[Service]:
    return list(Service.select().order_by(Service.created_at, Service.name))
