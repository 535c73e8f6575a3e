"""The accounts area's blueprint: signing in, the second factor, invitations, set-up and reset links
(views.py, links_views.py, setup_views.py add their routes to it)."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("accounts", __name__)
