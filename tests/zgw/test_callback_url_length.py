"""Open Notificaties takes a callbackUrl of at most 200 characters (Abonnement.callbackUrl, maxLength 200 in
open-zaak/open-notificaties src/openapi.yaml); ours is BASE_URL + /case-events/ + the link's uuid. Too long,
it is refused where the link is saved and where it subscribes, in the admin API's error shape and in Dutch
on the console, before Open Notificaties is asked (which would answer a bare 400)."""
from __future__ import annotations

import dataclasses

import pytest

import config
from core import case_events
from models.case_event import CaseEventLink
from tests.admin_helpers import admin_headers, errors
from tests.zgw.linked import link

LONG_BASE = "https://notify.gemeente-" + "x" * 140 + ".nl"  # 167 characters: 216 with the path and uuid


@pytest.fixture
def base_url(monkeypatch):
    def set_to(url: str) -> None:
        monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(), base_url=url))
    return set_to


def _body(zgw):
    return {"zaken_root": zgw.zaken_root, "catalogi_root": zgw.catalogi_root, "klant_root": zgw.klant_root,
            "client_id": zgw.client_id, "client_secret": zgw.secret, "klant_token": zgw.klant_token,
            "nrc_root": zgw.nrc_root}


def test_a_callback_url_too_long_is_refused_where_saved_and_where_subscribed(client, zgw, service, base_url):
    path = f"/admin/services/{service.id}/case-events"
    linked = link(zgw, service, subscribe=False)  # saved while BASE_URL was short
    base_url(LONG_BASE)
    line = ("callback_url is 216 characters long, and Open Notificaties takes at most 200: BASE_URL must be "
            "shorter")
    assert errors(client.post(path + "/subscription", headers=admin_headers())) == (400, [("ValidationError", line)])
    assert errors(client.put(path, json=_body(zgw), headers=admin_headers())) == (400, [("ValidationError", line)])
    assert zgw.subscriptions() == [] and zgw.deliveries() == []  # Open Notificaties was never asked
    assert CaseEventLink.get_by_id(linked.id).subscription_state is None

    base_url("https://notify.nl/" + "x" * (case_events.MAX_CALLBACK_URL - 49 - 18))  # exactly 200 with the rest
    assert len(case_events.callback_url(linked)) == case_events.MAX_CALLBACK_URL
    assert client.put(path, json=_body(zgw), headers=admin_headers()).status_code == 200


def test_the_console_says_so_in_dutch(zgw, service, base_url):
    from console import app as console_app
    from tests.console.service_pages import csrf_token, page_text, signed_in_client
    from tests.console.users import create_console_user

    link(zgw, service, subscribe=False)
    base_url(LONG_BASE)
    member = signed_in_client(console_app, create_console_user(service=service, permissions=["manage_service"]).user)
    settings = f"/services/{service.id}/service-settings/case-events"
    member.post(settings + "/subscribe", data={"csrf_token": csrf_token(member, settings)})
    text = page_text(member.get(settings))
    assert ("Het adres waarop Open Notificaties zou posten is 216 tekens lang; Open Notificaties neemt er hoogstens "
            "200. Vraag de beheerder BASE_URL korter te maken") in text
    assert "Geweigerd" not in text and "Nog niet geabonneerd" in text
    form = settings + "/connection"
    saved = page_text(member.post(form, data={"csrf_token": csrf_token(member, form), **_body(zgw)}))
    assert "Het adres waarop Open Notificaties zou posten is 216 tekens lang" in saved
    assert zgw.subscriptions() == []
