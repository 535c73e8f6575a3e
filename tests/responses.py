"""Reading the API's error responses ({"status_code", "errors": [{"error", "message"}, ...]}) in tests."""
from __future__ import annotations

from typing import Any


def errors(response: Any) -> tuple[int, list[tuple[str, str]]]:
    """(status, [(error, message), ...]) of a JSON error response whose body's status_code matches."""
    assert response.content_type == "application/json"
    body = response.get_json()
    assert body["status_code"] == response.status_code
    return response.status_code, [(e["error"], e["message"]) for e in body["errors"]]


def error(response: Any) -> tuple[int, str, str]:
    """(status, error, message) of an error response that holds exactly one error."""
    status, [(name, message)] = errors(response)
    return status, name, message
