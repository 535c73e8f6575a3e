"""The public v2 API: every route authenticates with a service API key first."""
from __future__ import annotations

from flask import Blueprint

from api.auth import authenticate_service, give_back_unused_count

v2_blueprint = Blueprint("v2", __name__, url_prefix="/v2")


@v2_blueprint.before_request
def _authenticate() -> None:
    authenticate_service()


@v2_blueprint.teardown_request
def _give_back(exc: BaseException | None) -> None:
    give_back_unused_count()


from api.v2.template import get_template, get_templates, post_preview  # noqa: E402,F401
from api.v2.notifications import get_notification, get_notifications  # noqa: E402,F401
from api.v2.received_text import get_received_texts  # noqa: E402,F401
from api.v2.notifications import post_email, post_sms  # noqa: E402,F401
from api.v2.notifications import get_pdf, post_letter  # noqa: E402,F401
