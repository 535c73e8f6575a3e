"""Text messages sent to a service's inbound number, posted by the SMS gateway (or its simulator)."""
from __future__ import annotations

import datetime
import logging
import re

from flask import Response, jsonify

from api.errors import NoResultFound, ValidationError
from api.openapi import documented
from api.providers.blueprint import providers_blueprint
from api.providers.delivery_receipts import success_response
from api.request_body import json_body
from api.schema import validate
from models.db import database, utcnow
from models.notification import ReceivedText
from models.service import InboundNumber
from workers.callbacks import enqueue_inbound_sms

log = logging.getLogger(__name__)

_SEPARATORS = re.compile(r"[\s()\-]")

inbound_sms_request = {
    "type": "object",
    "required": ["to", "from", "message"],
    "properties": {
        "to": {"type": "string", "minLength": 1},
        "from": {"type": "string", "minLength": 1, "maxLength": 255},  # the width of the columns they go to
        "message": {"type": "string"},
        # The provider's message id, kept to drop redelivered posts.
        "id": {"type": ["string", "null"], "maxLength": 255},
    },
    # Gateways add fields of their own (timestamps, encodings); they are not ours to refuse.
}


def _digits(number: str) -> str:
    """Without separators, "+" or an "00" international prefix: "+31 97 0100" -> "31970100"."""
    number = _SEPARATORS.sub("", number).lstrip("+")
    return number[2:] if number.startswith("00") else number


def find_inbound_number(to: str) -> InboundNumber | None:
    """The active, assigned inbound number the text was sent to. Numbers are stored without separators,
    with or without a leading "+", so both spellings are looked up (an indexed equality each)."""
    digits = _digits(to)
    return (InboundNumber.select().where(
        InboundNumber.number.in_([digits, f"+{digits}"]) & (InboundNumber.active == True)  # noqa: E712
        & InboundNumber.service.is_null(False)).first())


def _already_stored(number: InboundNumber, provider_reference: str | None) -> bool:
    if not provider_reference:
        return False
    # Received texts are readable for 7 days, so a redelivery is only looked for within them (index range).
    since = utcnow() - datetime.timedelta(days=7)
    return ReceivedText.select().where(
        (ReceivedText.service == number.service_id) & (ReceivedText.created_at >= since)
        & (ReceivedText.provider_reference == provider_reference)).exists()


@providers_blueprint.post("/<provider>/inbound-sms")
@documented("A text sent to one of our inbound numbers.", {200: success_response}, body=inbound_sms_request)
def receive_inbound_sms(provider: str) -> Response:
    body = validate(inbound_sms_request, json_body())
    take_text(provider, to=body["to"], sender=body["from"], message=body["message"], provider_id=body.get("id"))
    return jsonify({"result": "success"})


def take_text(provider: str, *, to: str, sender: str, message: str, provider_id: str | None) -> None:
    """Store a text sent to one of our numbers and queue its inbound callback, once per provider
    id; NoResultFound for a number we do not route."""
    if len(sender) > 255 or (provider_id is not None and len(provider_id) > 255):  # the columns' width
        raise ValidationError("from or id is longer than 255 characters")
    number = find_inbound_number(to)
    if number is None:
        # A number we do not route is a gateway misconfiguration: say so, instead of a silent success.
        raise NoResultFound("Inbound number not found")
    service = number.service
    if not (service.active and service.has_permission("inbound_sms")):
        # Answered as a success all the same, so the gateway does not retry a text we will never take.
        log.info("inbound sms via %s for service %s dropped: receiving is off", provider, service.id)
        return
    with database.atomic():
        if not _already_stored(number, provider_id):
            text = ReceivedText.create(service=service, notify_number=number.number, user_number=_SEPARATORS.sub(
                "", sender), content=message, provider_reference=provider_id)
            enqueue_inbound_sms(text)  # sent once the text is committed
