"""An organisation's settings, its members' roles and its services in the console, without a browser: a
platform admin sets the language, time zone and rate agreement (on the new form and on the settings
page) and the organisation's page and history show them; the organisation's own admins may not; a
member's role changes, and the last admin's demotion is refused in core's words; a service taken out
is in both histories; a member of another organisation gets 404 on all of it."""
from __future__ import annotations

import pytest

from core.organisation_members import add_member
from core.organisations import add_service, create_organisation
from core.rates import add_rate
from models.audit import AuditEvent
from models.organisation import Organisation, OrganisationEvent, OrganisationUser, organisation_of
from tests.console.service_pages import csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_service

AGREEMENT = "gemeenten-2026"
LAST_ADMIN_NL = "Een organisatie heeft minstens één beheerder nodig: maak eerst een ander lid beheerder"


@pytest.fixture
def body():
    return create_organisation("Gemeente Utrecht", "gemeente")


@pytest.fixture
def agreement():
    add_rate("sms", "2026-01-01", 0.0195, rate_table=AGREEMENT)
    return AGREEMENT


def _member_of(organisation, role: str, name: str = "Test User"):
    user = create_console_user(name=name)
    add_member(str(organisation.id), user.email_address, role)
    return user


def _settings(**changes) -> dict[str, str]:
    return {"name": "Gemeente Utrecht", "kind": "gemeente", "language": "nl", "time_zone": "Europe/Amsterdam",
            "rate_table": "standard", **changes}


def _events(organisation) -> list[OrganisationEvent]:
    return list(OrganisationEvent.select().where(OrganisationEvent.organisation_id == organisation.id)
                .order_by(OrganisationEvent.created_at, OrganisationEvent.id))


def test_a_platform_admin_changes_the_settings_and_the_page_and_history_show_them(console_app, body, agreement,
                                                                                  platform_admin):
    client = signed_in_client(console_app, platform_admin.user)
    base = f"/organisations/{body.id}"
    page = client.get(base).get_data(as_text=True)
    assert "Nederlands" in page and "Europe/Amsterdam" in page and "Standaardtarieven" in page
    assert f'href="{base}/settings"' in page  # "Instellingen wijzigen"

    form = client.get(f"{base}/settings").get_data(as_text=True)
    assert 'value="Europe/Amsterdam"' in form and f'<option value="{AGREEMENT}">{AGREEMENT}</option>' in form
    token = csrf_token(client, f"{base}/settings")
    saved = client.post(f"{base}/settings", data={"csrf_token": token, **_settings(
        language="en", time_zone="Europe/London", rate_table=AGREEMENT)})
    assert (saved.status_code, saved.headers["Location"]) == (302, base)

    page = client.get(base).get_data(as_text=True)
    assert "Engels" in page and "Europe/London" in page and AGREEMENT in page
    organisation = Organisation.get_by_id(body.id)
    assert (organisation.language, organisation.time_zone, organisation.rate_table) == (
        "en", "Europe/London", AGREEMENT)
    history = client.get(f"{base}/history").get_data(as_text=True)
    assert "Instellingen gewijzigd" in history and platform_admin.email_address in history
    assert "<li>Taal gewijzigd van Nederlands in Engels</li>" in history
    assert "<li>Tijdzone gewijzigd van Europe/Amsterdam in Europe/London</li>" in history
    assert f"<li>Tariefafspraak gewijzigd van Standaardtarieven in {AGREEMENT}</li>" in history
    assert "<li>Soort: Gemeente</li>" in history  # the organisation as it was made

    renamed = client.post(f"{base}/settings", data={"csrf_token": token, **_settings(
        name="Provincie Utrecht", kind="provincie", language="en", time_zone="Europe/London",
        rate_table=AGREEMENT)}, follow_redirects=True).get_data(as_text=True)
    assert '<h1 class="utrecht-heading-1">Provincie Utrecht</h1>' in renamed and "Provincie" in renamed
    assert [e.action for e in _events(body)] == ["organisation.create", "organisation.update", "organisation.update"]

    unchanged = client.post(f"{base}/settings", data={"csrf_token": token, **_settings(
        name="Provincie Utrecht", kind="provincie", language="en", time_zone="Europe/London",
        rate_table=AGREEMENT)})
    assert unchanged.status_code == 302 and len(_events(body)) == 3  # nothing changed, nothing recorded


def test_a_time_zone_core_does_not_know_is_refused_in_dutch_and_nothing_changes(console_app, body, platform_admin):
    client = signed_in_client(console_app, platform_admin.user)
    path = f"/organisations/{body.id}/settings"
    token = csrf_token(client, path)
    refused = client.post(path, data={"csrf_token": token, **_settings(time_zone="Europe/Nergens")})
    assert refused.status_code == 200
    assert ("Europe/Nergens is geen tijdzone: vul de naam in, zoals Europe/Amsterdam of America/Curacao"
            in refused.get_data(as_text=True))
    blank = client.post(path, data={"csrf_token": token, **_settings(time_zone=" ")})
    assert "Vul een tijdzone in" in blank.get_data(as_text=True)
    unknown_table = client.post(path, data={"csrf_token": token, **_settings(rate_table="nergens")})
    assert unknown_table.status_code == 200
    assert Organisation.get_by_id(body.id).time_zone == "Europe/Amsterdam"
    assert [e.action for e in _events(body)] == ["organisation.create"]


def test_a_new_organisation_is_made_with_its_settings_or_core_defaults(console_app, agreement, platform_admin):
    client = signed_in_client(console_app, platform_admin.user)
    form = client.get("/organisations/new").get_data(as_text=True)
    assert 'value="Europe/Amsterdam"' in form and '<option value="nl" selected>Nederlands</option>' in form
    assert '<option value="standard" selected>Standaardtarieven</option>' in form
    token = csrf_token(client, "/organisations/new")
    made = client.post("/organisations/new", data={
        "csrf_token": token, "name": "Openbaar Lichaam Bonaire", "kind": "other", "language": "en",
        "time_zone": "America/Kralendijk", "rate_table": agreement})
    assert made.status_code == 302
    bonaire = Organisation.get(Organisation.name == "Openbaar Lichaam Bonaire")
    assert (bonaire.kind, bonaire.language, bonaire.time_zone, bonaire.rate_table) == (
        "other", "en", "America/Kralendijk", agreement)
    assert _events(bonaire)[0].after["time_zone"] == "America/Kralendijk"

    plain = client.post("/organisations/new", data={"csrf_token": token, "name": "Waterschap Vallei",
                                                    "kind": "waterschap", "language": "nl", "time_zone": "",
                                                    "rate_table": "standard"})
    assert plain.status_code == 302
    vallei = Organisation.get(Organisation.name == "Waterschap Vallei")
    assert (vallei.language, vallei.time_zone, vallei.rate_table) == ("nl", "Europe/Amsterdam", "standard")


def test_the_organisations_own_admin_cannot_reach_its_settings_nor_take_a_service_out(console_app, body):
    service = create_service(name="Parkeren")
    add_service(str(body.id), str(service.id))
    base = f"/organisations/{body.id}"
    for role in ("admin", "member"):
        user = _member_of(body, role)
        client = signed_in_client(console_app, user.user)
        page = client.get(base).get_data(as_text=True)
        assert f"{base}/settings" not in page and "uit de organisatie halen" not in page
        token = csrf_token(client, f"{base}/usage")
        assert client.get(f"{base}/settings").status_code == 403, role
        assert client.post(f"{base}/settings", data={"csrf_token": token, **_settings(
            language="en")}).status_code == 403, role
        assert client.post(f"{base}/services/{service.id}/remove", data={"csrf_token": token}).status_code == 403
    assert organisation_of(service.id).id == body.id and Organisation.get_by_id(body.id).language == "nl"


def test_an_admin_changes_a_members_role_and_the_last_admin_stays(console_app, body):
    admin = _member_of(body, "admin", name="Anne Admin")
    member = _member_of(body, "member", name="Mark Lid")
    client = signed_in_client(console_app, admin.user)
    base = f"/organisations/{body.id}"
    page = client.get(base).get_data(as_text=True)
    assert "Mark Lid beheerder van de organisatie maken" in page and "Anne Admin lid maken" in page
    token = csrf_token(client, base)

    last = client.post(f"{base}/members/{admin.id}/role", data={"csrf_token": token, "role": "member"},
                       follow_redirects=True)
    assert LAST_ADMIN_NL in last.get_data(as_text=True)
    assert OrganisationUser.get(OrganisationUser.user == admin.user).role == "admin"

    promoted = client.post(f"{base}/members/{member.id}/role", data={"csrf_token": token, "role": "admin"})
    assert (promoted.status_code, promoted.headers["Location"]) == (302, base)
    assert OrganisationUser.get(OrganisationUser.user == member.user).role == "admin"
    stepped_down = client.post(f"{base}/members/{admin.id}/role", data={"csrf_token": token, "role": "member"},
                               follow_redirects=True).get_data(as_text=True)
    assert LAST_ADMIN_NL not in stepped_down and "Anne Admin beheerder van de organisatie maken" not in stepped_down
    assert OrganisationUser.get(OrganisationUser.user == admin.user).role == "member"
    # No longer an admin: the next change is refused, and the remaining admin is the last one.
    assert client.post(f"{base}/members/{member.id}/role", data={"csrf_token": token,
                                                                 "role": "member"}).status_code == 403

    history = signed_in_client(console_app, member.user).get(f"{base}/history").get_data(as_text=True)
    assert history.count("Rol van een lid gewijzigd") == 2
    assert (f"<li>E-mailadres: {admin.email_address}</li><li>Rol gewijzigd van Beheerder van de organisatie in Lid</li>"
            in history)
    roles = [(e.action, e.actor_name) for e in _events(body) if e.action == "member.role"]
    assert roles == [("member.role", admin.email_address)] * 2


def test_a_platform_admin_changes_roles_too(console_app, body, platform_admin):
    admin = _member_of(body, "admin")
    client = signed_in_client(console_app, platform_admin.user)
    base = f"/organisations/{body.id}"
    token = csrf_token(client, base)
    refused = client.post(f"{base}/members/{admin.id}/role", data={"csrf_token": token, "role": "member"},
                          follow_redirects=True)
    assert LAST_ADMIN_NL in refused.get_data(as_text=True)
    member = _member_of(body, "member")
    assert client.post(f"{base}/members/{member.id}/role", data={"csrf_token": token,
                                                                 "role": "admin"}).status_code == 302
    assert OrganisationUser.get(OrganisationUser.user == member.user).role == "admin"


def test_a_platform_admin_takes_a_service_out_and_both_histories_show_it(console_app, body, platform_admin):
    service = create_service(name="Parkeren")
    add_service(str(body.id), str(service.id))
    client = signed_in_client(console_app, platform_admin.user)
    base = f"/organisations/{body.id}"
    assert "Parkeren uit de organisatie halen" in client.get(base).get_data(as_text=True)
    token = csrf_token(client, base)
    out = client.post(f"{base}/services/{service.id}/remove", data={"csrf_token": token})
    assert (out.status_code, out.headers["Location"]) == (302, base)
    assert organisation_of(service.id) is None
    page = client.get(base).get_data(as_text=True)
    assert "Parkeren" not in page and "Nog geen diensten." in page

    history = client.get(f"{base}/history").get_data(as_text=True)
    assert "Dienst vertrokken" in history and "<li>Dienst was Parkeren</li>" in history
    left = [(e.action, e.actor_name, e.subject_id) for e in _events(body) if e.action == "service.leave"]
    assert left == [("service.leave", platform_admin.email_address, str(service.id))]
    moved = AuditEvent.get((AuditEvent.service_id == service.id) & (AuditEvent.action == "service.organisation")
                           & (AuditEvent.actor_name == platform_admin.email_address))
    assert (moved.before, moved.after) == ({"organisation": "Gemeente Utrecht"}, {"organisation": None})
    assert "Organisatie gewijzigd" in client.get(f"/services/{service.id}/history").get_data(as_text=True)

    again = client.post(f"{base}/services/{service.id}/remove", data={"csrf_token": token}, follow_redirects=True)
    assert again.status_code == 200 and len([e for e in _events(body) if e.action == "service.leave"]) == 1
    # A second click (or a colleague's) is told in the page's language that it is gone already.
    assert "Dat bestaat niet meer: iemand anders heeft het misschien net verwijderd" in again.get_data(as_text=True)


def test_a_member_of_another_organisation_gets_404_on_the_new_pages(console_app, body):
    service = create_service(name="Parkeren")
    add_service(str(body.id), str(service.id))
    target = _member_of(body, "member")
    other = create_organisation("Gemeente Zeist", "gemeente")
    outsider = _member_of(other, "admin")
    client = signed_in_client(console_app, outsider.user)
    token = csrf_token(client, f"/organisations/{other.id}")
    base = f"/organisations/{body.id}"
    assert client.get(f"{base}/settings").status_code == 404
    for path, data in ((f"{base}/settings", _settings(language="en")),
                       (f"{base}/members/{target.id}/role", {"role": "admin"}),
                       (f"{base}/services/{service.id}/remove", {}),
                       (f"{base}/services", {"service": "Parkeren"})):
        assert client.post(path, data={"csrf_token": token, **data}).status_code == 404, path
    # A member of this organisation named in another's address changes nothing there either.
    assert client.post(f"/organisations/{other.id}/members/{target.id}/role",
                       data={"csrf_token": token, "role": "admin"}).status_code == 302
    assert OrganisationUser.get(OrganisationUser.user == target.user).role == "member"
    assert organisation_of(service.id).id == body.id and Organisation.get_by_id(body.id).language == "nl"
