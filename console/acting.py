"""How console views change things: through the same business functions as the admin API and the
CLI, as the signed-in user (so the audit trail names them), with a refusal shown on the page."""
from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import flash
from flask_wtf import FlaskForm

from console.auth import current_user
from console.services.refusals import translated
from models import audit
from models.user import User
from pipeline.domain.errors import ApiError

T = TypeVar("T")


def user_actor(user: User) -> audit.Actor:
    return audit.Actor("user", str(user.id), user.email_address)


def perform(operation: Callable[[], T], form: FlaskForm | None = None, *,
            translate: Callable[[str], str] = translated, confirm: object = None) -> tuple[bool, T | None]:
    """Run a business function as the signed-in user: (True, its result), or (False, None) with
    its refusal, in the page's language (`translate`: an area's own texts), added to the form's
    errors (or flashed, for a button without a form). `confirm` (a sentence) is flashed once it is
    done, so every change is confirmed on the page it leads to."""
    try:
        with audit.acting_as(user_actor(current_user())):
            result = operation()
        if confirm is not None:
            flash(str(confirm), "ok")
        return True, result
    except ApiError as error:
        messages = [translate(message) for message in error.messages]
        if form is not None:
            form.form_errors.extend(messages)
        else:
            for message in messages:
                flash(message, "error")
        return False, None
