"""The API's OpenAPI document (/openapi.json) and a reference page made from it (/docs), both public."""
from __future__ import annotations

import functools
import json
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template

from api.openapi import build_document
from config import get_settings

reference_blueprint = Blueprint("reference", __name__, template_folder="templates")


@functools.cache
def _document() -> dict[str, Any]:
    # Routes do not change while the process runs: built once, on the first request for it.
    return build_document(current_app, server_url=get_settings().base_url)


@reference_blueprint.get("/openapi.json")
def openapi_json() -> Response:
    return jsonify(_document())


@reference_blueprint.get("/docs")
def reference_page() -> str:
    return render_template("reference.html", document=_document(), pretty=_pretty)


def _pretty(schema: Any) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False)
