"""The case-events area's blueprint (views.py and activity.py add their routes to it)."""
from __future__ import annotations

from flask import Blueprint

from core.case_events import link_of
from models import cache

bp = Blueprint("case_events", __name__)


@bp.app_context_processor
def _linked() -> dict[str, object]:
    """Whether a service is linked, for its menu's Activity area (cached as settings are)."""
    def linked(service_id: object) -> bool:
        return cache.cached(("case-event-linked", str(service_id)), lambda: link_of(service_id) is not None)
    return {"case_events_linked": linked}
