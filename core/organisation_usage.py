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
from pipeline.domain.csv_output import csv_text
from pipeline.domain.i18n import N_, translator
from pipeline.domain.message_words import Written

CSV_COLUMNS = (N_("Service ID"), N_("Service"), N_("Emails"), N_("Text messages"), N_("Text message fragments"),
               N_("Letters"), N_("Letter sheets"), N_("Cost of text messages (euro)"), N_("Cost of letters (euro)"),
               N_("Total cost (euro)"), N_("Messages without a price"))
TOTAL = N_("Total")


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


def _row(service_id: str, name: str, usage: MonthlyUsage, language: str) -> list[object]:
    # Amounts with the decimal sign of the reader's language (a Dutch spreadsheet reads "12,35" as a number).
    def money(value: float) -> str:
        return translator(language).decimal(value, "0.00##")

    return [service_id, name, usage.email.notifications, usage.sms.notifications, usage.sms.billable_units,
            usage.letter.notifications, usage.letter.billable_sheets, money(usage.sms.cost_in_pounds),
            money(usage.letter.cost_in_pounds), money(usage.total_cost_in_pounds), usage.unpriced_notifications]


def usage_csv(usage: OrganisationUsage, written: Written) -> str:
    """The month as a CSV for the reader: a row per service, then the total, in their language."""
    assert usage.total is not None
    rows = [_row(str(one.service.id), one.service.name, one.usage, written.language) for one in usage.services]
    total = ["", written.word(TOTAL), *_row("", "", usage.total, written.language)[2:]]
    return csv_text([[written.word(name) for name in CSV_COLUMNS], *rows, total])
