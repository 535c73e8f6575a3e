"""The "API integration" page of a service, as GOV.UK Notify's: its last messages sent by API key
(with their status, the API's status name and the key) and the last attempts to post its callbacks
(time, answer, attempt, duration). Read models from core/api_integration.py; only presentation here."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template
from flask_babel import lazy_gettext as _l

from console.auth import current_service, service_permission_required
from console.messages import labels
from core.api_integration import latest_api_messages, latest_callback_attempts
from models.callback_attempt import CallbackAttempt
from pipeline.domain.statuses import public_status
from pipeline.stages.callbacks import DELIVERY_STATUS, INBOUND_SMS

bp = Blueprint("api_integration", __name__)

MESSAGES_SHOWN = 50
ATTEMPTS_SHOWN = 50
KIND_TITLES = {DELIVERY_STATUS: _l("Delivery receipts"), INBOUND_SMS: _l("Received text messages")}
# Why no answer came, by the kind of error only: the connection error's own text (refused, TLS, an
# address) would map the network behind us, so the console never shows it.
_NO_ANSWER = {"RefusedAddress": _l("Not sent: the URL is not allowed"),
              "ReadTimeout": _l("No answer in time"), "ConnectTimeout": _l("No answer in time"),
              "Timeout": _l("No answer in time"), "ConnectionError": _l("Could not connect")}


def answer(attempt: CallbackAttempt) -> str:
    if attempt.status_code is not None:
        return f"HTTP {attempt.status_code}"
    kind = (attempt.error or "").split(":", 1)[0]
    return str(_NO_ANSWER.get(kind, _l("No answer")))


@bp.get("/services/<service_id>/api-integration")
@service_permission_required("manage_api_keys")
def index(service_id: str) -> Any:
    service = current_service()
    attempts = latest_callback_attempts(service_id, ATTEMPTS_SHOWN)
    return render_template(
        "api_integration/index.html", service=service, messages=latest_api_messages(service_id, MESSAGES_SHOWN),
        attempts={kind: attempts[kind] for kind in KIND_TITLES}, kind_titles=KIND_TITLES, answer=answer,
        status_label=labels.status_label, public_status=public_status, channels=labels.CHANNELS,
    )
