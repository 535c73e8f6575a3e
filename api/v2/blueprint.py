"""The v2 API's blueprint: every route authenticates with a service API key first (its route
modules, under api/v2/, add their routes to it)."""
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
