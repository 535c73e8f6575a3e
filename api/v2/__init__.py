"""The public v2 API: every route authenticates with a service API key first."""
from __future__ import annotations

from flask import Blueprint, g

from api.auth import authenticate_service

v2_blueprint = Blueprint("v2", __name__, url_prefix="/v2")


@v2_blueprint.before_request
def _authenticate() -> None:
    authenticate_service()


@v2_blueprint.teardown_request
def _give_back(exc: BaseException | None) -> None:
    """A daily count authentication made ahead that no send took (the request failed, or replayed
    an earlier answer) is given back."""
    caller = g.get("caller")
    if caller is not None and caller.counted_ahead is not None:
        caller.counted_ahead.give_back()


from api.v2.notifications import (  # noqa: E402,F401
    get_notification,
    get_notifications,
    get_pdf,
    post_email,
    post_letter,
    post_sms,
)
from api.v2.received_text import get_received_texts  # noqa: E402,F401
from api.v2.template import get_template, get_templates, post_preview  # noqa: E402,F401
