"""JSON Schemas of the branding and appearance routes (api/admin/brands.py, api/admin/appearance.py)."""
from __future__ import annotations

from api.schema import FormatProblem, format_checker, uuid_property
from core.brands import COLOUR_PROBLEM, is_colour
from models.appearance import EMAIL_BRAND_TYPES
from pipeline.domain.i18n import LANGUAGES

# Base64 of the 1 MB upload limit (pipeline.domain.branding.logos), plus room for line breaks.
_MAX_LOGO_BASE64 = 1_450_000
_name = {"type": "string", "format": "non-blank", "maxLength": 255}
_logo = {"type": "string", "minLength": 1, "maxLength": _MAX_LOGO_BASE64}
_colour = {"type": ["string", "null"], "format": "hex-colour"}


@format_checker.checks("hex-colour", raises=FormatProblem)
def _is_hex_colour(value: object) -> bool:
    if isinstance(value, str) and not is_colour(value):
        raise FormatProblem(COLOUR_PROBLEM)
    return True


_nullable_uuid = {"type": ["string", "null"], "format": "uuid"}

create_email_brand = {
    "type": "object",
    "required": ["name"],
    "properties": {"name": _name, "colour": _colour, "brand_type": {"enum": list(EMAIL_BRAND_TYPES)},
                   "logo": {"type": ["string", "null"], "maxLength": _MAX_LOGO_BASE64}},
    "additionalProperties": False,
}

update_email_brand = {**create_email_brand, "required": []}

create_letter_brand = {
    "type": "object",
    "required": ["name", "logo"],
    "properties": {"name": _name, "logo": _logo},
    "additionalProperties": False,
}

update_letter_brand = {**create_letter_brand, "required": []}

brand_path = {"type": "object", "properties": {"brand_id": uuid_property()}}

update_appearance = {
    "type": "object",
    "properties": {"language": {"enum": list(LANGUAGES)}, "email_brand_id": _nullable_uuid,
                   "letter_brand_id": _nullable_uuid},
    "additionalProperties": False,
}

preview_query = {"type": "object", "properties": {"language": {"enum": list(LANGUAGES)}}}

template_preview = {
    "type": "object",
    "properties": {"personalisation": {"type": ["object", "null"]}},
    "additionalProperties": False,
}

_logo_json = {"type": ["object", "null"], "required": ["url", "width", "height"],
              "properties": {"url": {"type": "string"}, "width": {"type": "integer"}, "height": {"type": "integer"}}}

email_brand_response = {
    "type": "object",
    "required": ["id", "name", "colour", "brand_type", "logo", "services", "created_at", "updated_at"],
    "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "colour": {"type": ["string", "null"]},
                   "brand_type": {"enum": list(EMAIL_BRAND_TYPES)}, "logo": _logo_json,
                   "services": {"type": "array", "items": {"type": "string"}}},
}

letter_brand_response = {
    "type": "object",
    "required": ["id", "name", "logo", "services", "created_at", "updated_at"],
    "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "logo": _logo_json,
                   "services": {"type": "array", "items": {"type": "string"}}},
}

appearance_response = {
    "type": "object",
    "required": ["language", "email_brand_id", "letter_brand_id"],
    "properties": {"language": {"enum": list(LANGUAGES)}, "email_brand_id": {"type": ["string", "null"]},
                   "letter_brand_id": {"type": ["string", "null"]}},
    "additionalProperties": False,
}

email_brands_response = {"type": "object", "required": ["email_brands"],
                         "properties": {"email_brands": {"type": "array", "items": email_brand_response}}}
letter_brands_response = {"type": "object", "required": ["letter_brands"],
                          "properties": {"letter_brands": {"type": "array", "items": letter_brand_response}}}
HTML = {"type": "string", "contentMediaType": "text/html"}
PDF = {"type": "string", "contentMediaType": "application/pdf"}
PNG = {"type": "string", "contentMediaType": "image/png"}
