"""The download pages' blueprint (views.py adds their routes), with their templates."""
from __future__ import annotations

from flask import Blueprint

documents_blueprint = Blueprint("documents", __name__, template_folder="templates")
