"""The bulk-sending area's blueprint (views.py and job_pages.py add their routes to it)."""
from __future__ import annotations

from flask import Blueprint

bp = Blueprint("jobs", __name__)
