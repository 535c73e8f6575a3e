"""A request of the admin API made for a console user (`?on_behalf_of=<user id>`): answered as that user
may see it and recorded as made by them (docs/decisions/services-and-organisations.md, "How does the admin API
act on behalf of a console user?"). The organisation routes and the go-live decisions use it."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from flask import request

from core.ids import checked_uuid
from models import audit
from models.user import User
from pipeline.domain.errors import ValidationError


def caller() -> User | None:
    """The console user named by on_behalf_of; None when the admin client acts for itself."""
    raw = request.args.get("on_behalf_of")
    if raw is None:
        return None
    user = User.get_or_none(User.id == checked_uuid("on_behalf_of", raw))
    if user is None:
        raise ValidationError("on_behalf_of is not a console user")
    return user


@contextlib.contextmanager
def acting() -> Iterator[User | None]:
    """The caller named by on_behalf_of acts (and is recorded); otherwise the admin client."""
    user = caller()
    if user is None:
        yield None
        return
    with audit.acting_as(audit.Actor("user", str(user.id), user.email_address)):
        yield user
