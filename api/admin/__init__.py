"""The provisioning API used by operators and the web console."""
from __future__ import annotations

from flask import Blueprint, request

from api.auth import authenticate_admin
from models import cache

admin_blueprint = Blueprint("admin", __name__, url_prefix="/admin")


@admin_blueprint.before_request
def _authenticate() -> None:
    authenticate_admin()


# Routes register themselves on the blueprint when imported (after it exists, hence at the bottom).
from api.admin import api_keys, senders, services, templates, users  # noqa: E402,F401
from api.admin import callbacks  # noqa: E402,F401
from api.admin import rates, sms_gateways, unsubscribe_requests  # noqa: E402,F401


@admin_blueprint.after_request
def _forget_cached_rows(response):  # noqa: ANN001, ANN202
    # A settings change must not wait for the hot-path cache's TTL in this process.
    if request.method != "GET":
        cache.clear()
    return response
