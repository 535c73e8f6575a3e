"""The API's OpenAPI document (/openapi.json), a reference page made from it in Dutch and English (/docs,
/docs/nl, /docs/en), and the API's root (/), which points to them; all public.

The document is English, as the spec's texts are; the page shows its summaries and descriptions in the
reader's language from pipeline/domain/translations (the summaries are extracted with `pybabel -k documented`).
"""
from __future__ import annotations

import functools
import json
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, redirect, render_template, request, url_for

from api.openapi import build_document
from config import get_settings
from pipeline.domain.i18n import DUTCH, LANGUAGES, translator

reference_blueprint = Blueprint("reference", __name__, template_folder="templates")
LANGUAGE_NAMES = {DUTCH: "Nederlands", "en": "English"}


@functools.cache
def _document() -> dict[str, Any]:
    # Routes do not change while the process runs: built once, on the first request for it.
    return build_document(current_app, server_url=get_settings().base_url)


def _asked_language() -> str:
    """The reader's language from Accept-Language (by quality, "nl-BE" as "nl"); Dutch when they name neither."""
    for value, _quality in request.accept_languages:
        if (primary := value.split("-")[0].lower()) in LANGUAGES:
            return primary
    return DUTCH


@reference_blueprint.get("/openapi.json")
def openapi_json() -> Response:
    return jsonify(_document())


@reference_blueprint.get("/docs")
def reference_page() -> str:
    return _page(_asked_language())


@reference_blueprint.get("/docs/<language>")
def reference_page_in(language: str) -> str:
    if language not in LANGUAGES:
        abort(404)
    return _page(language)


def _page(language: str) -> str:
    words = translator(language)
    return render_template("reference.html", document=_document(), pretty=_pretty, say=words.gettext,
                           languages=LANGUAGE_NAMES, **words.jinja_context())


@reference_blueprint.get("/")
def root() -> Any:
    """Where the API is described: a browser is sent to the reference page in its language, any other
    client is answered in JSON with the addresses of the page and the document."""
    base = get_settings().base_url
    if request.accept_mimetypes.best_match(["application/json", "text/html"]) == "text/html":
        return redirect(url_for("reference.reference_page_in", language=_asked_language()))
    return jsonify({
        "name": _document()["info"]["title"],
        "documentation": {language: f"{base}/docs/{language}" for language in LANGUAGES},
        "openapi": f"{base}/openapi.json",
    })


def _pretty(schema: Any) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False)
