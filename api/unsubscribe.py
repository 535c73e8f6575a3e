"""The recipient's side of hosted one-click unsubscribe (RFC 8058): no authentication, the signed link
is the credential.

    POST /unsubscribe/<notification id>/<token>   body "List-Unsubscribe=One-Click" (what mail
                                                  clients send; any body is taken the same way)
    GET  the same link                            a page with a button that POSTs, for a person who
                                                  opened the link: a GET never unsubscribes, since
                                                  link scanners fetch every URL in a mail
"""
from __future__ import annotations

from flask import Blueprint, Response
from markupsafe import escape

from api.errors import NoResultFound
from models.appearance import language_of
from models.db import is_uuid
from models.notification import Notification
from pipeline.domain.i18n import Translator, translator
from pipeline.stages.unsubscribe import record_request, token_matches

unsubscribe_blueprint = Blueprint("unsubscribe", __name__, url_prefix="/unsubscribe")

_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title></head>
<body><main><h1>{title}</h1>{body}</main></body></html>
"""


def _notification(notification_id: str, token: str) -> Notification:
    # One answer for a bad token and an unknown or purged email, so a guess learns nothing.
    if not is_uuid(notification_id) or not token_matches(notification_id, token):
        raise NoResultFound()
    notification = Notification.get_or_none((Notification.id == notification_id)
                                            & (Notification.notification_type == "email"))
    if notification is None:
        raise NoResultFound()
    return notification


def _page(words: Translator, title: str, body: str) -> Response:
    return Response(_PAGE.format(lang=words.language, title=escape(title), body=body), mimetype="text/html")


def _words(notification: Notification) -> Translator:
    return translator(language_of(notification.service_id))  # the service's language (Dutch by default)


@unsubscribe_blueprint.get("/<notification_id>/<token>")
def confirm(notification_id: str, token: str) -> Response:
    notification = _notification(notification_id, token)
    words = _words(notification)
    question = words.markup("Stop receiving these emails from %(service)s?", service=notification.service.name)
    return _page(words, words.gettext("Unsubscribe"), f"<p>{question}</p>"
                 '<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">'
                 f'<button type="submit">{words.markup("Unsubscribe")}</button></form>')


@unsubscribe_blueprint.post("/<notification_id>/<token>")
def unsubscribe(notification_id: str, token: str) -> Response:
    notification = _notification(notification_id, token)
    record_request(notification)  # a repeat is recorded once and answered the same
    words = _words(notification)
    done = words.markup("Your request to stop receiving these emails has been passed to %(service)s.",
                        service=notification.service.name)
    return _page(words, words.gettext("Unsubscribed"), f"<p>{done}</p>")
