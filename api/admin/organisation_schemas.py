"""JSON Schemas of the admin API's organisation routes (requests and answers), kept as data."""
from __future__ import annotations

from typing import Any

from api.admin.response_schemas import DATETIME, NULLABLE_DATETIME, history_event, service, usage
from api.schema import uuid_property
from core.go_live import VOLUME_CHANNELS
from models.organisation import ORGANISATION_KINDS, ORGANISATION_ROLES


def _record(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": list(properties), "properties": properties, "additionalProperties": False}


_name = {"type": "string", "format": "non-blank", "maxLength": 255}
_settings = {
    "kind": {"enum": list(ORGANISATION_KINDS)},
    "language": {"enum": ["nl", "en"]},
    "time_zone": {"type": "string", "maxLength": 64},
    "rate_table": {"type": "string", "maxLength": 100},
}
create_organisation = {"type": "object", "required": ["name", "kind"],
                       "properties": {"name": _name, **_settings}, "additionalProperties": False}
update_organisation = {"type": "object", "minProperties": 1,
                       "properties": {"name": _name, **_settings}, "additionalProperties": False}
add_domain = {"type": "object", "required": ["domain"],
              "properties": {"domain": {"type": "string", "format": "non-blank", "maxLength": 253}},
              "additionalProperties": False}
add_member = {"type": "object", "required": ["email_address", "role"],
              "properties": {"email_address": {"type": "string", "format": "non-blank", "maxLength": 255},
                             "role": {"enum": list(ORGANISATION_ROLES)}},
              "additionalProperties": False}
change_member = {"type": "object", "required": ["role"], "properties": {"role": {"enum": list(ORGANISATION_ROLES)}},
                 "additionalProperties": False}
add_service = {"type": "object", "required": ["service_id"], "properties": {"service_id": uuid_property()},
               "additionalProperties": False}
add_brand = {"type": "object", "required": ["kind", "brand_id"],
             "properties": {"kind": {"enum": ["email", "letter"]}, "brand_id": uuid_property()},
             "additionalProperties": False}
request_go_live = {
    "type": "object",
    "properties": {
        "expected_volumes": {"type": "object", "additionalProperties": False, "properties": {
            channel: {"type": "integer", "minimum": 0, "maximum": 2**31 - 1} for channel in VOLUME_CHANNELS}},
        "recipients": {"type": "string", "maxLength": 2000},
    },
    "additionalProperties": False,
}

# Who the request is made for: a console user's id. The answer is then what that user may see (404
# for an organisation they are not a member of) and the change is recorded as theirs.
ON_BEHALF_OF = {"on_behalf_of": {**uuid_property(), "description": "a console user's id: answer as that user"}}
on_behalf_query = {"type": "object", "properties": ON_BEHALF_OF}
list_query = {"type": "object", "properties": {"search": {"type": "string", "maxLength": 255}, **ON_BEHALF_OF}}
usage_query = {
    "type": "object",
    "required": ["year", "month"],
    "properties": {"year": {"type": "integer", "minimum": 2000, "maximum": 9998},
                   "month": {"type": "integer", "minimum": 1, "maximum": 12}, **ON_BEHALF_OF},
}
search_query = {"type": "object", "required": ["q"], "properties": {"q": {"type": "string", "maxLength": 255}}}

organisation_path = {"organisation_id": uuid_property()}
organisation = _record({
    "id": uuid_property(),
    "name": {"type": "string"},
    **_settings,
    "time_zone": {"type": "string"},
    "rate_table": {"type": "string"},
    "domains": {"type": "array", "items": {"type": "string"}},
    "created_at": DATETIME,
    "updated_at": NULLABLE_DATETIME,
})
organisations = _record({"organisations": {"type": "array", "items": organisation}})
member = _record({"user_id": uuid_property(), "name": {"type": "string"}, "email_address": {"type": "string"},
                  "role": {"enum": list(ORGANISATION_ROLES)}, "created_at": DATETIME})
members = _record({"members": {"type": "array", "items": member}})
_brand = _record({"id": uuid_property(), "name": {"type": "string"}})
brands = _record({"email": {"type": "array", "items": _brand}, "letter": {"type": "array", "items": _brand}})
services = _record({"services": {"type": "array", "items": service}})
organisation_usage = _record({
    "organisation_id": uuid_property(),
    "month": {"type": "string", "pattern": r"^\d{4}-\d\d$"},
    "services": {"type": "array", "items": {**usage, "required": [*usage["required"], "service_name"],
                                            "properties": {**usage["properties"],
                                                           "service_name": {"type": "string"}}}},
    "total": {**usage, "properties": {**usage["properties"], "service_id": {"type": "null"}}},
})
history = _record({"events": {"type": "array", "items": history_event}})
user = _record({"id": uuid_property(), "name": {"type": "string"}, "email_address": {"type": "string"},
                "platform_admin": {"type": "boolean"}})
search_results = _record({"users": {"type": "array", "items": user},
                          "services": {"type": "array", "items": service}})
