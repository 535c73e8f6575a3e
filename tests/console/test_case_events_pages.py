"""The console's case-event pages (Zaakgericht werken), in Dutch: linking a service to the ZGW fakes through
its forms, subscribing at Open Notificaties, and what became of each case event, per case; permissions
as the other settings pages; no credential shown again and no BSN on any page."""
from __future__ import annotations

from models.case_event import CaseEventLink
from pipeline.domain import case_events as domain
from tests.conftest import wait_for
from tests.console.service_pages import csrf_token, page_text, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_sample_template
from tests.zgw.conftest import zgw  # noqa: F401  (the fixture)
from tests.zgw.linked import BSN, citizen, events, link, seed_case_type


def _settings(service, rest=""):
    return f"/services/{service.id}/service-settings/case-events{rest}"


def _member(console_app, service, permissions=("view_activity", "send_messages", "manage_service")):
    return signed_in_client(console_app, create_console_user(service=service, permissions=list(permissions)).user)


def _post(client, url, data, form_page=None):
    return client.post(url, data={"csrf_token": csrf_token(client, form_page or url), **data})


def test_a_service_is_linked_through_the_forms_and_subscribed(console_app, service, zgw, live_server):  # noqa: F811
    client = _member(console_app, service)
    first = page_text(client.get(_settings(service)))
    assert "Deze dienst is nog niet gekoppeld aan Open Zaak." in first and "Koppeling instellen" in first

    answer = _post(client, _settings(service, "/connection"), {
        "zaken_root": zgw.zaken_root, "catalogi_root": zgw.catalogi_root, "klant_root": zgw.klant_root,
        "client_id": zgw.client_id, "client_secret": zgw.secret, "klant_token": zgw.klant_token,
        "nrc_root": zgw.nrc_root, "nrc_client_id": zgw.nrc_client_id, "nrc_secret": zgw.nrc_secret})
    assert answer.status_code == 302
    shown = client.get(_settings(service)).get_data(as_text=True)
    text = page_text(client.get(_settings(service)))
    assert "Verbinding opgeslagen" in shown and zgw.zaken_root in text
    assert "Ingesteld (wordt nooit meer getoond)" in text
    assert "Nog niet geabonneerd" in text and "Geen: er wordt nog geen inwoner iets verteld." in text
    for secret in (zgw.secret, zgw.klant_token, zgw.nrc_secret, CaseEventLink.get().callback_auth):
        assert secret not in shown

    _post(client, _settings(service, "/subscribe"), {}, _settings(service))
    subscribed = page_text(client.get(_settings(service)))
    assert "Toestand Staat" in subscribed
    assert [s["callbackUrl"] for s in zgw.subscriptions()] == [f"{live_server}/case-events/{CaseEventLink.get().id}"]
    _post(client, _settings(service, "/check"), {}, _settings(service))
    assert "Het abonnement is teruggelezen bij Open Notificaties" in client.get(_settings(service)).get_data(
        as_text=True)

    _post(client, _settings(service, "/case-types"), {"case_types": "PARKEREN\n\n BEZWAAR \nPARKEREN"})
    assert CaseEventLink.get().case_types == ["PARKEREN", "BEZWAAR"]

    sms = create_sample_template(service=service, template_type="sms", name="Ontvangen-sms",
                                 body="((zaak.identificatie))")
    _post(client, _settings(service, "/templates"), {"received_sms": str(sms.id), "received_email": "",
                                                       "updated_sms": str(sms.id)})
    assert CaseEventLink.get().templates == {"received": {"sms": str(sms.id)}, "updated": {"sms": str(sms.id)}}
    assert "Ontvangen-sms" in page_text(client.get(_settings(service)))


def test_a_root_is_refused_in_dutch_and_nothing_is_saved(console_app, service):
    client = _member(console_app, service)
    answer = _post(client, _settings(service, "/connection"), {
        "zaken_root": "https://10.1.2.3/zaken/api/v1/", "catalogi_root": "http://open-zaak.example.nl/catalogi/",
        "klant_root": "https://open-klant.example.nl/api/v1/?x=1", "client_id": "notify", "client_secret": "s",
        "klant_token": "t"})
    text = page_text(answer)
    assert "Zaken API: Vul een URL in van een server op het openbare internet" in text
    assert "Catalogi API: Vul een URL in die met https:// begint" in text
    assert "Open Klant API: vul de root van de API in, zonder query of fragment" in text
    assert CaseEventLink.select().count() == 0


def test_what_became_of_each_case_event_is_shown_per_case_in_dutch_without_a_bsn(
        console_app, service, zgw, live_server, worker):  # noqa: F811
    link(zgw, service)
    case = seed_case_type(zgw)
    citizen(zgw)
    sent = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-2026-0001", omschrijving="Vergunning", bsn=BSN)
    missing = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-2026-0002", omschrijving="Vergunning", bsn="999990019")
    zgw.set_status(sent, case.received)
    zgw.set_status(missing, case.received)
    wait_for(lambda: len(events()) == 2 and all(e.state not in domain.OPEN for e in events())
             and any(e.contact_state == "recorded" for e in events()))

    member = _member(console_app, service)
    listing = member.get(f"/services/{service.id}/case-events")
    text = page_text(listing)
    assert "Bericht verstuurd per sms" in text and "Vastgelegd in Open Klant" in text
    assert "Niet verstuurd: de initiator is niet bekend in Open Klant" in text
    assert "Ontvangen Zaak ontvangen" in text and "Bekijk het bericht" in text
    one = page_text(member.get(f"/services/{service.id}/case-events/case?zaak=ZAAK-2026-0002"))
    assert "Zaak ZAAK-2026-0002" in one and "ZAAK-2026-0001" not in one and "Opnieuw proberen" in one
    for page in (listing, member.get(f"/services/{service.id}/case-events/case?zaak=ZAAK-2026-0001"),
                 member.get(_settings(service))):
        assert BSN not in page.get_data(as_text=True) and "999990019" not in page.get_data(as_text=True)
    assert "Zaakgericht werken" in page_text(member.get(f"/services/{service.id}/dashboard"))  # the menu's link

    watcher = _member(console_app, service, permissions=("view_activity",))
    assert watcher.get(_settings(service)).status_code == 403
    seen = page_text(watcher.get(f"/services/{service.id}/case-events/case?zaak=ZAAK-2026-0002"))
    assert "Niet verstuurd" in seen and "Opnieuw proberen" not in seen
    assert member.get(f"/services/{service.id}/case-events/case?zaak=ZAAK-404").status_code == 404
