"""POST bodies are JSON whatever the Content-Type (the clients do not all set it)."""
from __future__ import annotations

import json
from typing import Any

from flask import request

from api.errors import BadRequestError


def json_body() -> Any:
    raw = request.get_data(cache=True)
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        raise BadRequestError("Invalid JSON supplied in POST data") from None
