"""The settings area's blueprint (views.py, senders.py and callbacks.py add their routes to it)."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("settings", __name__)
