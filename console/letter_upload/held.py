"""An uploaded letter kept between its check and the user's "send" (an hour, encrypted, in Redis),
as a spreadsheet upload is (console/jobs/uploads.py)."""
from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass

from console import redis_state
from models import crypto
from pipeline.domain.errors import Refusal

KEEP_SECONDS = 3600


@dataclass(frozen=True)
class HeldLetter:
    file_name: str
    data: bytes
    pages: int
    sheets: int
    problems: list[Refusal]  # the print checks' findings


def keep(service_id: object, letter: HeldLetter) -> str:
    upload_id = str(uuid.uuid4())
    value = {"file_name": letter.file_name, "pdf": base64.b64encode(letter.data).decode("ascii"),
             "pages": letter.pages, "sheets": letter.sheets,
             "problems": [str(problem) for problem in letter.problems],
             "codes": [[problem.code, problem.values] for problem in letter.problems]}
    redis_state.store(f"letter-upload:{service_id}:{upload_id}", crypto.encrypt(json.dumps(value)),
                      ttl_seconds=KEEP_SECONDS)
    return upload_id


def fetch(service_id: object, upload_id: str) -> HeldLetter | None:
    stored = redis_state.fetch(f"letter-upload:{service_id}:{upload_id}")
    if stored is None:
        return None
    value = json.loads(crypto.decrypt(stored))
    # A letter held by the release before has its problems' words alone: they are shown as they are.
    codes = value.get("codes") or [["", {}] for _ in value["problems"]]
    problems = [Refusal(code, text, values) for text, (code, values) in zip(value["problems"], codes, strict=True)]
    return HeldLetter(value["file_name"], base64.b64decode(value["pdf"]), value["pages"], value["sheets"], problems)


def claim(service_id: object, upload_id: str) -> bool:
    """True for the one request that may send the letter (a double click sends it once)."""
    return redis_state.claim_once(f"letter-upload-sent:{service_id}:{upload_id}", ttl_seconds=KEEP_SECONDS)


def unclaim(service_id: object, upload_id: str) -> None:
    redis_state.forget(f"letter-upload-sent:{service_id}:{upload_id}")


def forget(service_id: object, upload_id: str) -> None:
    redis_state.forget(f"letter-upload:{service_id}:{upload_id}")
