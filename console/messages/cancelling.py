"""Cancelling a letter or a scheduled message from its page, after a confirmation, through the same
function as the admin API."""
from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, url_for
from flask_babel import gettext as _
from flask_wtf import FlaskForm

from console import times
from console.acting import user_actor
from console.auth import current_service, current_user, service_permission_required
from console.messages import labels
from console.messages.blueprint import bp, find_or_404
from core.cancel import cancel_message
from models import audit
from models.db import utcnow
from pipeline.stages import cancel


class ConfirmForm(FlaskForm):
    pass


def refusal_text(refused: cancel.CancelRefused) -> str:
    """The refusal in the page's language."""
    when = {"when": times.when(refused.when)} if refused.when else {}
    texts = {
        cancel.ALREADY_CANCELLED: lambda: _("This message has already been cancelled."),
        cancel.TOO_LATE_LETTER: lambda: _("It’s too late to cancel this letter. Printing started on %(when)s.",
                                          **when),
        cancel.LETTER_NOT_PRINTABLE: lambda: _("This letter cannot be cancelled because it will not be printed."),
        cancel.NOT_SCHEDULED: lambda: _("Only a scheduled message can be cancelled. This message was sent "
                                        "straight away."),
        cancel.TOO_LATE_SCHEDULED: lambda: _("It’s too late to cancel this message. It was due to be sent on "
                                             "%(when)s.", **when) if when else
        _("It’s too late to cancel this message."),
    }
    return texts[refused.reason]()


@bp.route("/services/<service_id>/notifications/<notification_id>/cancel", methods=["GET", "POST"])
@service_permission_required("send_messages")
def cancel_notification(service_id: str, notification_id: str) -> Any:
    found = find_or_404(notification_id)
    page = url_for("messages.notification", service_id=service_id, notification_id=notification_id)
    refused = cancel.refusal(found, utcnow())
    if refused is not None:
        flash(refusal_text(refused), "error")
        return redirect(page)
    form = ConfirmForm()
    if not form.validate_on_submit():
        return render_template("messages/cancel.html", service=current_service(), notification=found, form=form,
                               channel=labels.CHANNELS[found.notification_type])
    try:
        with audit.acting_as(user_actor(current_user())):
            cancel_message(service_id, notification_id)
    except cancel.CancelRefused as lost_the_race:
        flash(refusal_text(lost_the_race), "error")
        return redirect(page)
    flash(_("Letter cancelled. It will not be printed.") if found.notification_type == "letter"
          else _("Message cancelled. It will not be sent."), "ok")
    return redirect(page)

