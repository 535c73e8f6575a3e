"""In a real browser (issue 52): a member links the service to the ZGW fakes through the Zaakgericht werken
pages, subscribes at Open Notificaties, chooses the case types and templates; a status set in Open Zaak
then shows under Activity, per case. axe-core checks every page at 0 violations; each is kept as a PNG at
1280 and 375 pixels wide (/tmp/case-events-*.png) to look at."""
from __future__ import annotations

from pipeline.domain import case_events as domain
from tests.conftest import wait_for
from tests.console.browser import assert_accessible
from tests.factories import create_sample_template
from tests.zgw.conftest import zgw  # noqa: F401  (the fixture)
from tests.zgw.linked import BSN, CASE_TYPE, SMS_BODY, citizen, events, seed_case_type

WIDTHS = {"wide": 1280, "narrow": 375}


def _checked(page, name: str) -> None:
    """axe at 0 and a screenshot, at both widths."""
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        assert_accessible(page)
        page.screenshot(path=f"/tmp/case-events-{name}-{label}.png", full_page=True)
    page.set_viewport_size({"width": WIDTHS["wide"], "height": 900})
    assert BSN not in page.content()


def test_a_member_links_the_service_and_reads_what_became_of_a_case(
        signed_in_member, service, zgw, live_server, worker):  # noqa: F811
    page = signed_in_member
    create_sample_template(service=service, name="Zaak ontvangen (sms)", body=SMS_BODY)
    page.goto(f"/services/{service.id}/service-settings")
    page.click("a[href$='/service-settings/case-events']")
    assert "Deze dienst is nog niet gekoppeld aan Open Zaak." in page.inner_text("main")
    _checked(page, "settings-unlinked")

    page.click("text=Koppeling instellen")
    for field, value in (("#zaken_root", zgw.zaken_root), ("#catalogi_root", zgw.catalogi_root),
                         ("#klant_root", zgw.klant_root), ("#client_id", zgw.client_id),
                         ("#client_secret", zgw.secret), ("#klant_token", zgw.klant_token),
                         ("#nrc_root", zgw.nrc_root), ("#nrc_client_id", zgw.nrc_client_id),
                         ("#nrc_secret", zgw.nrc_secret)):
        page.fill(field, value)
    _checked(page, "connection")
    with page.expect_navigation():  # read the next page once loaded, not while it streams in
        page.click("main form button[type=submit]")
    assert "Verbinding opgeslagen" in page.inner_text("main")

    with page.expect_navigation():
        page.click("text=Abonneren")
    assert "Staat" in page.inner_text("main")
    page.click("text=Zaaktypen wijzigen")
    page.fill("#case_types", CASE_TYPE)
    _checked(page, "case-types")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    page.click("text=Sjablonen wijzigen")
    page.select_option("#received_sms", label="Zaak ontvangen (sms)")
    _checked(page, "templates")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert "Zaak ontvangen (sms)" in page.inner_text("main")
    _checked(page, "settings-linked")

    case = seed_case_type(zgw)
    citizen(zgw)
    zaak = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-2026-0042", omschrijving="Parkeervergunning", bsn=BSN)
    nobody = zgw.add_zaak(case.zaaktype, identificatie="ZAAK-2026-0043", omschrijving="Parkeervergunning",
                          bsn="999990019")
    zgw.set_status(zaak, case.received)
    zgw.set_status(nobody, case.in_progress)
    wait_for(lambda: len(events()) == 2 and all(e.state not in domain.OPEN for e in events()))

    page.click("nav >> text=Zaakgericht werken")
    text = page.inner_text("main")
    assert "Bericht verstuurd per sms" in text and "Niet verstuurd: de initiator is niet bekend in Open Klant" in text
    _checked(page, "events")
    page.click("text=ZAAK-2026-0043")
    assert "Zaak ZAAK-2026-0043" in page.inner_text("main") and "Opnieuw proberen" in page.inner_text("main")
    _checked(page, "case")
