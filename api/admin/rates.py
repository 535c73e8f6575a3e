"""The rate card (prices per sms fragment and per letter, each valid from a day) and each service's
usage and cost per month.

    GET    /admin/rates                                  every price, the history included
    POST   /admin/rates                                  a new price from a day on
    DELETE /admin/rates/<rate_id>
    GET    /admin/services/<service_id>/usage?year=2026&month=11
"""
from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from flask import Response, jsonify

from api.admin import admin_schemas, response_schemas as responses
from api.admin.admin_schemas import POSTAGE
from api.admin.blueprint import admin_blueprint
from api.openapi import documented
from api.request_body import integer_argument, json_body
from api.schema import FormatProblem, format_checker, uuid_property, validate
from core.rates import add_rate, delete_rate, list_rates
from core.services import find_service
from core.usage import MonthlyUsage, monthly_usage
from models.rate import LETTER, SMS, Rate


@format_checker.checks("day", raises=FormatProblem)
def _is_day(value: object) -> bool:
    if isinstance(value, str):
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            raise FormatProblem("is not a valid date (YYYY-MM-DD)") from None
    return True


_price = {"type": "number", "minimum": 0, "maximum": 1000}
create_rate = {
    "type": "object",
    "required": ["notification_type", "valid_from", "rate"],
    "properties": {
        "notification_type": {"enum": [SMS, LETTER]},
        "postage": {"enum": POSTAGE},
        "valid_from": {"type": "string", "format": "day"},
        "rate": _price,  # sms: one domestic fragment; letters: the first sheet, postage included
        "sheet_rate": _price,  # letters: each further sheet
        # "standard", or the name of a rate agreement (organisations name the one they pay)
        "rate_table": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[a-z0-9][a-z0-9-]*$"},
    },
    "additionalProperties": False,
    "if": {"required": ["notification_type"], "properties": {"notification_type": {"const": LETTER}}},
    "then": {"required": ["postage", "sheet_rate"]},
}
rate_path = {"type": "object", "properties": {"rate_id": uuid_property()}}
rate_response = {
    "type": "object",
    "required": ["id", "rate_table", "notification_type", "postage", "valid_from", "rate", "sheet_rate"],
    "properties": {"id": uuid_property(), "rate_table": {"type": "string"},
                   "notification_type": {"enum": [SMS, LETTER]}, "postage": {"enum": [*POSTAGE, None]},
                   "valid_from": {"type": "string", "format": "date"},
                   "rate": {"type": "number"}, "sheet_rate": {"type": ["number", "null"]}},
    "additionalProperties": False,
}
rates_response = {"type": "object", "required": ["rates"],
                  "properties": {"rates": {"type": "array", "items": rate_response}}, "additionalProperties": False}
usage_query = {
    "type": "object",
    "required": ["year", "month"],
    # 9998: the month after December 9999 is past the last date Python has (it was a 500).
    "properties": {"year": {"type": "integer", "minimum": 2000, "maximum": 9998},
                   "month": {"type": "integer", "minimum": 1, "maximum": 12}},
}


def rate_json(rate: Rate) -> dict[str, Any]:
    return {"id": str(rate.id), "rate_table": rate.rate_table, "notification_type": rate.notification_type,
            "postage": rate.postage,
            "valid_from": rate.valid_from.isoformat(), "rate": float(rate.rate),
            "sheet_rate": float(rate.sheet_rate) if rate.sheet_rate is not None else None}


def usage_json(usage: MonthlyUsage) -> dict[str, Any]:
    return dataclasses.asdict(usage)


@admin_blueprint.get("/rates")
@documented("Every price on the rate card, its history included.", {200: rates_response})
def get_rates() -> Response:
    return jsonify({"rates": [rate_json(rate) for rate in list_rates()]})


@admin_blueprint.post("/rates")
@documented("A new price, valid from a day on.", {201: rate_response}, body=create_rate)
def post_rate() -> tuple[Response, int]:
    return jsonify(rate_json(add_rate(**validate(create_rate, json_body())))), 201


@admin_blueprint.delete("/rates/<rate_id>")
@documented("Remove a price.", {204: None}, path=rate_path["properties"])
def remove_rate(rate_id: str) -> tuple[str, int]:
    delete_rate(rate_id)
    return "", 204


@admin_blueprint.get("/services/<service_id>/usage")
@documented("What the service sent with live keys in a month, and its cost.", {200: responses.usage},
            query=usage_query, path={"service_id": admin_schemas.service_path["properties"]["service_id"]})
def get_usage(service_id: str) -> Response:
    year, month = integer_argument("year"), integer_argument("month")
    service = find_service(service_id)
    validate(usage_query, {key: value for key, value in (("year", year), ("month", month)) if value is not None})
    return jsonify(usage_json(monthly_usage(service.id, year, month)))
