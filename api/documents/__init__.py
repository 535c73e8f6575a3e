"""The public download page for files sent by email: no API key, the link itself is the credential."""
from __future__ import annotations

from flask import Blueprint

documents_blueprint = Blueprint("documents", __name__, template_folder="templates")

# Routes register themselves on the blueprint when imported (after it exists, hence at the bottom).
from api.documents import views  # noqa: E402,F401
