"""In a real browser: the case-event outcomes a refused fallback, an address refused, a certificate not
trusted and a callback URL too long for Open Notificaties leave, in Dutch, each refusal's link a link.
axe-core at 0 violations; PNGs at 1280 and 375 pixels wide (/tmp/case-events-outcomes-*.png) to look at.
The events are kept as the stage keeps them (tests/zgw covers how they come to be)."""
from __future__ import annotations

import dataclasses
import uuid

import config
from models.case_event import CaseEvent, CaseEventLink
from pipeline.domain import case_events as domain
from pipeline.domain.errors import Refusal, kept
from pipeline.stages.send_checks import trial_letters_message
from tests.console.browser import assert_accessible
from tests.factories import create_notification, create_sample_template

WIDTHS = {"wide": 1280, "narrow": 375}
ROOT = "https://open-zaak.gemeente.nl/zaken/api/v1/"


def _checked(page, name: str) -> None:
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        assert_accessible(page)
        page.screenshot(path=f"/tmp/case-events-outcomes-{name}-{label}.png", full_page=True)
    page.set_viewport_size({"width": WIDTHS["wide"], "height": 900})


def _event(link: CaseEventLink, zaak: str, state: str, detail: dict | None, **fields: object) -> None:
    CaseEvent.create(link=link.id, service=link.service_id, message_key=uuid.uuid4().hex, message={},
                     state=state, detail=detail, zaak_identificatie=zaak, status_omschrijving="Ontvangen",
                     scenario="received", **fields)


def test_the_outcomes_of_refusals_read_in_dutch_with_their_links(signed_in_member, service, monkeypatch):
    page = signed_in_member
    link = CaseEventLink.create(service=service, zaken_root=ROOT, catalogi_root=ROOT, klant_root=ROOT,
                                client_id="notify", client_secret="s", klant_token="t", callback_auth="Bearer x",
                                nrc_root="https://open-notificaties.gemeente.nl/api/v1/")
    template = create_sample_template(service=service, template_type="email", subject="Uw zaak")
    email = create_notification(service=service, template=template, status="delivered")
    failed = create_notification(service=service, template=template, status="permanent-failure")
    trial = kept(trial_letters_message())
    _event(link, "ZAAK-1", domain.SENT, {domain.FALLBACK_LEFT_OUT: [{"channel": "letter", "refusals": [trial]}]},
           channel="email", notification_id=email.id, contact_state=domain.CONTACT_RECORDED)
    _event(link, "ZAAK-2", domain.SENT, {domain.FALLBACK_REFUSED: {"channel": "letter", "refusals": [trial]}},
           channel="email", notification_id=failed.id, contact_state=domain.CONTACT_RECORDED)
    _event(link, "ZAAK-3", domain.API_REFUSED, {"api": "zaken", "status": None, "code": domain.ADDRESS_REFUSED})
    _event(link, "ZAAK-4", domain.WAITING, {"api": "klant", "status": None, "code": domain.CERTIFICATE}, attempts=3)
    daily = kept(Refusal("daily_limit_exceeded", "Exceeded send limits (sms: 0) for today",
                         {"kind": "sms", "limit": 0}))
    _event(link, "ZAAK-5", domain.SENT, {domain.PASSED_OVER: [{"channel": "sms", "refusals": [daily]}],
                                         domain.CONTACT_DETAIL: {"api": "klant", "status": 503, "code": None}},
           channel="email", notification_id=email.id, contact_state=domain.CONTACT_GAVE_UP)
    _event(link, "ZAAK-6", domain.SENT, {domain.CONTACT_DETAIL: {"api": "klant", "status": None,
                                                                 "code": domain.ADDRESS_REFUSED}},
           channel="email", notification_id=email.id, contact_state=domain.CONTACT_REFUSED)
    _event(link, "ZAAK-7", domain.SEND_REFUSED, {"channel": "sms", "refusals": [kept(domain.SERVICE_SUSPENDED)]})

    page.goto(f"/services/{service.id}/case-events")
    text = page.inner_text("main")
    assert "Bericht verstuurd per e-mail. Geen terugval per brief: In proefmodus kan deze dienst geen brieven " \
           "versturen. Wat proefmodus betekent" in text
    assert "Niet afgeleverd: het bericht mislukte en het terugvallen per brief werd geweigerd: In proefmodus" in text
    assert "Niet verstuurd: de Zaken API (Open Zaak) staat op een adres dat deze dienst niet mag bereiken" in text
    assert "Wacht: het certificaat van Open Klant wordt niet vertrouwd (3 keer geprobeerd)" in text
    assert page.locator("main td a[href='/trial-mode']").count() == 2
    assert "Bericht verstuurd per e-mail. Niet per sms: De dienst heeft vandaag zijn daglimiet van 0 " \
           "sms-berichten bereikt: probeer het morgen opnieuw" in text
    assert "Klantcontact in Open Klant: Niet vastgelegd: Open Klant bleef drie dagen onbereikbaar" in text
    assert "Klantcontact in Open Klant: Niet vastgelegd: Open Klant staat op een adres dat deze dienst niet mag " \
           "bereiken" in text
    assert "Niet verstuurd: De dienst is opgeschort (niet actief) en verstuurt niets" in text
    _checked(page, "events")

    long_base = "https://notify." + "-".join(["voorbeeldstad"] * 10) + ".nl"  # 157 characters: 206 in all
    monkeypatch.setattr(config, "_settings", dataclasses.replace(config.get_settings(), base_url=long_base))
    page.goto(f"/services/{service.id}/service-settings/case-events")
    page.click("text=Abonneren")
    assert "Het adres waarop Open Notificaties zou posten is 206 tekens lang; Open Notificaties neemt er " \
           "hoogstens 200. Vraag de beheerder BASE_URL korter te maken" in page.inner_text("main")
    _checked(page, "callback-too-long")
