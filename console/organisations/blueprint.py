"""The organisations area's blueprint (views.py and settings_views.py add their routes to it)."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("organisations", __name__)
