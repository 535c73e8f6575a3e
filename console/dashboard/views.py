"""A service's dashboard (the last week's messages, jobs under way, sends to come, received texts) and
its usage page (messages, text fragments, letter sheets and cost per month of a year). The figures come
from core/dashboard.py and core/usage.py, as the admin API's usage does; only presentation here."""
from __future__ import annotations

import datetime
from typing import Any

from flask import Blueprint, abort, render_template, request
from flask_babel import format_currency, format_date, lazy_gettext as _l

from console.auth import current_service, service_permission_required
from core.dashboard import first_day, jobs_in_progress, latest_received_texts, recent_figures, upcoming
from core.usage import fell_back, monthly_usage
from models.db import utcnow

bp = Blueprint("dashboard", __name__)

CHANNEL_NAMES = {"email": _l("Emails"), "sms": _l("Text messages"), "letter": _l("Letters")}
CHANNEL_OF = {"email": _l("Email"), "sms": _l("Text message"), "letter": _l("Letter")}  # one message's
CURRENCY = "EUR"  # the rate card's amounts (models/rate.py) are the operator's prices in euros


def _money(value: float) -> str:
    return format_currency(value, CURRENCY)


def _month_name(month: str) -> str:
    """"2026-11" as the reader's language names it (november 2026, November 2026)."""
    return format_date(datetime.date.fromisoformat(f"{month}-01"), "LLLL yyyy")


@bp.get("/services/<service_id>/dashboard")
@service_permission_required("view_activity")
def index(service_id: str) -> Any:
    service, now = current_service(), utcnow()
    figures = recent_figures(service.id, now, service.time_zone)
    received = latest_received_texts(service.id) if service.has_permission("inbound_sms") else None
    since = first_day(now, service.time_zone).isoformat()  # the messages list's first day, on the same clock
    return render_template("dashboard/index.html", service=service, figures=figures, channels=CHANNEL_NAMES,
                           channel_of=CHANNEL_OF, since=since, jobs=jobs_in_progress(service.id),
                           upcoming=upcoming(service.id, now), received=received)


def _years(service_created: datetime.datetime, now: datetime.datetime) -> list[int]:
    return list(range(now.year, min(service_created.year, now.year) - 1, -1))


@bp.get("/services/<service_id>/usage")
@service_permission_required("view_activity")
def usage(service_id: str) -> Any:
    service, now = current_service(), utcnow()
    years = _years(service.created_at, now)
    chosen = request.args.get("year", str(now.year))
    if chosen not in {str(option) for option in years}:
        abort(404)
    year = int(chosen)
    last_month = now.month if year == now.year else 12
    months = [monthly_usage(service.id, year, month) for month in range(last_month, 0, -1)]
    fallbacks = {m.month: fell_back(service.id, year, int(m.month[5:])) for m in months}
    totals = {"sms": sum(m.sms.notifications for m in months),
              "email": sum(m.email.notifications for m in months),
              "letter": sum(m.letter.notifications for m in months),
              "fragments": sum(m.sms.billable_units for m in months),
              "sheets": sum(m.letter.billable_sheets for m in months),
              "cost": sum(m.total_cost_in_pounds for m in months), "fell_back": sum(fallbacks.values())}
    return render_template("dashboard/usage.html", service=service, years=years, year=year, months=months,
                           totals=totals, money=_money, month_name=_month_name, fallbacks=fallbacks,
                           unpriced=sum(m.unpriced_notifications for m in months))
