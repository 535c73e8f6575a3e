"""Who sent each notification and with which template, looked up for many notifications at once (the
messages list and its CSV report show a page or a chunk of rows with one query per kind, not per row)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

import peewee

from models.api_key import ApiKey
from models.job import Job
from models.notification import Notification
from models.template import TemplateVersion
from models.user import User

API_KEY = "api-key"
USER = "user"
JOB = "job"


@dataclass(frozen=True)
class Sender:
    kind: str  # API_KEY, USER or JOB
    id: str
    name: str  # the key's name, the user's name, or the job's file name
    row: int | None = None  # a job's row as its spreadsheet numbers it (the header is row 1)


def senders(notifications: Iterable[Notification]) -> dict[str, Sender]:
    """Notification id -> who sent it: a job's row, a console user, or an API key (in that order, as a
    job's rows and console sends carry no key of the service's)."""
    rows = list(notifications)
    # A job's row is named as the spreadsheet numbers it (the header is row 1), as the job's pages do.
    jobs = _names(Job, Job.original_file_name, {n.job_id for n in rows if n.job_id})
    users = _names(User, User.name, {n.created_by_user_id for n in rows if n.created_by_user_id})
    keys = _names(ApiKey, ApiKey.name, {n.api_key_id for n in rows if n.api_key_id})
    found: dict[str, Sender] = {}
    for n in rows:
        if n.job_id and str(n.job_id) in jobs:
            row = n.job_row_number + 2 if n.job_row_number is not None else None
            found[str(n.id)] = Sender(JOB, str(n.job_id), jobs[str(n.job_id)], row)
        elif n.created_by_user_id and str(n.created_by_user_id) in users:
            found[str(n.id)] = Sender(USER, str(n.created_by_user_id), users[str(n.created_by_user_id)])
        elif n.api_key_id and str(n.api_key_id) in keys:
            found[str(n.id)] = Sender(API_KEY, str(n.api_key_id), keys[str(n.api_key_id)])
    return found


# What a notification's sender can be, each with a name to show.
Named = TypeVar("Named", Job, User, ApiKey)


def _names(model: type[Named], name_field: peewee.Field, ids: set[object]) -> dict[str, str]:
    if not ids:
        return {}
    return {str(row.id): getattr(row, name_field.name)
            for row in model.select(model.id, name_field).where(model.id.in_(list(ids)))}


def template_names(notifications: Iterable[Notification]) -> dict[tuple[str, int | None], str]:
    """(template id, version) -> the template's name at that version."""
    wanted = {(str(n.template_id), n.template_version) for n in notifications
              if n.template_id is not None and n.template_version is not None}
    if not wanted:
        return {}
    template_ids = list({template_id for template_id, _ in wanted})
    query = (TemplateVersion.select(TemplateVersion.template, TemplateVersion.version, TemplateVersion.name)
             .where(TemplateVersion.template.in_(template_ids)))
    return {key: row.name for row in query
            if (key := (str(row.template_id), row.version)) in wanted}
