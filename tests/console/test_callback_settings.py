"""The callbacks settings page: an outbound address refused in Dutch, and what a service sees of a
failed attempt (that the callback failed, never why the connection did)."""
from __future__ import annotations

import dataclasses
import re
import uuid

import pytest

import config
from models.callback_attempt import CallbackAttempt
from models.crypto import encrypt
from models.service import ServiceCallback
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.test_outbound_addresses import CREDENTIALS, NOT_HTTPS, NOT_PUBLIC, NOTATIONS, TOKEN


@pytest.fixture
def no_loopback(monkeypatch):
    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(),
                                                                 callbacks_allow_http_loopback=False))


def test_the_console_form_refuses_them_in_dutch(console_app, service, no_loopback):
    member = create_console_user(service=service, permissions=["manage_service"])
    client = signed_in_client(console_app, member.user)
    page = f"/services/{service.id}/service-settings/callbacks/delivery-status"
    shown = {NOT_PUBLIC: "Vul een URL in van een server op het openbare internet",
             CREDENTIALS: "Vul een URL in zonder gebruikersnaam of wachtwoord",
             NOT_HTTPS: "Vul een URL in die met https:// begint"}
    for url, problem in NOTATIONS:
        response = client.post(page, data={"csrf_token": csrf_token(client), "url": url, "bearer_token": TOKEN})
        assert response.status_code == 200 and shown[problem] in response.get_data(as_text=True), url
    assert ServiceCallback.select().count() == 0


def test_the_callbacks_page_says_the_callback_failed_not_why_the_socket_did(console_app, service):
    url = "https://service.example.nl/cb"
    ServiceCallback.create(service=service, kind="delivery-status", url=url, bearer_token_encrypted=encrypt(TOKEN))
    for status, error in [(None, "ConnectionError: [Errno 111] Connection refused"),
                          (None, "SSLError: CERTIFICATE_VERIFY_FAILED"), (503, None), (200, None)]:
        CallbackAttempt.create(service=service, kind="delivery-status", subject_id=uuid.uuid4(), event="delivered",
                               url=url, attempt=1, status_code=status, error=error, duration_ms=3)
    member = create_console_user(service=service, permissions=["manage_service"])
    page = signed_in_client(console_app, member.user).get(
        f"/services/{service.id}/service-settings/callbacks/delivery-status").get_data(as_text=True)
    cells = [cell.strip() for cell in re.findall(r'<td [^>]*class="utrecht-table__cell">(.*?)</td>', page, re.S)]
    answers = cells[3::5]  # time, event, attempt, answer, duration
    assert sorted(answers) == ["200", "De callback is mislukt", "De callback is mislukt",
                               "De callback is mislukt: HTTP 503"]
    for leak in ("Connection refused", "CERTIFICATE_VERIFY_FAILED", "ConnectionError", "SSLError"):
        assert leak not in page
