"""Organisations in a real browser, every page checked with axe-core: a platform admin makes a
municipality with its domain and admin; a user on that domain makes a service and lands in it; the
organisation's admin approves its go-live, then the platform admin does; the usage page and its CSV
show each service's figures, which match what `GET /v2/notifications` reports for that service. A
platform admin sets an organisation's language, time zone and rate agreement and takes a service out;
its admin changes a member's role, and is refused demoting the last admin."""
from __future__ import annotations

import csv
import io

from notifications_python_client.notifications import NotificationsAPIClient

from core.organisation_members import add_member
from core.organisations import add_service, create_organisation
from core.rates import add_rate
from core.templates import add_template
from models.audit import AuditEvent
from models.db import utcnow
from models.organisation import Organisation, organisation_of
from models.service import ReplyToAddress, Service
from tests.console.browser import assert_accessible, sign_in
from tests.console.users import create_console_user
from tests.factories import create_key, create_notification, create_sample_template, create_service


def _submit(page, label: str) -> None:
    page.locator("main").get_by_role("button", name=label, exact=True).click()


def _submit_and_wait(page, label: str) -> None:
    """A button whose form comes back to the same address: wait for the answer, not for the address."""
    with page.expect_navigation():
        _submit(page, label)


def _open(page, path: str) -> None:
    response = page.goto(path)
    assert response.status == 200, path
    assert_accessible(page)


def _new_page(browser, console_server, user):
    page = browser.new_context(base_url=console_server).new_page()
    page.set_default_timeout(15000)
    sign_in(page, user)
    return page


def _make_municipality(page, admin_email: str) -> Organisation:
    _open(page, "/organisations")
    page.get_by_role("link", name="Organisatie toevoegen").click()
    assert_accessible(page)
    page.fill("#name", "Gemeente Utrecht")
    page.select_option("#kind", "gemeente")
    _submit(page, "Organisatie toevoegen")
    page.wait_for_url("**/organisations/*")
    organisation = Organisation.get(Organisation.name == "Gemeente Utrecht")
    page.fill("#domain", "utrecht.nl")
    _submit(page, "Domein toevoegen")
    page.wait_for_url(f"**/organisations/{organisation.id}")
    page.fill("#domain", "utrecht.nl")  # a second claim, here by the same body: refused with the reason
    _submit(page, "Domein toevoegen")
    assert "Het e-maildomein utrecht.nl hoort al bij Gemeente Utrecht" in page.inner_text("main")
    assert_accessible(page)
    page.goto(f"/organisations/{organisation.id}")
    page.fill("#email_address", admin_email)
    page.select_option("#role", "admin")
    _submit(page, "Lid toevoegen")
    page.wait_for_url(f"**/organisations/{organisation.id}")
    assert "Beheerder van de organisatie" in page.inner_text("main")
    assert_accessible(page)
    return organisation


def _request_go_live(page, service: Service) -> None:
    ReplyToAddress.create(service=service, email_address="loket@utrecht.nl", is_default=True)
    add_template(str(service.id), template_type="sms", name="hi", body="Hallo")
    create_console_user(service=service, permissions=["view_activity"], email_address="collega@utrecht.nl")
    go_live = f"/services/{service.id}/service-settings/request-to-go-live"
    _open(page, go_live)
    _submit(page, "Live gaan aanvragen")
    assert "Geef aan hoeveel berichten u per kanaal verwacht en wie ze ontvangt" in page.inner_text("main")
    assert_accessible(page)
    page.fill("#sms_volume", "12000")
    page.fill("#email_volume", "3000")
    page.fill("#recipients", "Inwoners met een parkeervergunning")
    _submit(page, "Live gaan aanvragen")
    page.wait_for_url(f"**{go_live}")
    assert "Eerst keurt de beheerder van uw organisatie het goed" in page.inner_text("main")
    assert_accessible(page)


def _v2_totals(live_server: str, key: str) -> tuple[int, float]:
    """(text-message fragments, cost) summed over what GET /v2/notifications answers."""
    answer = NotificationsAPIClient(key, base_url=live_server).get_all_notifications()
    fragments = sum(n["cost_details"].get("billable_sms_fragments", 0) for n in answer["notifications"])
    return fragments, round(sum(n["cost_in_pounds"] or 0 for n in answer["notifications"]), 4)


def test_a_service_joins_its_municipality_and_goes_live_in_two_steps(page, browser, console_server, live_server,
                                                                   platform_admin):
    org_admin = create_console_user(email_address="beheer@utrecht.nl", name="Org Admin")
    maker = create_console_user(email_address="maker@utrecht.nl", name="Maker")
    outsider = create_console_user(email_address="iemand@zeist.nl", name="Outsider")

    sign_in(page, platform_admin)
    organisation = _make_municipality(page, org_admin.email_address)

    maker_page = _new_page(browser, console_server, maker)
    _open(maker_page, "/services/new")
    maker_page.fill("#name", "Parkeervergunning")
    _submit(maker_page, "Dienst toevoegen")
    maker_page.wait_for_url("**/services/*")
    service = Service.get(Service.name == "Parkeervergunning")
    assert organisation_of(service.id).id == organisation.id
    _request_go_live(maker_page, service)

    _open(page, "/platform-admin/go-live-requests")
    assert "Parkeervergunning" not in page.inner_text("main")  # the organisation's admin decides first

    admin_page = _new_page(browser, console_server, org_admin)
    admin_page.get_by_role("link", name="Organisaties").click()
    admin_page.get_by_role("link", name="Gemeente Utrecht").click()
    assert_accessible(admin_page)
    admin_page.get_by_role("link", name="Parkeervergunning").click()
    assert "Inwoners met een parkeervergunning" in admin_page.inner_text("main")
    assert "12.000" in admin_page.inner_text("main")
    assert_accessible(admin_page)
    _submit(admin_page, "Goedkeuren namens de organisatie")
    admin_page.wait_for_url(f"**/organisations/{organisation.id}")
    assert "Er wachten geen verzoeken op uw goedkeuring." in admin_page.inner_text("main")

    _open(page, "/platform-admin/go-live-requests")
    page.get_by_role("link", name="Parkeervergunning").click()
    assert "Goedgekeurd namens de organisatie door beheer@utrecht.nl." in page.inner_text("main")
    assert_accessible(page)
    _submit(page, "Goedkeuren: de dienst live zetten")
    page.wait_for_url("**/platform-admin/go-live-requests")
    assert Service.get_by_id(service.id).trial_mode is False
    steps = [(e.action, e.actor_name) for e in AuditEvent.select().where(AuditEvent.service_id == service.id)
             .order_by(AuditEvent.created_at) if e.action.startswith("go_live")]
    assert steps == [("go_live.request", "maker@utrecht.nl"), ("go_live.organisation_approve", "beheer@utrecht.nl"),
                     ("go_live.approve", platform_admin.email_address)]

    # A second service of the body, and messages of both.
    other = Service.create(name="Afvalkalender", trial_mode=False)
    add_service(str(organisation.id), str(other.id))
    now, keys = utcnow(), {}
    for each, texts, letters in ((service, (1, 2, 3), 1), (other, (1,), 0)):
        sms, letter = create_sample_template(service=each), create_sample_template(service=each,
                                                                                    template_type="letter")
        for units in texts:
            create_notification(service=each, template=sms, status="delivered", billable_units=units,
                                created_at=now)
        for _ in range(letters):
            create_notification(service=each, template=letter, status="delivered", billable_units=2,
                                created_at=now)
        keys[each.id] = create_key(service=each)

    usage = f"/organisations/{organisation.id}/usage"
    admin_page.get_by_role("link", name="Gebruik en kosten").click()
    admin_page.wait_for_url(f"**{usage}")
    assert_accessible(admin_page)
    rows = {}
    for each in (service, other):
        cells = [c.strip() for c in admin_page.locator(f'tr[data-service="{each.id}"] td').all_inner_texts()]
        rows[each.id] = cells
    assert rows[service.id][:5] == ["0", "3", "6", "1", "2"]
    assert rows[other.id][:5] == ["0", "1", "1", "0", "0"]

    with admin_page.expect_download() as download:
        admin_page.get_by_role("link", name="Downloaden als CSV").click()
    # In the page's language, amounts with its decimal comma (a Dutch spreadsheet reads "0,0454" as a number).
    lines = list(csv.DictReader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))

    def euros(text: str) -> float:
        return float(text.replace(",", "."))

    by_service = {line["Dienst-ID"]: line for line in lines if line["Dienst-ID"]}
    for each in (service, other):
        fragments, cost = _v2_totals(live_server, keys[each.id])
        line = by_service[str(each.id)]
        assert (int(line["Sms-delen"]), euros(line["Totale kosten (euro)"])) == (fragments, cost)
        assert rows[each.id][2] == str(fragments)
    assert lines[-1]["Dienst"] == "Totaal"
    assert euros(lines[-1]["Totale kosten (euro)"]) == round(sum(euros(by_service[str(s.id)]["Totale kosten (euro)"])
                                                                 for s in (service, other)), 4)

    admin_page.get_by_role("link", name="English").click()
    admin_page.wait_for_url(f"**{usage}")
    assert admin_page.inner_text("h1").startswith("Usage in")
    assert_accessible(admin_page)
    _open(admin_page, f"/organisations/{organisation.id}/history")
    history = admin_page.inner_text("main")
    assert "Email domain added" in history and "Service joined" in history and "Member added" in history

    page.get_by_role("link", name="English").click()
    page.get_by_role("link", name="Find users and services").click()
    page.fill("#q", "utrecht")
    _submit(page, "Search")
    page.wait_for_url("**/platform-admin/search?q=utrecht")
    assert "Maker (maker@utrecht.nl)" in page.inner_text("main")
    assert_accessible(page)
    _open(page, "/organisations?search=utrecht.nl")
    page.get_by_role("link", name="Gemeente Utrecht").click()
    assert "Parkeervergunning" in page.inner_text("main") and "Afvalkalender" in page.inner_text("main")
    assert_accessible(page)

    outsider_page = _new_page(browser, console_server, outsider)
    base = f"/organisations/{organisation.id}"
    for path in (base, usage, f"{usage}.csv", f"{base}/history", f"{base}/go-live/{service.id}"):
        assert outsider_page.goto(path).status == 404, path
    _open(outsider_page, "/organisations")
    assert "Gemeente Utrecht" not in outsider_page.inner_text("main")
    for opened in (maker_page, admin_page, outsider_page):
        opened.context.close()


def test_settings_a_role_and_a_service_taken_out(page, browser, console_server, platform_admin):
    add_rate("sms", "2026-01-01", 0.0195, rate_table="gemeenten-2026")
    organisation = create_organisation("Gemeente Utrecht", "gemeente")
    org_admin = create_console_user(email_address="beheer@utrecht.nl", name="Org Admin")
    colleague = create_console_user(email_address="collega@utrecht.nl", name="Collega")
    add_member(str(organisation.id), org_admin.email_address, "admin")
    add_member(str(organisation.id), colleague.email_address, "member")
    add_service(str(organisation.id), str(create_service(name="Parkeren").id))
    base = f"/organisations/{organisation.id}"

    sign_in(page, platform_admin)
    _open(page, base)
    page.get_by_role("link", name="Instellingen wijzigen").click()
    page.wait_for_url(f"**{base}/settings")
    assert_accessible(page)
    page.fill("#time_zone", "Europe/Nergens")
    _submit_and_wait(page, "Opslaan")
    assert "Europe/Nergens is geen tijdzone" in page.inner_text("main")
    assert_accessible(page)
    page.select_option("#language", "en")
    page.fill("#time_zone", "America/Kralendijk")
    page.select_option("#rate_table", "gemeenten-2026")
    _submit(page, "Opslaan")
    page.wait_for_url(f"**{base}")
    settings = page.inner_text("main dl")
    assert "Engels" in settings and "America/Kralendijk" in settings and "gemeenten-2026" in settings
    assert_accessible(page)
    _submit_and_wait(page, "Parkeren uit de organisatie halen")
    assert "Nog geen diensten." in page.inner_text("main")
    page.set_viewport_size({"width": 375, "height": 800})
    assert_accessible(page)  # the members' table with its buttons scrolls in its own box

    admin_page = _new_page(browser, console_server, org_admin)
    _open(admin_page, base)
    assert "Instellingen wijzigen" not in admin_page.inner_text("main")
    assert "uit de organisatie halen" not in admin_page.inner_text("main")
    assert admin_page.goto(f"{base}/settings").status == 403
    _open(admin_page, base)
    _submit_and_wait(admin_page, "Org Admin lid maken")
    assert "Een organisatie heeft minstens één beheerder nodig: maak eerst een ander lid beheerder" in \
        admin_page.inner_text("main")
    assert_accessible(admin_page)
    _submit_and_wait(admin_page, "Collega beheerder van de organisatie maken")
    assert admin_page.locator("main table").inner_text().count("Beheerder van de organisatie") == 2
    _submit_and_wait(admin_page, "Org Admin lid maken")  # another admin now: allowed
    members = admin_page.locator("main table").inner_text()
    assert members.count("Beheerder van de organisatie") == 1 and "Lid" in members
    assert admin_page.get_by_role("button", name="Collega lid maken").count() == 0  # a member changes no roles

    _open(page, f"{base}/history")
    history = page.inner_text("main")
    assert "Instellingen gewijzigd" in history
    assert "Tijdzone gewijzigd van Europe/Amsterdam in America/Kralendijk" in history
    assert history.count("Rol van een lid gewijzigd") == 2 and "Dienst vertrokken" in history
    admin_page.context.close()
