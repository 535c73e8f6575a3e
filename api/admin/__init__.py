"""The provisioning API used by operators and the web console."""
from __future__ import annotations

from flask import Blueprint

from api.auth import authenticate_admin

admin_blueprint = Blueprint("admin", __name__, url_prefix="/admin")


@admin_blueprint.before_request
def _authenticate() -> None:
    authenticate_admin()


# Routes register themselves on the blueprint when imported (after it exists, hence at the bottom).
from api.admin import api_keys, senders, services, templates, users  # noqa: E402,F401
