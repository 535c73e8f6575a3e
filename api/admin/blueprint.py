"""The admin API's blueprint and what every one of its requests does first and last (its route
modules, api/admin/*.py, add their routes to it)."""
from __future__ import annotations

from flask import Blueprint, g, request

from api.auth import authenticate_admin
from config import get_settings
from models import audit, cache

admin_blueprint = Blueprint("admin", __name__, url_prefix="/admin")


@admin_blueprint.before_request
def _authenticate() -> None:
    authenticate_admin()
    # Every change this request makes is recorded as made by the admin client.
    client_id = get_settings().admin_client_id
    g.audit_token = audit.set_actor(audit.Actor("admin-api", client_id, client_id))


@admin_blueprint.teardown_request
def _forget_actor(_error: BaseException | None) -> None:
    token = g.pop("audit_token", None)
    if token is not None:
        audit.reset_actor(token)


@admin_blueprint.after_request
def _forget_cached_rows(response):  # noqa: ANN001, ANN202
    # A settings change must not wait for the hot-path cache's TTL in this process.
    if request.method != "GET":
        cache.clear()
    return response
