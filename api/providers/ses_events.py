"""Amazon SES events, as Amazon SNS posts them to our HTTPS subscription.

    POST /providers/ses/sns     (SNS's JSON message, sent as text/plain)

No shared token: SNS cannot send one, and every message carries Amazon's signature instead, checked
(pipeline/infrastructure/providers/email/sns.py) before anything in it is used. A message that fails the check, or
whose type is unknown, is answered 403, logged and counted, and changes nothing.
- SubscriptionConfirmation: SubscribeURL is visited by a worker (confirm_sns_subscription).
- Notification: its Message, an SES bounce, complaint or delivery, becomes an email event applied
  as the email-events webhook's are; any other SES event type is logged, counted and acknowledged,
  since SNS would otherwise post it again for days.
- UnsubscribeConfirmation: logged.
"""
from __future__ import annotations

import json
import logging

from flask import Blueprint, Response, jsonify

from api.errors import ApiError, AuthError
from api.openapi import documented
from api.providers.delivery_receipts import MAX_BODY_BYTES, success_response
from api.request_body import json_body
from config import get_settings
from observability import metrics
from pipeline.infrastructure.providers.email.ses import UnknownSesEvent, event_from_ses
from pipeline.infrastructure.providers.email.sns import NOTIFICATION, SUBSCRIPTION_CONFIRMATION, RefusedMessage
from workers.receipts import apply_posted_email_events, confirm_sns_subscription, sns_verifier

log = logging.getLogger(__name__)
PROVIDER = "ses"
ses_blueprint = Blueprint("ses", __name__, url_prefix="/providers/ses")
SNS_MESSAGE_SCHEMA = {
    "type": "object",
    "required": ["Type", "MessageId", "TopicArn", "Message", "Timestamp", "SignatureVersion", "Signature",
                 "SigningCertURL"],
    "properties": {
        "Type": {"enum": ["Notification", "SubscriptionConfirmation", "UnsubscribeConfirmation"]},
        "Message": {"type": "string", "description": "For a Notification: the SES event, as JSON text."},
        "SignatureVersion": {"enum": ["1", "2"]},
    },
}


@ses_blueprint.post("/sns")
@documented("A message from Amazon SNS: a subscription to confirm, or an Amazon SES event.", {200: success_response},
            body=SNS_MESSAGE_SCHEMA)
def sns_message() -> tuple[Response, int]:
    message = _verified_message()
    if message["Type"] == SUBSCRIPTION_CONFIRMATION:
        confirm_sns_subscription.send(message["SubscribeURL"], message["TopicArn"])
        log.info("SNS subscription to %s: confirming", message["TopicArn"])
    elif message["Type"] == NOTIFICATION:
        _apply_notification(message)
    else:
        log.warning("SNS unsubscribed us from %s", message["TopicArn"])
    return jsonify({"result": "success"}), 200


def _verified_message() -> dict:
    try:
        message = json_body(max_bytes=MAX_BODY_BYTES)
    except ApiError:
        message = None  # not JSON: nothing SNS signed
    try:
        if not isinstance(message, dict):
            raise RefusedMessage("malformed", "the body is not a JSON object")
        verifier = sns_verifier(get_settings())
        verifier.verify(message)
        if message["Type"] == SUBSCRIPTION_CONFIRMATION:
            verifier.check_url(message["SubscribeURL"], "SubscribeURL")
    except RefusedMessage as refused:
        log.warning("SNS message refused (%s): %s", refused.reason, refused)
        metrics.provider_webhook_refusals.labels(PROVIDER, refused.reason).inc()
        raise AuthError(f"SNS message refused: {refused.reason}") from None
    return message


def _apply_notification(message: dict) -> None:
    try:
        notification = json.loads(message["Message"])
        if not isinstance(notification, dict):
            raise UnknownSesEvent("the Message is not a JSON object")
        event = event_from_ses(notification)
    except (ValueError, UnknownSesEvent) as error:
        log.warning("SNS notification %s from %s not applied: %s", message["MessageId"], message["TopicArn"], error)
        metrics.provider_webhook_refusals.labels(PROVIDER, "unknown-event").inc()
        return
    # Answered once it is in the database: SNS posts again only what we do not acknowledge.
    apply_posted_email_events(PROVIDER, [event])
