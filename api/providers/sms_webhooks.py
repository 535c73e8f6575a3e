"""The webhooks of the real SMS providers, each in its own format and with its own authentication
(docs/providers-sms.md):

    GET|POST /providers/<gateway>/status-reports/<token>    Spryng (query or form), CM.com (JSON)
    POST     /providers/<gateway>/received-texts/<token>    Spryng (form), CM.com (JSON)
    POST     /providers/<gateway>/status-reports?reference=<notification id>   Twilio (form, signed)
    POST     /providers/<gateway>/received-texts                               Twilio (form, signed)

The provider's authentication is checked before anything in the body is used: Twilio's
X-Twilio-Signature against the gateway's auth token, over the address Twilio requested. That is
rebuilt from BASE_URL, the public address we gave Twilio: behind a proxy the request's own host and
scheme are the proxy's. Spryng and CM sign nothing, so their addresses end in the gateway's token
(pipeline/infrastructure/providers/sms/gateways.webhook_token). A request failing its check is answered 403,
logged and counted, and changes nothing. A report in a status we do not know is logged and counted
and changes nothing; the others go where the JSON gateway's receipts go (apply_posted_receipts).
"""
from __future__ import annotations

import hmac
import logging
from typing import Any

from flask import Blueprint, Response, jsonify, request

from api.errors import AuthError, ValidationError
from api.openapi import documented
from api.providers.delivery_receipts import MAX_BODY_BYTES, success_response
from api.providers.inbound_sms import take_text
from api.request_body import json_body
from config import get_settings
from models.sms_gateway import SmsGateway
from observability.metrics import provider_webhook_refusals
from pipeline.infrastructure.providers.sms import cm, gateways, spryng, twilio, types
from pipeline.infrastructure.providers.sms.incoming import InboundText, Report, Unreadable
from workers.receipts import apply_posted_receipts

log = logging.getLogger(__name__)
sms_webhooks_blueprint = Blueprint("sms_webhooks", __name__, url_prefix="/providers")
# Twilio reads the answer to a received text as TwiML: an empty Response sends no reply.
EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>'
_gateway_path = {"gateway": {"type": "string"}, "token": {"type": "string"}}


def _gateway(name: str) -> SmsGateway | None:
    return next((row for row in gateways.in_use(get_settings()) if row.name == name), None)


def _public_url() -> str:
    query = request.query_string.decode()
    return f"{get_settings().base_url}{request.path}" + (f"?{query}" if query else "")


def _authentic(gateway: SmsGateway | None, token: str | None) -> bool:
    if gateway is None or gateway.type == types.JSON:
        return False  # a JSON gateway posts to its own webhooks, with the bearer token
    if gateway.type == types.TWILIO:
        return (token is None and twilio.signed(gateway.token or "", _public_url(), request.form,
                                                request.headers.get("X-Twilio-Signature"))
                and request.form.get("AccountSid") == gateway.account_sid)
    expected = gateways.webhook_token(get_settings(), gateway.name)
    return token is not None and hmac.compare_digest(token.encode(), expected.encode())


def _checked(name: str, token: str | None) -> SmsGateway:
    """The gateway the request is for, once its provider's authentication holds; 403 otherwise."""
    request.max_content_length = MAX_BODY_BYTES  # a form (Twilio's signature check reads it) no larger than a JSON body
    gateway = _gateway(name)
    if gateway is None or not _authentic(gateway, token):
        kind = gateway.type if gateway is not None else "unknown"
        provider_webhook_refusals.labels(kind, "bad-signature").inc()
        log.warning("SMS webhook %s for gateway %r (%s) refused: bad or missing signature or token",
                    request.endpoint, name, kind)
        raise AuthError("Invalid signature")
    return gateway


def _read(parse: Any, *args: Any) -> Any:
    try:
        return parse(*args)
    except Unreadable as error:
        raise ValidationError(f"Not a report or text in the provider's format: {error}") from None


def _reports(gateway: SmsGateway) -> list[Report]:
    if gateway.type == types.SPRYNG:
        return [_read(spryng.report, request.values)]
    if gateway.type == types.CM:
        return _read(cm.reports, json_body(max_bytes=MAX_BODY_BYTES))
    return [_read(twilio.report, request.form, request.args.get("reference"))]


def _apply(gateway: SmsGateway, reports: list[Report]) -> None:
    known = []
    for report in reports:
        if report.state is None:
            provider_webhook_refusals.labels(gateway.type, "unknown-status").inc()
            log.warning("delivery report from %s (%s) in a status we do not know, nothing changed: %s for %s",
                        gateway.name, gateway.type, report.provider_status, report.provider_id)
        else:
            known.append(report.as_receipt())
    if known:
        apply_posted_receipts(gateway.name, known)  # committed before we answer


def _inbound(gateway: SmsGateway) -> InboundText | None:
    if gateway.type == types.SPRYNG:
        return _read(spryng.inbound, request.values)
    if gateway.type == types.CM:
        return _read(cm.inbound, json_body(max_bytes=MAX_BODY_BYTES))
    return _read(twilio.inbound, request.form)


def _answer(gateway: SmsGateway) -> Response | tuple[Response, int]:
    if gateway.type == types.TWILIO:
        return Response(EMPTY_TWIML, content_type="text/xml")
    return jsonify({"result": "success"}), 200


@sms_webhooks_blueprint.route("/<gateway>/status-reports", methods=["GET", "POST"])
@sms_webhooks_blueprint.route("/<gateway>/status-reports/<token>", methods=["GET", "POST"])
@documented("A delivery report in the provider's own format (Spryng, CM.com, Twilio).", {200: success_response},
            path=_gateway_path, query={"type": "object", "properties": {"reference": {"type": "string"}}})
def status_report(gateway: str, token: str | None = None) -> Response | tuple[Response, int]:
    found = _checked(gateway, token)
    _apply(found, _reports(found))
    return _answer(found)


@sms_webhooks_blueprint.post("/<gateway>/received-texts")
@sms_webhooks_blueprint.post("/<gateway>/received-texts/<token>")
@documented("A text sent to one of our numbers, in the provider's own format.", {200: success_response},
            path=_gateway_path)
def received_text(gateway: str, token: str | None = None) -> Response | tuple[Response, int]:
    found = _checked(gateway, token)
    text = _inbound(found)
    if text is not None:
        take_text(found.name, to=text.to, sender=text.sender, message=text.message, provider_id=text.provider_id)
    return _answer(found)
