"""The organisation pages without a browser: who sees what (a member of another body gets 404 on every
page, a member who is not an admin 403 on changes), the refusals in Dutch, brands, moving a service in,
the platform admin's search, and a new service taking its organisation's language and time zone."""
from __future__ import annotations

import pytest

from core.brands import create_email_brand
from core.organisation_members import add_brand, add_member
from core.organisations import add_domain, add_service, create_organisation
from models.appearance import language_of
from models.organisation import OrganisationEvent, OrganisationUser, organisation_of
from models.service import Service
from tests.admin_helpers import admin_headers, post_service
from tests.api.test_admin_organisation_go_live import ANSWERS, _organisation_with, _ready
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_service


@pytest.fixture
def body():
    organisation = create_organisation("Gemeente Utrecht", "gemeente", language="en", time_zone="Europe/London")
    add_domain(str(organisation.id), "utrecht.nl")
    return organisation


def _admin_of(organisation) -> object:
    user = create_console_user(email_address=f"admin-{organisation.name.split()[-1].lower()}@example.nl")
    add_member(str(organisation.id), user.email_address, "admin")
    return user


def test_a_member_of_another_organisation_gets_404_on_every_page_of_it(console_app, body):
    service = create_service(name="Parkeren")
    add_service(str(body.id), str(service.id))
    other = create_organisation("Gemeente Zeist", "gemeente")
    outsider = _admin_of(other)
    client = signed_in_client(console_app, outsider.user)
    base = f"/organisations/{body.id}"
    token = csrf_token(client, f"/organisations/{other.id}")
    for path in (base, f"{base}/usage", f"{base}/usage.csv", f"{base}/go-live/{service.id}"):
        assert client.get(path).status_code == 404, path
    for path in (f"{base}/domains", f"{base}/members", f"{base}/brands", f"{base}/domains/utrecht.nl/remove",
                 f"{base}/go-live/{service.id}/approve", f"{base}/go-live/{service.id}/reject",
                 f"{base}/members/{outsider.id}/remove"):
        assert client.post(path, data={"csrf_token": token, "domain": "x.nl"}).status_code == 404, path
    assert "Gemeente Utrecht" not in client.get("/organisations").get_data(as_text=True)
    assert client.get("/organisations/not-an-id").status_code == 404
    assert client.get("/platform-admin/search?q=Parkeren").status_code == 403


def test_a_member_sees_the_organisation_but_only_an_admin_changes_it(console_app, body):
    member = create_console_user()
    add_member(str(body.id), member.email_address, "member")
    client = signed_in_client(console_app, member.user)
    page = client.get(f"/organisations/{body.id}").get_data(as_text=True)
    assert "Gemeente Utrecht" in page and "utrecht.nl" in page and 'action="/organisations/' not in page
    token = csrf_token(client, f"/organisations/{body.id}/usage")
    assert client.post(f"/organisations/{body.id}/domains", data={"csrf_token": token,
                                                                  "domain": "x.nl"}).status_code == 403


def test_an_admin_manages_domains_members_and_brands_with_refusals_in_dutch(console_app, body):
    admin = _admin_of(body)
    other = create_organisation("Gemeente Zeist", "gemeente")
    add_domain(str(other.id), "zeist.nl")
    client = signed_in_client(console_app, admin.user)
    base = f"/organisations/{body.id}"
    token = csrf_token(client, base)

    taken = client.post(f"{base}/domains", data={"csrf_token": token, "domain": "zeist.nl"})
    assert "Het e-maildomein zeist.nl hoort al bij Gemeente Zeist" in taken.get_data(as_text=True)
    unknown = client.post(f"{base}/members", data={"csrf_token": token, "email_address": "niemand@utrecht.nl",
                                                   "role": "member"})
    assert "Er is geen account met het e-mailadres niemand@utrecht.nl" in unknown.get_data(as_text=True)
    last = client.post(f"{base}/members/{admin.id}/remove", data={"csrf_token": token}, follow_redirects=True)
    assert "Een organisatie heeft minstens één beheerder nodig" in last.get_data(as_text=True)
    assert OrganisationUser.select().where(OrganisationUser.organisation == body).count() == 1

    brand = create_email_brand(name="Utrecht blauw")
    assert client.post(f"{base}/brands", data={"csrf_token": token,
                                               "brand": f"email:{brand.id}"}).status_code == 302
    assert "E-mail: Utrecht blauw" in client.get(base).get_data(as_text=True)
    assert client.post(f"{base}/brands/email/{brand.id}/remove", data={"csrf_token": token}).status_code == 302
    actions = [e.action for e in OrganisationEvent.select().where(OrganisationEvent.organisation_id == body.id)
               .order_by(OrganisationEvent.created_at)]
    assert actions[-2:] == ["email_brand.add", "email_brand.remove"]


def test_a_platform_admin_lists_searches_and_moves_a_service_in(console_app, body, platform_admin):
    create_organisation("Waterschap Rivierenland", "waterschap")
    service = create_service(name="Afvalkalender")
    client = signed_in_client(console_app, platform_admin.user)
    listed = client.get("/organisations?search=utrecht.nl").get_data(as_text=True)
    assert "Gemeente Utrecht" in listed and "Waterschap" not in listed
    token = csrf_token(client, f"/organisations/{body.id}")
    assert client.post(f"/organisations/{body.id}/services", data={"csrf_token": token,
                                                                  "service": "afvalkalender"}).status_code == 302
    assert organisation_of(service.id).id == body.id
    missing = client.post(f"/organisations/{body.id}/services", data={"csrf_token": token, "service": "Nope"})
    assert "Er is geen dienst met deze naam of dit id" in missing.get_data(as_text=True)

    user = create_console_user(name="Anne de Vries", email_address="anne@utrecht.nl")
    found = client.get("/platform-admin/search?q=utrecht").get_data(as_text=True)
    assert "Anne de Vries (anne@utrecht.nl)" in found
    assert "Afvalkalender" in client.get(f"/platform-admin/search?q={service.id}").get_data(as_text=True)
    assert "Anne de Vries" in client.get(f"/platform-admin/search?q={user.id}").get_data(as_text=True)


def test_a_new_service_of_someone_on_a_domain_joins_with_its_language_and_time_zone(console_app, body):
    maker = create_console_user(email_address="maker@Utrecht.nl")
    client = signed_in_client(console_app, maker.user)
    token = csrf_token(client)
    assert client.post("/services/new", data={"csrf_token": token, "name": "Parkeren"}).status_code == 302
    service = Service.get(Service.name == "Parkeren")
    assert organisation_of(service.id).id == body.id
    assert (service.time_zone, language_of(service.id)) == ("Europe/London", "en")
    elsewhere = create_console_user(email_address="someone@zeist.nl")
    client = signed_in_client(console_app, elsewhere.user)
    client.post("/services/new", data={"csrf_token": csrf_token(client), "name": "Zeist"})
    assert organisation_of(Service.get(Service.name == "Zeist").id) is None


def test_a_service_of_an_organisation_chooses_among_its_brands(console_app, body):
    offered, other = create_email_brand(name="Utrecht blauw"), create_email_brand(name="Iemand anders")
    add_brand(str(body.id), "email", str(offered.id))
    service = create_service(name="Parkeren")
    add_service(str(body.id), str(service.id))
    member = create_console_user(service=service, permissions=["view_activity", "manage_service"])
    page = signed_in_client(console_app, member.user).get(f"/services/{service.id}/service-settings/appearance")
    html = page.get_data(as_text=True)
    assert "Utrecht blauw" in html and "Iemand anders" not in html
    assert other.name == "Iemand anders"


def test_the_console_decides_the_organisation_step_by_the_same_rule_as_the_api(client, console_app, platform_admin):
    # A platform admin may approve for the organisation through either door; an organisation admin
    # with nothing waiting for the organisation finds no decision page, where the API answers 400.
    sid = post_service(client, name="Parkeren")["id"]
    _ready(client, sid)
    admin = create_console_user(name="Org admin")
    org_id = _organisation_with(client, sid, admin=admin.email_address)
    client.post(f"/admin/services/{sid}/go-live/request", json=ANSWERS, headers=admin_headers())
    page = f"/organisations/{org_id}/go-live/{sid}"
    console = signed_in_client(console_app, platform_admin.user)
    assert console.get(page).status_code == 200
    token = csrf_token(console, page)
    assert console.post(f"{page}/approve", data={"csrf_token": token}).status_code == 302
    status = client.get(f"/admin/services/{sid}/go-live", headers=admin_headers()).get_json()
    assert status["request"]["organisation_approved_by"] == platform_admin.email_address
    assert signed_in_client(console_app, admin.user).get(page).status_code == 404
    refused = client.post(f"/admin/services/{sid}/go-live/organisation-approve",
                          query_string={"on_behalf_of": admin.id}, headers=admin_headers())
    assert refused.status_code == 400
