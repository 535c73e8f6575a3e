"""What an organisation's services sent in a month and what it cost, per service and in total.

Each service's figures are its own monthly usage (core/usage.py: the one daily store, priced from the
organisation's rate agreement); the total is their sum, so the two never disagree.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from core.organisations import find_organisation, services_in
from core.usage import MonthlyUsage, monthly_usage
from models.organisation import Organisation
from models.service import Service

CSV_HEADER = ["service_id", "service_name", "emails", "text_messages", "text_message_fragments", "letters",
              "letter_sheets", "text_message_cost", "letter_cost", "total_cost", "unpriced_messages"]


@dataclass
class ServiceUsage:
    service: Service
    usage: MonthlyUsage


@dataclass
class OrganisationUsage:
    organisation: Organisation
    month: str  # 2026-11
    services: list[ServiceUsage] = field(default_factory=list)
    total: MonthlyUsage | None = None


def _add(total: MonthlyUsage, one: MonthlyUsage) -> None:
    total.email.notifications += one.email.notifications
    total.sms.notifications += one.sms.notifications
    total.sms.billable_units += one.sms.billable_units
    total.sms.cost_in_pounds = round(total.sms.cost_in_pounds + one.sms.cost_in_pounds, 4)
    total.letter.notifications += one.letter.notifications
    total.letter.billable_sheets += one.letter.billable_sheets
    total.letter.cost_in_pounds = round(total.letter.cost_in_pounds + one.letter.cost_in_pounds, 4)
    total.total_cost_in_pounds = round(total.total_cost_in_pounds + one.total_cost_in_pounds, 4)
    total.unpriced_notifications += one.unpriced_notifications


def organisation_usage(organisation_id: str, year: int, month: int) -> OrganisationUsage:
    organisation = find_organisation(organisation_id)
    result = OrganisationUsage(organisation, f"{year:04d}-{month:02d}")
    total = MonthlyUsage(service_id="", month=result.month)
    for service in services_in(organisation):
        one = monthly_usage(service.id, year, month)
        result.services.append(ServiceUsage(service, one))
        _add(total, one)
    result.total = total
    return result


def _row(service_id: str, name: str, usage: MonthlyUsage) -> list[object]:
    return [service_id, name, usage.email.notifications, usage.sms.notifications, usage.sms.billable_units,
            usage.letter.notifications, usage.letter.billable_sheets, usage.sms.cost_in_pounds,
            usage.letter.cost_in_pounds, usage.total_cost_in_pounds, usage.unpriced_notifications]


def usage_rows(usage: OrganisationUsage, total_label: str = "Total") -> list[list[object]]:
    """The CSV's rows after its header: one per service, then the total."""
    rows = [_row(str(one.service.id), one.service.name, one.usage) for one in usage.services]
    assert usage.total is not None
    return [*rows, ["", total_label, *_row("", "", usage.total)[2:]]]
