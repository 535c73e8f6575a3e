"""The rate card: prices per sms fragment and per letter, each valid from a day."""
from __future__ import annotations

import datetime
from decimal import Decimal

import peewee

from core.ids import checked_uuid
from models.db import database
from models.rate import SMS, STANDARD_RATES, Rate
from pipeline.domain.errors import BadRequestError, NoResultFound, ValidationError


def list_rates() -> list[Rate]:
    """Every price, its history included."""
    return list(Rate.select().order_by(Rate.rate_table, Rate.notification_type.desc(), Rate.postage, Rate.valid_from))


def rate_tables() -> list[str]:
    """The names of the rate tables that have prices (an organisation's rate agreement is one of
    them), the standard table first."""
    names = {row.rate_table for row in Rate.select(Rate.rate_table).distinct()}
    return sorted(names, key=lambda name: (name != STANDARD_RATES, name))


def add_rate(notification_type: str, valid_from: str, rate: float, *, postage: str | None = None,
             sheet_rate: float | None = None, rate_table: str = STANDARD_RATES) -> Rate:
    """A new price from a day (YYYY-MM-DD) on: sms, one domestic fragment; letters, the first sheet
    with its postage, and sheet_rate for each further sheet. One price per table, kind and day; a
    table other than the standard one is a rate agreement organisations can be given."""
    if notification_type == SMS and (postage is not None or sheet_rate is not None):
        raise ValidationError("postage and sheet_rate apply to letter rates only")
    day = datetime.date.fromisoformat(valid_from)
    what = f"{notification_type} ({postage})" if postage else notification_type
    if rate_table != STANDARD_RATES:
        what = f"{what} {rate_table}"
    duplicate = BadRequestError(f"A {what} rate valid from {valid_from} already exists")
    same_postage = Rate.postage.is_null() if postage is None else Rate.postage == postage
    # Looked for first: the unique index does not stop two sms rows, whose postage is null.
    if Rate.select().where((Rate.rate_table == rate_table) & (Rate.notification_type == notification_type)
                           & same_postage & (Rate.valid_from == day)).exists():
        raise duplicate
    try:
        with database.atomic():
            return Rate.create(rate_table=rate_table, notification_type=notification_type, postage=postage,
                               valid_from=day,
                               rate=Decimal(str(rate)),
                               sheet_rate=Decimal(str(sheet_rate)) if sheet_rate is not None else None)
    except peewee.IntegrityError:
        raise duplicate from None


def delete_rate(rate_id: str) -> None:
    if not Rate.delete().where(Rate.id == checked_uuid("rate_id", rate_id)).execute():
        raise NoResultFound()
