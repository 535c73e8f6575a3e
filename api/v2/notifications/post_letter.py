"""POST /v2/notifications/letter: a letter from a template, or a precompiled PDF (`content`)."""
from __future__ import annotations

from flask import Response, g, jsonify

from api.openapi import documented
from api.v2.blueprint import v2_blueprint
from api.v2.notifications.letter_schemas import (
    post_letter_request,
    post_letter_response,
    post_precompiled_letter_request,
    post_precompiled_letter_response,
)
from api.v2.notifications.letter_sending import accept_letter
from workers.letters import enqueue_letter_pdf, enqueue_virus_scan


@v2_blueprint.post("/notifications/letter")
@documented("Send a letter from a template, or a precompiled PDF (`content` without `template_id`).",
            {201: {"anyOf": [post_letter_response, post_precompiled_letter_response]}},
            body={"anyOf": [post_letter_request, post_precompiled_letter_request]})
def post_letter() -> tuple[Response, int]:
    body, status = accept_letter(g.caller, enqueue_letter_pdf, enqueue_virus_scan)
    return jsonify(body), status
