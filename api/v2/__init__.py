"""The public v2 API (GOV.UK Notify's): a module per endpoint, each adding its route to the blueprint
(blueprint.py)."""
from __future__ import annotations

from api.v2.blueprint import v2_blueprint
from api.v2.notifications import (  # noqa: F401  (each module adds its routes to v2_blueprint)
    get_notification,
    get_notifications,
    get_pdf,
    post_email,
    post_letter,
    post_sms,
)
from api.v2.received_text import get_received_texts  # noqa: F401  (each module adds its routes to v2_blueprint)
from api.v2.template import get_template, get_templates, post_preview  # noqa: F401  (each module adds its routes to v2_blueprint)

__all__ = ["v2_blueprint"]
