"""Passwords on the list of common and breached ones are refused wherever a password is set; only the
newest reset link works, and a password change closes every link still out; a session ends at its
absolute lifetime however active it is."""
from __future__ import annotations

import dataclasses
import datetime
import html
import re

import pytest

import config
from core import accounts
from core.passwords import hash_password, verify_password
from models.db import utcnow
from models.notification import Notification
from models.user import Invitation, User, UserSession
from tests.console.service_pages import csrf_token, signed_in_client

GUESSABLE = ["1234567890", "password123", "qwertyuiop", "Welkom01!!", "wachtwoord2024", "iloveyou12345"]
TOO_EASY_NL = ("Dit wachtwoord is te makkelijk te raden: het is een veelgebruikt wachtwoord of lijkt daarop. "
               "Kies een ander, bijvoorbeeld drie of vier willekeurige woorden.")
TOO_EASY_EN = ("This password is too easy to guess: it is a common password or close to one. "
               "Choose another, for example three or four random words.")
EXPIRED = "Deze link werkt niet meer"


def _text(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.get_data(as_text=True))))


def _reset_links(email: str) -> list[str]:
    """The paths of the reset links emailed to an address, oldest first."""
    sent = Notification.select().where(Notification.to == email).order_by(Notification.created_at)
    return ["/" + n.personalisation["url"].split("/", 3)[3] for n in sent]


def _reset(client, path: str, password: str):
    token = csrf_token(client, "/forgot-password")  # the session's token: a closed link shows no form
    return client.post(path, data={"csrf_token": token, "password": password, "password_confirm": password})


@pytest.mark.parametrize("password", GUESSABLE)
def test_a_reset_refuses_a_common_or_breached_password(console_client, make_user, password):
    user = make_user()
    accounts.request_password_reset(user.email_address)
    [link] = _reset_links(user.email_address)
    answer = _reset(console_client, link, password)
    assert answer.status_code == 200
    assert TOO_EASY_NL in _text(answer)
    assert verify_password(User.get_by_id(user.id).password_hash, user.password)


def test_the_refusal_is_in_english_too_and_a_good_password_is_taken(console_client, make_user):
    user = make_user()
    accounts.request_password_reset(user.email_address)
    [link] = _reset_links(user.email_address)
    console_client.get("/language/en")
    assert TOO_EASY_EN in _text(_reset(console_client, link, "1234567890"))
    assert _reset(console_client, link, "ferry lantern oboe quartz").headers["Location"] == "/sign-in"
    assert verify_password(User.get_by_id(user.id).password_hash, "ferry lantern oboe quartz")


def test_an_account_made_by_invitation_refuses_a_guessable_password_or_one_made_of_the_name(console_client):
    path = accounts.create_setup_link().split("/", 3)[3]
    token = csrf_token(console_client, f"/{path}")
    for password in ("1234567890", "Marietje Kessels 1"):
        answer = console_client.post(f"/{path}", data={
            "csrf_token": token, "name": "Marietje Kessels", "email_address": "marietje@example.gov.nl",
            "password": password, "password_confirm": password})
        assert answer.status_code == 200 and TOO_EASY_NL in _text(answer), password
    assert User.select().count() == 0 and Invitation.get().accepted_at is None


def test_a_reset_refuses_a_password_made_of_the_persons_own_address(console_client, make_user):
    user = make_user(email_address="pietjanssens@example.gov.nl")
    accounts.request_password_reset(user.email_address)
    [link] = _reset_links(user.email_address)
    assert TOO_EASY_NL in _text(_reset(console_client, link, "pietjanssens2024"))


def test_a_newer_reset_link_closes_the_older_one(console_client, make_user):
    user = make_user()
    accounts.request_password_reset(user.email_address)
    accounts.request_password_reset(user.email_address)
    older, newer = _reset_links(user.email_address)

    refused = console_client.get(older)
    assert refused.status_code == 404 and EXPIRED in _text(refused)
    assert _reset(console_client, newer, "ferry lantern oboe quartz").headers["Location"] == "/sign-in"
    refused = _reset(console_client, older, "another fine passphrase here")
    assert refused.status_code == 404 and EXPIRED in _text(refused)
    assert verify_password(User.get_by_id(user.id).password_hash, "ferry lantern oboe quartz")


def test_a_password_change_closes_every_reset_link_still_out(console_client, make_user):
    user = make_user()
    accounts.request_password_reset(user.email_address)
    [link] = _reset_links(user.email_address)
    accounts.set_password(user.user, hash_password("a changed passphrase here"))

    refused = console_client.get(link)
    assert refused.status_code == 404 and EXPIRED in _text(refused)


def _session_aged(console_app, user, *, hours: float):
    """A signed-in client whose session began `hours` ago and was active a minute ago."""
    client = signed_in_client(console_app, user.user)
    UserSession.update(created_at=utcnow() - datetime.timedelta(hours=hours),
                       last_seen_at=utcnow() - datetime.timedelta(minutes=1)).execute()
    return client


def test_an_active_session_ends_at_its_lifetime_of_12_hours(console_app, make_user):
    user = make_user()
    assert _session_aged(console_app, user, hours=11.9).get("/account").status_code == 200

    UserSession.delete().execute()
    client = _session_aged(console_app, user, hours=12.1)
    answer = client.get("/account")
    assert answer.status_code == 302
    assert answer.headers["Location"] == "/sign-in?next=/account&ended=lifetime"
    page = _text(client.get(answer.headers["Location"]))
    assert "U bent uitgelogd omdat u lang geleden bent ingelogd. Log opnieuw in." in page
    assert client.get("/account").status_code == 302  # the cookie no longer names a session


def test_the_lifetime_is_a_setting(console_app, make_user):
    user = make_user()
    before = config.get_settings()
    config._settings = dataclasses.replace(before, console_session_max_hours=1)
    try:
        assert _session_aged(console_app, user, hours=1.1).get("/account").status_code == 302
    finally:
        config._settings = before
