"""Requests gunicorn refuses before the app sees them answer in the API's JSON error shape too,
served as the Procfile serves the app (gunicorn with gunicorn.conf.py)."""
from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest
import requests

from tests.conftest import gunicorn_server


@pytest.fixture(scope="module")
def server():
    with gunicorn_server("--workers", "1") as url:
        yield url


def _json_error(response: requests.Response) -> tuple[int, str, str]:
    assert response.headers["Content-Type"] == "application/json"
    body = response.json()
    assert body["status_code"] == response.status_code
    [entry] = body["errors"]
    return response.status_code, entry["error"], entry["message"]


def test_a_request_line_over_the_limit(server):
    response = requests.get(f"{server}/v2/notifications", params={"reference": "x" * 5000}, timeout=10)
    status, name, message = _json_error(response)
    assert (status, name) == (414, "RequestURITooLarge")
    assert message.startswith("Request Line is too large (")


def test_a_header_over_the_size_limit(server):
    response = requests.get(f"{server}/v2/templates", headers={"X-Big": "y" * 9000}, timeout=10)
    assert _json_error(response) == (
        431, "RequestHeaderFieldsTooLarge", "Error parsing headers: 'limit request headers fields size'")


def test_too_many_headers(server):
    response = requests.get(f"{server}/v2/templates", headers={f"X-H{n}": "1" for n in range(120)}, timeout=10)
    assert _json_error(response) == (431, "RequestHeaderFieldsTooLarge",
                                     "Error parsing headers: 'limit request headers fields'")


def test_a_malformed_request_line(server):
    parts = urlsplit(server)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as conn:
        conn.sendall(b"GET /_status HTTP/1.1 extra\r\nHost: x\r\n\r\n")
        raw = b""
        while chunk := conn.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert b"Content-Type: application/json" in head
    parsed = json.loads(body)
    assert parsed["status_code"] == 400
    [entry] = parsed["errors"]
    assert entry["error"] == "BadRequestError"
    assert entry["message"].startswith("Invalid ")


def test_the_app_still_answers_normally(server):
    assert requests.get(f"{server}/_status", timeout=10).status_code == 200
