from __future__ import annotations

from flask import Response, g, jsonify, request

from api.openapi import documented
from api.v2.blueprint import v2_blueprint
from api.v2.notifications.post_schemas import post_email_request, post_email_response
from api.v2.notifications.sending import accept, response_base
from models.notification import Notification
from models.service import sending_address
from pipeline.domain.rendering import Rendered
from workers.sending import enqueue_deliveries


def email_response(notification: Notification, body: dict, rendered: Rendered) -> dict:
    return {**response_base(notification), "content": {
        "from_email": sending_address(notification.service),
        "body": rendered.body,
        "subject": rendered.subject,
        "one_click_unsubscribe_url": notification.one_click_unsubscribe_url,
    }}


@v2_blueprint.post("/notifications/email")
@documented("Send an email.", {201: post_email_response}, body=post_email_request)
def post_email() -> tuple[Response, int]:
    body, status = accept(g.caller, "email", request.get_data(), request.headers.get("Idempotency-Key"),
                          enqueue_deliveries, email_response)
    return jsonify(body), status
