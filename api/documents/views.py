"""The download page: /d/<service id>/<file id>?key=<key>.

GET shows the file's name, size and the service's contact details. When the sender asked for it, a
form asks for the recipient's email address; a matching POST answers the page again with a download
link that carries a signed token valid for DOWNLOAD_TOKEN_SECONDS, so the file itself is only ever
served by a plain GET (browsers save it; nothing needs JavaScript). Every failure is an HTML page.
"""
from __future__ import annotations

import logging
import re
from io import BytesIO

from flask import Response, render_template, request, send_file, url_for
from itsdangerous import BadData, URLSafeTimedSerializer
from werkzeug.exceptions import HTTPException

from api.documents.blueprint import documents_blueprint as bp
from config import get_settings
from models.appearance import language_of
from pipeline.domain.i18n import N_, Translator, translator
from pipeline.infrastructure import redis_state
from pipeline.stages.documents import access
from pipeline.stages.documents.access import Found

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 10  # email address attempts per file per window
ATTEMPT_WINDOW_SECONDS = 3600
DOWNLOAD_TOKEN_SECONDS = 30 * 60

ENTER_ADDRESS = N_("Enter your email address")
WRONG_ADDRESS = N_("This is not the email address the file was sent to")
TOO_MANY_ATTEMPTS = N_("Too many attempts to confirm your email address. Try again in an hour.")
TOKEN_EXPIRED = N_("Your download link has expired. Enter your email address again.")
_CONTROL_OR_PATH = re.compile(r'[\x00-\x1f\x7f/\\"]')
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}$")


@bp.get("/d/<service_id>/<file_id>")
def file_page(service_id: str, file_id: str) -> Response:
    found = access.find(service_id, file_id, request.args.get("key"))
    if found.document is None or found.expired:
        return _unavailable(found)
    if found.document.confirm_email:
        return _page(found)
    return _page(found, download=_download_url(found))


@bp.post("/d/<service_id>/<file_id>")
def confirm_address(service_id: str, file_id: str) -> Response:
    found = access.find(service_id, file_id, request.args.get("key"))
    if found.document is None or found.expired:
        return _unavailable(found)
    if not found.document.confirm_email:
        return _page(found, download=_download_url(found))
    if _too_many_attempts(found):
        return _page(found, error=TOO_MANY_ATTEMPTS, status=429)
    typed = request.form.get("email_address", "").strip()
    if not typed:
        return _page(found, error=ENTER_ADDRESS, status=400)
    if not access.recipient_matches(found, typed):
        return _page(found, error=WRONG_ADDRESS, typed=typed, status=400)
    token = _tokens().dumps(str(found.document.id))
    return _page(found, download=_download_url(found, token))


@bp.get("/d/<service_id>/<file_id>/download")
def download(service_id: str, file_id: str) -> Response:
    found = access.find(service_id, file_id, request.args.get("key"))
    if found.document is None or found.expired:
        return _unavailable(found)
    document = found.document
    if document.confirm_email and not _token_valid(request.args.get("token"), str(document.id)):
        return _page(found, error=TOKEN_EXPIRED, status=403)
    data = access.read(found)
    if data is None:  # removed by the cleanup job a moment ago, or damaged
        return _unavailable(Found(document, found.key, expired=True))
    response = send_file(BytesIO(data), mimetype=document.mimetype, as_attachment=True,
                         download_name=_CONTROL_OR_PATH.sub("_", document.filename), max_age=0)
    response.headers["Content-Length"] = str(len(data))
    return response


@bp.after_request
def _headers(response: Response) -> Response:
    # The key is in the URL: no caching, and no Referer carrying it to the service's contact link.
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    response.headers["Content-Security-Policy"] = (
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    )
    return response


@bp.errorhandler(HTTPException)
def _http_error(exc: HTTPException) -> Response:
    return _html("documents/unavailable.html", exc.code or 500, _url_language(), state="not_found")


@bp.errorhandler(Exception)
def _unexpected(exc: Exception) -> Response:
    log.exception("download page failed")
    return _html("documents/unavailable.html", 500, translator(None), state="error")


def _url_language() -> Translator:
    """The language of the service named in the link, even when the file is unknown or gone."""
    service_id = (request.view_args or {}).get("service_id", "")
    return translator(language_of(service_id) if _UUID.match(service_id) else None)


def _unavailable(found: Found) -> Response:
    if found.document is None:
        return _html("documents/unavailable.html", 404, _url_language(), state="not_found")
    service = found.document.service
    return _html("documents/unavailable.html", 410, translator(language_of(service.id)), state="expired",
                 service_name=service.name, contact=_contact(service.file_download_contact))


def _page(found: Found, *, download: str | None = None, error: str | None = None, typed: str = "",
          status: int = 200) -> Response:
    document = found.document
    service = document.service
    key_text = request.args.get("key", "")
    words = translator(language_of(service.id))
    return _html(
        "documents/file.html", status, words, document=document, service_name=service.name,
        contact=_contact(service.file_download_contact), size=words.file_size(document.size),
        kind=document.filename.rsplit(".", 1)[-1].upper(), expires=words.date(document.expires_at),
        download=download, error=words.gettext(error) if error else None, typed=typed,
        action=url_for("documents.confirm_address", service_id=document.service_id, file_id=document.id, key=key_text),
    )


def _html(template: str, status: int, words: Translator, **context: object) -> Response:
    return Response(render_template(template, **words.jinja_context(), **context), status=status,
                    mimetype="text/html")


def _download_url(found: Found, token: str | None = None) -> str:
    document = found.document
    params = {"key": request.args.get("key", "")} | ({"token": token} if token else {})
    return url_for("documents.download", service_id=document.service_id, file_id=document.id, **params)


def _tokens() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(get_settings().secret_key, salt="file-download")


def _token_valid(token: str | None, file_id: str) -> bool:
    if not token:
        return False
    try:
        return _tokens().loads(token, max_age=DOWNLOAD_TOKEN_SECONDS) == file_id
    except BadData:
        return False


def _too_many_attempts(found: Found) -> bool:
    """Fixed one-hour windows per file in Redis, shared by every web process."""
    key = f"{get_settings().queue_namespace}:file-attempts:{found.document.id}"
    pipe = redis_state.client().pipeline(transaction=False)
    pipe.set(key, 0, ex=ATTEMPT_WINDOW_SECONDS, nx=True)
    pipe.incr(key)
    return pipe.execute()[1] > MAX_ATTEMPTS


def _contact(value: str | None) -> dict[str, str]:
    text = (value or "").strip()
    if re.match(r"^https?://\S+$", text, re.IGNORECASE):
        return {"text": text, "href": text}
    if re.match(r"^[^@\s]+@[^@\s]+$", text):
        return {"text": text, "href": f"mailto:{text}"}
    return {"text": text, "href": ""}  # a phone number or other text: shown as written
