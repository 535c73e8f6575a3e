"""The messages list: search by recipient or reference, filter by channel, status, date and key type."""
from __future__ import annotations

import uuid
from typing import Any

from flask import render_template, request, url_for
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import DateField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import Length, Optional, ValidationError

from console.auth import current_service, service_permission_required
from console.messages import labels
from console.messages.blueprint import bp
from models.db import is_uuid
from pipeline.infrastructure.message_details import senders, template_names
from pipeline.infrastructure.message_search import KEY_TYPE_CHOICES, LIVE_AND_TEAM, MessageSearch, search_page

PAGE_SIZE = 50
FILTERS = ("search", "channel", "status", "date_from", "date_to", "key_type")
KEY_TYPE_LABELS = {LIVE_AND_TEAM: _l("Live and team keys (not test)"), "live": _l("Live (sent for real)"),
                   "team": _l("Team and guest list"), "test": _l("Test")}


def _choices(labelled: dict[str, Any]) -> list[SelectChoice]:
    return [SelectChoice(value, label) for value, label in labelled.items()]


class SearchForm(FlaskForm):
    class Meta:
        csrf = False  # a GET form that changes nothing: its URL can be bookmarked and shared

    search = StringField(_l("Recipient or reference"), validators=[Optional(), Length(max=1000)])
    channel = SelectField(_l("Channel"), choices=_choices({"": _l("All channels"), **labels.CHANNELS}), default="")
    status = SelectField(_l("Status"), choices=_choices({"": _l("All statuses"), **labels.STATUS_FILTERS}),
                         default="")
    date_from = DateField(_l("Sent from (date)"), validators=[Optional()])
    date_to = DateField(_l("Sent until (date)"), validators=[Optional()])
    key_type = SelectField(_l("Sent with"), choices=_choices({k: KEY_TYPE_LABELS[k] for k in KEY_TYPE_CHOICES}),
                           default=LIVE_AND_TEAM)

    def validate_date_to(self, field: DateField) -> None:
        if field.data and self.date_from.data and field.data < self.date_from.data:
            raise ValidationError(_l("The end date must be on or after the start date"))


def message_search(form: SearchForm) -> MessageSearch:
    return MessageSearch(
        text=form.search.data or "", channels=(form.channel.data,) if form.channel.data else (),
        statuses=(form.status.data,) if form.status.data else (), date_from=form.date_from.data,
        date_to=form.date_to.data, key_type=form.key_type.data or LIVE_AND_TEAM)


def search_form() -> SearchForm:
    form = SearchForm(request.args)
    if not request.args.get("key_type"):
        form.key_type.data = LIVE_AND_TEAM
    return form


def filter_args() -> dict[str, str]:
    """The query string's filters, for the next page's and the report's links."""
    return {name: request.args[name] for name in FILTERS if request.args.get(name)}


@bp.get("/services/<service_id>/notifications")
@service_permission_required("view_activity")
def index(service_id: str) -> Any:
    service = current_service()
    form = search_form()
    valid = form.validate() if request.args else True
    rows: list = []
    older_than = request.args.get("older_than", "")
    if valid:
        cursor = uuid.UUID(older_than) if is_uuid(older_than) else None
        rows = search_page(service, message_search(form), cursor, limit=PAGE_SIZE)
    who = senders(rows)
    names = template_names(rows)
    shown = [(row, labels.CHANNELS[row.notification_type], labels.status_label(row.notification_type, row.status),
              who.get(str(row.id)), names.get((str(row.template_id), row.template_version))) for row in rows]
    return render_template("messages/index.html", service=service, form=form, rows=shown,
                           next_cursor=rows[-1].id if len(rows) == PAGE_SIZE else None, args=filter_args(),
                           report_url=url_for("messages.report", service_id=service_id, **filter_args()) if valid
                           else None)
