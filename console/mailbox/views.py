"""The local mailbox (local_mailbox.py): what `dev.py run` without SMTP_URL caught of the emails sent,
the console's own among them, and (without an SMS gateway) the platform's own texts. A platform admin
sees all of it; anyone else, signed in or still signing in, only the codes this browser had texted
(without a gateway the console is the only place such a text arrives). The pages exist only in that mode."""
from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, redirect, render_template, request, session, url_for

import local_mailbox
from config import get_settings
from console import auth, security_headers
from console.accounts.second_factor import TEXTED_CODES
from console.auth import platform_admin_required
from console.redirect_target import is_same_site
from core import account_settings

bp = Blueprint("mailbox", __name__)


def texts_in_local_mailbox() -> bool:
    """Whether a text the console sends arrives in the local mailbox rather than on a phone."""
    return get_settings().local_mailbox_dir is not None and not account_settings.texts_reach_people()


@bp.app_context_processor
def _menu() -> dict[str, Any]:
    return {"local_mailbox_on": get_settings().local_mailbox_dir is not None,
            "texts_in_local_mailbox": texts_in_local_mailbox}


def _directory() -> Path:
    directory = get_settings().local_mailbox_dir
    if directory is None:
        abort(404)
    return directory


def _received(mail: local_mailbox.Mail) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(mail.received_at, datetime.UTC)


@bp.get("/platform-admin/local-mailbox")
def inbox() -> Any:
    directory = _directory()
    user = auth.current_user()
    # The page that sent the reader here (where the code is entered), to go back to.
    back = request.args.get("next") if is_same_site(request.args.get("next")) else None
    if user is not None and user.platform_admin:
        # Without an SMS gateway the platform's texts (codes to confirm a number or sign in) reach no phone:
        # they are shown here beside the emails, so a first run has no dead end there either.
        texts = [] if account_settings.texts_reach_people() else account_settings.platform_texts()
        return render_template("mailbox/inbox.html", mails=local_mailbox.messages(directory), received=_received,
                               texts=texts, back=back, everything=True)
    own = account_settings.platform_texts_among(session.get(TEXTED_CODES, [])) if texts_in_local_mailbox() else []
    if not own:
        if user is None:
            return redirect(url_for("accounts.sign_in", next=request.path))
        abort(403)
    return render_template("mailbox/inbox.html", mails=[], received=_received, texts=own, back=back,
                           everything=False)


@bp.get("/platform-admin/local-mailbox/<mail_id>")
@platform_admin_required
def mail(mail_id: str) -> Any:
    found = local_mailbox.message(_directory(), mail_id)
    if found is None:
        abort(404)
    if found.html is not None:
        security_headers.shows_email_preview()
    return render_template("mailbox/mail.html", mail=found, received=_received(found))
