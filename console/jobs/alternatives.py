"""The alternatives a spreadsheet's texts (or emails) fall back to (issue 44): on the upload page the
user picks an email template, then a letter template, for the whole file; the file is checked for them
with the first message (pipeline/stages/jobs/alternatives.py), and the check page says which rows have
them."""
from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm

from console.found import template_or_404
from console.send_one.alternatives import offered, template_choices
from models.service import Service
from models.template import TemplateVersion

FIELDS = {"email": "fallback_email", "letter": "fallback_letter"}
_NONE = {"email": _l("No email"), "letter": _l("No letter")}


def offer(form: FlaskForm, service: Service, channel: str) -> list[str]:
    """Give the form's template choices for the alternatives offered and drop the others; returns the
    channels offered, in order."""
    shown = []
    for other, name in FIELDS.items():
        choices = template_choices(service, other) if other in offered(service, channel) else []
        if choices:
            form[name].choices = [("", str(_NONE[other])), *choices]
            shown.append(other)
        else:
            del form[name]
    return shown


def chosen(form: FlaskForm, shown: list[str]) -> list[TemplateVersion]:
    """The templates picked, in order (a template no longer there: 404, as for the first message's)."""
    return [template_or_404(form[FIELDS[other]].data, types=(other,)) for other in shown
            if form[FIELDS[other]].data]


def described(template_ids: tuple[str, ...], rows: list[list]) -> list[dict[str, Any]]:
    """Per alternative of a checked file: its channel, template name and how many rows have it."""
    made = []
    for template_id in template_ids:
        version = template_or_404(template_id)
        having = sum(1 for row in rows if len(row) > 2 and any(alt["template_id"] == template_id for alt in row[2]))
        made.append({"channel": version.template.template_type, "name": version.name, "rows": having})
    return made
