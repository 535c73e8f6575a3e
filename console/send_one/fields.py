"""The send form of a template: a field for the recipient (or the address lines) and one per
placeholder, the API body made of them, and the API's refusals put beside the fields they concern."""
from __future__ import annotations

from typing import Any

from flask_babel import gettext as _, lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import StringField

from console.services.refusals import translated
from models.template import TemplateVersion
from pipeline.domain.errors import Refusal
from pipeline.domain.rendering.address_names import LINES, POSTCODE, SPEC_NAMES
from pipeline.domain.rendering.placeholders import normalise_key, placeholder_names

ADDRESS_FIELDS = SPEC_NAMES[:LINES]
# Keys the address is read from: they are asked for as the recipient, not as placeholders.
_ADDRESS_KEYS = {normalise_key(name) for name in SPEC_NAMES}
RECIPIENT_FIELDS = {"sms": ("phone_number",), "email": ("email_address",), "letter": ADDRESS_FIELDS}
_NOT_TO_THIS_RECIPIENT = ("trial_mode_recipient", "team_key_recipient")  # the recipient is not one it may send to


def placeholders(version: TemplateVersion) -> list[str]:
    """The placeholders asked for, in the template's spelling and order (a letter's address apart)."""
    names = placeholder_names(*version.content_texts())
    if version.template.template_type == "letter":
        return [name for name in names if normalise_key(name) not in _ADDRESS_KEYS]
    return names


def _uses_postcode(version: TemplateVersion) -> bool:
    """Whether a letter's text repeats the postcode: it is then asked for apart, as the address's last line."""
    return any(normalise_key(name) == POSTCODE for name in placeholder_names(*version.content_texts()))


def _recipient_fields(version: TemplateVersion) -> dict[str, StringField]:
    channel = version.template.template_type
    if channel == "sms":
        return {"phone_number": StringField(_l("Mobile number"))}
    if channel == "email":
        return {"email_address": StringField(_l("Email address"))}
    lines = {name: StringField(_l("Address line %(n)s", n=n)) for n, name in enumerate(ADDRESS_FIELDS, start=1)}
    return {**lines, POSTCODE: StringField(_l("Postcode"))} if _uses_postcode(version) else lines


def send_form(version: TemplateVersion, formdata: Any = None, extra: dict[str, Any] | None = None) -> FlaskForm:
    """The form for this version: its fields are the recipient's, then placeholder_0.. in order, then
    `extra` (the alternatives it may fall back to)."""
    fields: dict[str, Any] = _recipient_fields(version)
    for index, name in enumerate(placeholders(version)):
        fields[f"placeholder_{index}"] = StringField(name)
    fields.update(extra or {})
    form_class = type("SendForm", (FlaskForm,), fields)
    return form_class(formdata=formdata)


def placeholder_fields(form: FlaskForm) -> list[Any]:
    return [field for field in form if field.name.startswith("placeholder_")]


def recipient_fields(form: FlaskForm, channel: str) -> list[Any]:
    asked = RECIPIENT_FIELDS[channel] + ((POSTCODE,) if channel == "letter" and POSTCODE in form else ())
    return [form[name] for name in asked]


def api_body(form: FlaskForm, version: TemplateVersion) -> dict[str, Any]:
    """The v2 API's request body the form stands for; a blank field is a value not given."""
    channel = version.template.template_type
    values = {field.label.text: field.data for field in placeholder_fields(form) if field.data}
    body: dict[str, Any] = {"template_id": str(version.template.id)}
    if channel == "letter":
        values.update({field.name: field.data for field in recipient_fields(form, channel) if field.data})
    else:
        body[RECIPIENT_FIELDS[channel][0]] = (form[RECIPIENT_FIELDS[channel][0]].data or "").strip()
    body["personalisation"] = values
    return body


def _shown(message: str, translation: str | None = None) -> str:
    """The console's words in the page's language (the API's own only for a refusal it has no words for)."""
    return translation or translated(message)


def add_refusal(form: FlaskForm, channel: str, messages: list[str]) -> None:
    """Each of the API's refusals beside the field it concerns (by its code and values), else above the form."""
    by_key = {normalise_key(field.label.text): field for field in placeholder_fields(form)}
    for message in messages:
        code, values = (message.code, message.values) if isinstance(message, Refusal) else (None, {})
        if code == "missing_personalisation":
            missing = [by_key.get(normalise_key(name)) for name in values["names"]]
            for field in filter(None, missing):
                field.errors.append(_shown(message, _("Fill this in")))
            if None not in missing:
                continue
        elif code == "address_line_required":
            form[values["field"]].errors.append(_shown(message, _("Fill this in")))
            continue
        elif values.get("field") in RECIPIENT_FIELDS[channel] and values["field"] in form:
            form[values["field"]].errors.append(_shown(message))
            continue
        elif code == "trial_mode_recipient":
            # Beside the field and in the error summary, which links to it: what is wrong, in one line. What
            # trial mode is and the ways on are links of their own, once, below the field (_recipient.html).
            recipient_fields(form, channel)[0].errors.append(_("In trial mode this service sends only to its team "
                                                               "and its guest list"))
            form.refused_in_trial_mode = True
            continue
        elif code in _NOT_TO_THIS_RECIPIENT:
            recipient_fields(form, channel)[0].errors.append(_shown(message))
            continue
        form.form_errors.append(_shown(message))
