"""The v2 API's blueprint: every route authenticates with a service API key first (its route
modules, under api/v2/, add their routes to it)."""
from __future__ import annotations

from flask import Blueprint

from api.auth import authenticate_service

v2_blueprint = Blueprint("v2", __name__, url_prefix="/v2")


@v2_blueprint.before_request
def _authenticate() -> None:
    authenticate_service()
