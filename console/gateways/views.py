"""The SMS gateways, for platform admins: where each stands, and its pace (messages a second,
requests at once), changed here as through PATCH /admin/sms-gateways/<id> (core.sms_gateways)."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, url_for
from flask_babel import gettext as _, lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import IntegerField
from wtforms.validators import NumberRange, Optional

from console.acting import perform
from console.auth import current_user, platform_admin_required
from core.sms_gateways import GatewayState, change_gateway, find_gateway, list_gateways
from pipeline.domain.errors import NoResultFound, ValidationError
from pipeline.infrastructure.providers.sms import pacing

bp = Blueprint("gateways", __name__)


class PaceForm(FlaskForm):
    """Blank: the gateway type's default."""
    max_per_second = IntegerField(_l("Messages a second"), validators=[Optional(), NumberRange(
        min=1, max=pacing.MAX_PER_SECOND, message=_l("Enter a whole number from 1 to %(max)d",
                                                     max=pacing.MAX_PER_SECOND))])
    max_in_flight = IntegerField(_l("Requests at once"), validators=[Optional(), NumberRange(
        min=1, max=pacing.MAX_IN_FLIGHT, message=_l("Enter a whole number from 1 to %(max)d",
                                                    max=pacing.MAX_IN_FLIGHT))])


@bp.get("/platform-admin/sms-gateways")
@platform_admin_required
def index() -> Any:
    return render_template("gateways/index.html", gateways=list_gateways())


def _state(gateway_id: str) -> GatewayState:
    try:
        gateway = find_gateway(gateway_id)
    except (NoResultFound, ValidationError):  # a malformed id names no gateway either
        abort(404)
    return next(state for state in list_gateways() if state.gateway.id == gateway.id)


@bp.route("/platform-admin/sms-gateways/<gateway_id>/pace", methods=["GET", "POST"])
@platform_admin_required
def pace(gateway_id: str) -> Any:
    state = _state(gateway_id)
    form = PaceForm(data={"max_per_second": state.gateway.max_per_second,
                          "max_in_flight": state.gateway.max_in_flight})
    if form.validate_on_submit():
        user = current_user()
        assert user is not None  # platform_admin_required
        done, _changed = perform(lambda: change_gateway(
            gateway_id, by=f"console: {user.email_address}", max_per_second=form.max_per_second.data,
            max_in_flight=form.max_in_flight.data), form)
        if done:
            flash(_("The pace of %(name)s is changed.", name=state.gateway.name))
            return redirect(url_for("gateways.index"))
    return render_template("gateways/pace.html", state=state, form=form,
                           defaults=pacing.limits_of(state.gateway.type, None, None))
