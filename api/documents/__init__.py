"""The public download page for files sent by email: no API key, the link itself is the credential
(views.py adds its routes to the blueprint, blueprint.py)."""
from __future__ import annotations

from api.documents import views  # noqa: F401  (its routes join documents_blueprint)
from api.documents.blueprint import documents_blueprint

__all__ = ["documents_blueprint"]
