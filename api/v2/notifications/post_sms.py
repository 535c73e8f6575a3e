from __future__ import annotations

from flask import Response, g, jsonify, request

from api.openapi import documented
from api.v2.blueprint import v2_blueprint
from api.v2.notifications.post_schemas import post_sms_request, post_sms_response
from api.v2.notifications.sending import accept, response_base
from models.notification import Notification
from pipeline.domain.rendering import Rendered
from workers.sending import enqueue_deliveries


def sms_response(notification: Notification, body: dict, rendered: Rendered) -> dict:
    return {**response_base(notification),
            "content": {"body": rendered.body, "from_number": notification.reply_to_text}}


@v2_blueprint.post("/notifications/sms")
@documented("Send a text message.", {201: post_sms_response}, body=post_sms_request)
def post_sms() -> tuple[Response, int]:
    body, status = accept(g.caller, "sms", request.get_data(), request.headers.get("Idempotency-Key"),
                          enqueue_deliveries, sms_response)
    return jsonify(body), status
