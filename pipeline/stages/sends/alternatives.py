"""A send's fallback (issue 44): the alternatives tried in turn if the message fails, checked when the
send is accepted with the refusals each would get if it were sent alone, its place in front of each
("fallback[0] email_address Not a valid email address"). A refused alternative refuses the whole send.

What is stored is each alternative as it will be sent: its personalisation already merged over the
first message's, so a later step of the chain needs nothing but its own entry. The chain itself is
pipeline/stages/fallback.py's, which applies the same rules (pipeline.stages.send_checks) again when it
sends, since a service's settings may have changed in between.
"""
from __future__ import annotations

import uuid
from typing import Any

from pipeline.domain.errors import ApiError, Refusal, ValidationError
from pipeline.stages import send_checks
from pipeline.stages.documents import is_prepared_file, prepare_files
from pipeline.stages.sends.sender import Sender

MAX_ALTERNATIVES = 2


def _check_email(sender: Sender, alternative: dict[str, Any], values: dict) -> None:
    service = sender.service
    send_checks.check_permission(service, "email")
    version = send_checks.find_template(service, alternative["template_id"], "email")
    recipient = send_checks.recipient("email", alternative["email_address"])
    send_checks.check_recipient_allowed(service, sender.key_type, "email", recipient.normalised)
    # Its files are checked now and stored with it when it is sent (nothing is kept of them here).
    files = prepare_files(service, "email", uuid.uuid4(), values)
    send_checks.checked_render("email", version, files.personalisation, [])


def _check_letter(sender: Sender, alternative: dict[str, Any], values: dict) -> None:
    service = sender.service
    send_checks.check_permission(service, "letter")
    send_checks.check_letter_key_and_mode(service, sender.key_type)
    send_checks.letter_content(service, alternative["template_id"], values)
    prepare_files(service, "letter", uuid.uuid4(), values)  # a file to download has no place in a letter


def _placed(place: str, message: str) -> str:
    if isinstance(message, Refusal):
        return Refusal(message.code, f"{place} {message}", {**message.values, "place": place})
    return f"{place} {message}"


def _check(sender: Sender, channel: str, place: str, alternative: dict[str, Any], values: dict) -> None:
    kind = alternative.get("type")
    if kind == channel or kind not in ("email", "letter"):
        raise ValidationError(f"{place} type {kind} is not one of [email, letter] other than {channel}")
    try:
        (_check_email if kind == "email" else _check_letter)(sender, alternative, values)
    except ApiError as refused:
        raise type(refused)(*(_placed(place, message) for message in refused.messages)) from None


def checked_alternatives(sender: Sender, channel: str, body: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The body's `fallback` as it is to be stored, each alternative checked; None without one.
    Raises the first refused alternative's refusals, prefixed with its place."""
    given = body.get("fallback")
    if not given:
        return None
    if len(given) > MAX_ALTERNATIVES:
        raise ValidationError(f"fallback {given} is too long")
    # The first message's files are its own: a letter cannot carry one, and an email sends its own.
    first_values = {k: v for k, v in (body.get("personalisation") or {}).items() if not is_prepared_file(v)}
    alternatives = []
    for index, alternative in enumerate(given):
        values = {**first_values, **(alternative.get("personalisation") or {})}
        _check(sender, channel, f"fallback[{index}]", alternative, values)
        stored = {"type": alternative["type"], "template_id": alternative["template_id"], "personalisation": values}
        if alternative["type"] == "email":
            stored["email_address"] = alternative["email_address"]
        alternatives.append(stored)
    return alternatives
