"""What the organisations area's view modules share: who may open an organisation's pages, the
names of its kinds and roles, and running a rule as the signed-in user with the area's refusals."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import abort
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm

from console import acting
from console.auth import current_user
from console.organisations.refusals import translated
from core import organisations as orgs
from models.organisation import ADMIN, Organisation, role_in
from pipeline.domain.errors import NoResultFound, ValidationError

T = TypeVar("T")

KIND_NAMES = {"gemeente": _l("Municipality"), "provincie": _l("Province"), "waterschap": _l("Water board"),
              "rijksoverheid": _l("Central government"), "zbo": _l("Independent administrative body"),
              "other": _l("Other")}
ROLE_NAMES = {"admin": _l("Organisation admin"), "member": _l("Member")}


class ConfirmForm(FlaskForm):
    """A button alone: only the CSRF token is checked."""


def perform(operation: Callable[[], T], form: FlaskForm | None = None, confirm: object = None) -> tuple[bool, T | None]:
    return acting.perform(operation, form, translate=translated, confirm=confirm)


def visible(organisation_id: str, *, manage: bool = False, platform: bool = False) -> Organisation:
    """The organisation if the signed-in user may see it (404 otherwise); manage: an admin's only,
    platform: a platform admin's only (403 for a member who may see it but not do this)."""
    user = current_user()
    try:
        organisation = orgs.visible_organisation(user, organisation_id)
    except (NoResultFound, ValidationError):
        abort(404)
    if platform and not user.platform_admin:
        abort(403)
    if manage and not user.platform_admin and role_in(user, organisation.id) != ADMIN:
        abort(403)
    return organisation


def may_manage(organisation: Organisation) -> bool:
    user = current_user()
    return user.platform_admin or role_in(user, organisation.id) == ADMIN
