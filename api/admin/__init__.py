"""The provisioning API used by operators (and, in process, by the CLI): a route module per area,
each adding its routes to the blueprint (blueprint.py)."""
from __future__ import annotations

from api.admin import (  # noqa: F401  (each module adds its routes to admin_blueprint)
    api_keys,
    appearance,
    brands,
    callbacks,
    case_events,
    go_live,
    history,
    jobs,
    notifications,
    organisations,
    rates,
    senders,
    services,
    sms_gateways,
    template_folders,
    templates,
    unsubscribe_requests,
    users,
)
from api.admin.blueprint import admin_blueprint

__all__ = ["admin_blueprint"]
