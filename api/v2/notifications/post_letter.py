"""POST /v2/notifications/letter: a letter from a template, or a precompiled PDF (`content`)."""
from __future__ import annotations

from flask import Response, g, jsonify

from api.v2 import v2_blueprint
from api.v2.notifications.letter_sending import accept_letter
from workers.letters import enqueue_letter_pdf, enqueue_virus_scan


@v2_blueprint.post("/notifications/letter")
def post_letter() -> tuple[Response, int]:
    body, status = accept_letter(g.caller, enqueue_letter_pdf, enqueue_virus_scan)
    return jsonify(body), status
