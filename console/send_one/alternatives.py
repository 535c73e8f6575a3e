"""The alternatives a one-off text or email may fall back to (issue 44): an email, then a letter, each
from a template of the service, with the email address or the address lines it goes to. The form's
fields, the API body's `fallback` list made of them (exactly as the API takes it), and core's refusals
of an alternative put beside the fields of that alternative."""
from __future__ import annotations

import re
from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import SelectField, StringField

from console.services.refusals import translated
from models.service import Service
from models.template import Template, TemplateVersion
from pipeline.domain.errors import Refusal
from pipeline.domain.rendering.address_names import LINES, SPEC_NAMES

# Email before letter: the cheaper and quicker way first; never the channel the message itself takes.
ORDER = ("email", "letter")
ADDRESS_LINES = SPEC_NAMES[:LINES]
EMAIL_ADDRESS = "fallback_email_address"
_PLACE = re.compile(r"fallback\[(\d+)\]")


def template_field(channel: str) -> str:
    return f"fallback_{channel}_template"


def address_field(name: str) -> str:
    return f"fallback_{name}"


def offered(service: Service, channel: str) -> list[str]:
    """The channels a message of this channel may fall back to here: the others of ORDER the service may
    send (a letter falls back to nothing)."""
    if channel not in ("sms", "email"):
        return []
    return [other for other in ORDER if other != channel and service.has_permission(other)]


def template_choices(service: Service, channel: str) -> list[tuple[str, str]]:
    """(id, name) of the service's templates of a channel, by name."""
    versions = (TemplateVersion.select(TemplateVersion.name, Template.id).join(Template)
                .where((Template.service == service) & (Template.template_type == channel)
                       & (Template.archived == False)  # noqa: E712
                       & (TemplateVersion.version == Template.current_version))
                .order_by(TemplateVersion.name))
    return [(str(version.template.id), version.name) for version in versions]


def fields(service: Service, channel: str) -> dict[str, Any]:
    """The form fields of the alternatives offered: a template to choose (none: no such alternative) and
    where it goes."""
    made: dict[str, Any] = {}
    none = {"email": _l("No email"), "letter": _l("No letter")}
    labels = {"email": _l("Then send this email"), "letter": _l("Then send this letter")}
    for other in offered(service, channel):
        choices = template_choices(service, other)
        if not choices:
            continue
        made[template_field(other)] = SelectField(labels[other], choices=[("", none[other]), *choices], default="")
        if other == "email":
            made[EMAIL_ADDRESS] = StringField(_l("Email address"))
        else:
            made.update({address_field(name): StringField(_l("Address line %(n)s", n=n))
                         for n, name in enumerate(ADDRESS_LINES, start=1)})
    return made


def sections(form: FlaskForm) -> list[dict[str, Any]]:
    """The alternatives in the form, in order, for the templates: the template field and its recipient's."""
    shown = []
    for other in ORDER:
        if template_field(other) not in form:
            continue
        recipient = ([form[EMAIL_ADDRESS]] if other == "email"
                     else [form[address_field(name)] for name in ADDRESS_LINES])
        shown.append({"channel": other, "template": form[template_field(other)], "recipient": recipient})
    return shown


def chosen(form: FlaskForm) -> list[dict[str, Any]]:
    """The alternatives chosen (a template picked), in order."""
    return [section for section in sections(form) if section["template"].data]


def body(form: FlaskForm) -> list[dict[str, Any]]:
    """The API body's `fallback`: one object per alternative chosen, as the API takes it."""
    made = []
    for section in chosen(form):
        alternative: dict[str, Any] = {"type": section["channel"], "template_id": section["template"].data}
        if section["channel"] == "email":
            alternative["email_address"] = (section["recipient"][0].data or "").strip()
        else:
            alternative["personalisation"] = {field.name.removeprefix("fallback_"): field.data
                                              for field in section["recipient"] if field.data}
        made.append(alternative)
    return made


def add_refusal(form: FlaskForm, message: str) -> bool:
    """Put a refusal of an alternative beside that alternative's fields, found by the place core gives
    it ("fallback[n]", among its values: its words are never read); False for any other refusal."""
    values = message.values if isinstance(message, Refusal) else {}
    place = _PLACE.fullmatch(str(values.get("place", "")))
    alternatives = chosen(form)
    if place is None or int(place.group(1)) >= len(alternatives):
        return False
    section = alternatives[int(place.group(1))]
    target = section["template"]
    if values.get("field") == "email_address" and section["channel"] == "email":
        target = section["recipient"][0]
    elif str(values.get("field", "")).startswith("address_line_") and section["channel"] == "letter":
        target = form[address_field(values["field"])]
    target.errors.append(translated(message))
    return True
