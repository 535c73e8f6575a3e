"""The local mailbox (local_mailbox.py) for platform admins: what `dev.py run` without SMTP_URL caught
of the emails sent, the console's own among them, and (without an SMS gateway) the platform's own
texts. The pages exist only in that mode."""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, render_template

import local_mailbox
from config import get_settings
from console import security_headers
from console.auth import platform_admin_required
from core import account_settings

bp = Blueprint("mailbox", __name__)


@bp.app_context_processor
def _menu() -> dict[str, Any]:
    return {"local_mailbox_on": get_settings().local_mailbox_dir is not None}


def _directory() -> Path:
    directory = get_settings().local_mailbox_dir
    if directory is None:
        abort(404)
    return directory


def _received(mail: local_mailbox.Mail) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(mail.received_at, datetime.UTC)


@bp.get("/platform-admin/local-mailbox")
@platform_admin_required
def inbox() -> Any:
    # Without an SMS gateway the platform's texts (codes to confirm a number or sign in) reach no phone:
    # they are shown here beside the emails, so a first run has no dead end there either.
    texts = [] if account_settings.texts_reach_people() else account_settings.platform_texts()
    return render_template("mailbox/inbox.html", mails=local_mailbox.messages(_directory()), received=_received,
                           texts=texts)


@bp.get("/platform-admin/local-mailbox/<mail_id>")
@platform_admin_required
def mail(mail_id: str) -> Any:
    found = local_mailbox.message(_directory(), mail_id)
    if found is None:
        abort(404)
    if found.html is not None:
        security_headers.shows_email_preview()
    return render_template("mailbox/mail.html", mail=found, received=_received(found))
