"""The landing pages: the list of my services, and trial mode explained (open to anyone)."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, redirect, render_template, url_for
from werkzeug.exceptions import HTTPException

from console import auth
from models.platform import PLATFORM_SERVICE_ID
from models.user import services_of

bp = Blueprint("main", __name__)


@bp.get("/")
def index() -> Any:
    if auth.current_user() is None:
        return redirect(url_for("accounts.sign_in"))
    return redirect(url_for("main.services"))


@bp.get("/services")
@auth.login_required
def services() -> Any:
    mine = services_of(auth.current_user())
    return render_template("main/services.html", services=[(s, _service_page(s.id)) for s in mine],
                           platform_service_id=PLATFORM_SERVICE_ID)


def _service_page(service_id: object) -> str | None:
    """A service's own page, once an area serves `/services/<id>`: the list links to it then."""
    path = f"/services/{service_id}"
    try:
        current_app.url_map.bind("localhost").match(path, method="GET")
    except HTTPException:
        return None
    return path


@bp.get("/favicon.ico")
def favicon() -> Any:
    """Browsers ask for /favicon.ico whatever the page links: the console's icon, not a 404."""
    return redirect(url_for("static", filename="favicon.svg"), 301)


@bp.get("/trial-mode")
def trial_mode() -> Any:
    return render_template("main/trial_mode.html")
