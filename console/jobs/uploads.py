"""A checked upload kept between its check and the user's "send" (an hour, encrypted, in Redis)."""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

from console import redis_state
from models import crypto
from pipeline.stages.jobs.checking import CheckedSheet

KEEP_SECONDS = 3600


@dataclass(frozen=True)
class Upload:
    file_name: str
    template_id: str
    template_version: int
    checked: CheckedSheet
    fallback_templates: tuple[str, ...] = ()  # the ids of the templates its rows fall back to, in order


def keep(service_id: object, upload: Upload) -> str:
    upload_id = str(uuid.uuid4())
    checked = upload.checked
    value = {"file_name": upload.file_name, "template_id": upload.template_id,
             "template_version": upload.template_version, "header": checked.header,
             "recipient_column": checked.recipient_column, "rows": checked.rows,
             "international_rows": checked.international_rows, "fallback_templates": upload.fallback_templates}
    redis_state.store(f"upload:{service_id}:{upload_id}", crypto.encrypt(json.dumps(value, separators=(",", ":"))),
                      ttl_seconds=KEEP_SECONDS)
    return upload_id


def fetch(service_id: object, upload_id: str) -> Upload | None:
    stored = redis_state.fetch(f"upload:{service_id}:{upload_id}")
    if stored is None:
        return None
    value = json.loads(crypto.decrypt(stored))
    checked = CheckedSheet(value["header"], value["recipient_column"], value["rows"],
                           international_rows=value["international_rows"])
    return Upload(value["file_name"], value["template_id"], value["template_version"], checked,
                  tuple(value.get("fallback_templates", ())))


def claim(service_id: object, upload_id: str) -> bool:
    """True for the one request that may make the upload a job."""
    return redis_state.claim_once(f"upload-sent:{service_id}:{upload_id}", ttl_seconds=KEEP_SECONDS)


def unclaim(service_id: object, upload_id: str) -> None:
    """The job was refused (say, its time had passed): the upload may be sent again."""
    redis_state.forget(f"upload-sent:{service_id}:{upload_id}")


def forget(service_id: object, upload_id: str) -> None:
    redis_state.forget(f"upload:{service_id}:{upload_id}")
