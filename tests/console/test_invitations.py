"""A waiting invitation sent again or withdrawn from the team page (the rules are core/service_users.py's),
confirmed on the page; the invitation email's validity on the service's clock, as the team page shows it;
the go-live checklist naming the invitation it waits for."""
from __future__ import annotations

import datetime
import re
import zoneinfo

from core.service_users import invite_member
from models.audit import AuditEvent
from models.db import utcnow
from models.notification import Notification
from models.platform import PLATFORM_SERVICE_ID
from models.service import ReplyToAddress
from models.user import Invitation
from tests.console.browser import path_of_link
from tests.console.service_pages import amsterdam, csrf_token, signed_in_client
from tests.console.users import create_console_user
from tests.factories import create_sample_template, create_service


def _emails_to(address: str) -> list[str]:
    rows = (Notification.select().where((Notification.service == PLATFORM_SERVICE_ID) & (Notification.to == address))
            .order_by(Notification.created_at))
    return [row.body for row in rows]


def _team(console_app, service):
    manager = create_console_user(service=service, permissions=["manage_service"])
    client = signed_in_client(console_app, manager.user)
    return manager, client


def _flash(html: str) -> list[str]:
    return re.findall(r'<p class="utrecht-alert utrecht-alert--ok">([^<]*)</p>', html)


def test_the_invitation_email_is_valid_until_a_time_on_the_services_clock(console_app):
    service = create_service(name="Parkeren", time_zone="Europe/Amsterdam")
    manager, client = _team(console_app, service)
    invitation = invite_member(str(service.id), "collega@example.gov.nl", ["view_activity"], manager.user)
    [body] = _emails_to("collega@example.gov.nl")
    local = invitation.expires_at.replace(tzinfo=datetime.UTC).astimezone(zoneinfo.ZoneInfo("Europe/Amsterdam"))
    assert local.tzname() in ("CET", "CEST")
    # Written as the console writes a moment ("9 dec 2026 15:36 CET"), and the team page shows the same words.
    written = amsterdam(invitation.expires_at)
    assert re.fullmatch(r"\d{1,2} [a-z]{3} \d{4} \d\d:\d\d CES?T", written)
    assert f"(geldig tot {written})" in body
    assert "UTC" not in body
    page = client.get(f"/services/{service.id}/users").get_data(as_text=True)
    assert written in page


def test_a_waiting_invitation_is_sent_again_with_a_new_link_and_the_old_one_stops_working(console_app):
    service = create_service(name="Parkeren")
    manager, client = _team(console_app, service)
    invitation = invite_member(str(service.id), "collega@example.gov.nl", ["view_activity"], manager.user)
    Invitation.update(expires_at=utcnow() - datetime.timedelta(minutes=1)).where(
        Invitation.id == invitation.id).execute()  # expired: it can still be sent again
    team = f"/services/{service.id}/users"
    page = client.get(team).get_data(as_text=True)
    assert "collega@example.gov.nl" in page and "verlopen op" in page
    resent = client.post(f"{team}/invitations/{invitation.id}/resend", data={"csrf_token": csrf_token(client, team)},
                         follow_redirects=True).get_data(as_text=True)
    assert _flash(resent) == ["Uitnodiging opnieuw verstuurd naar collega@example.gov.nl, met een nieuwe link die "
                              "2 dagen geldig is. De eerder verstuurde link werkt niet meer."]
    first, second = _emails_to("collega@example.gov.nl")
    old_link, new_link = path_of_link(first, "invitation"), path_of_link(second, "invitation")
    assert old_link != new_link
    assert "U bent uitgenodigd" not in console_app.test_client().get(old_link).get_data(as_text=True)
    assert "U bent uitgenodigd voor Parkeren." in console_app.test_client().get(new_link).get_data(as_text=True)
    assert Invitation.get_by_id(invitation.id).expires_at > utcnow() + datetime.timedelta(days=1)
    assert "wacht op acceptatie, geldig tot" in resent
    assert [e.action for e in AuditEvent.select().where(AuditEvent.service_id == service.id)
            .order_by(AuditEvent.created_at)] == ["member.invite", "member.invite_resend"]


def test_a_waiting_invitation_is_withdrawn_and_its_link_stops_working(console_app):
    service = create_service(name="Parkeren")
    manager, client = _team(console_app, service)
    invitation = invite_member(str(service.id), "collega@example.gov.nl", ["view_activity"], manager.user)
    link = path_of_link(_emails_to("collega@example.gov.nl")[0], "invitation")
    team = f"/services/{service.id}/users"
    withdrawn = client.post(f"{team}/invitations/{invitation.id}/withdraw",
                            data={"csrf_token": csrf_token(client, team)}, follow_redirects=True).get_data(as_text=True)
    assert _flash(withdrawn) == ["Uitnodiging aan collega@example.gov.nl ingetrokken: de link werkt niet meer"]
    assert "notify-invitations" not in withdrawn  # no invitation waits any more
    assert Invitation.get_or_none(Invitation.id == invitation.id) is None
    assert "U bent uitgenodigd" not in console_app.test_client().get(link).get_data(as_text=True)
    event = AuditEvent.get((AuditEvent.service_id == service.id) & (AuditEvent.action == "member.invite_withdraw"))
    assert event.before["email_address"] == "collega@example.gov.nl"
    # Gone: a second withdrawal (another tab) and a resend find nothing.
    again = client.post(f"{team}/invitations/{invitation.id}/withdraw", data={"csrf_token": csrf_token(client, team)})
    assert again.status_code == 404


def test_another_services_invitation_cannot_be_sent_again_or_withdrawn(console_app):
    mine, theirs = create_service(name="Mijn dienst"), create_service(name="Hun dienst")
    _, client = _team(console_app, mine)
    stranger = create_console_user(service=theirs, permissions=["manage_service"])
    invitation = invite_member(str(theirs.id), "iemand@example.gov.nl", ["view_activity"], stranger.user)
    team = f"/services/{mine.id}/users"
    for action in ("resend", "withdraw"):
        response = client.post(f"{team}/invitations/{invitation.id}/{action}",
                               data={"csrf_token": csrf_token(client, team)})
        assert response.status_code == 404
    assert len(_emails_to("iemand@example.gov.nl")) == 1
    assert Invitation.get_by_id(invitation.id).accepted_at is None


def test_an_invitation_sent_is_confirmed_and_the_go_live_checklist_says_it_waits_for_it(console_app):
    service = create_service(name="Parkeren", trial_mode=True)
    manager, client = _team(console_app, service)
    ReplyToAddress.create(service=service, email_address="loket@example.gov.nl", is_default=True)
    create_sample_template(service=service)
    invite = f"/services/{service.id}/users/invite"
    form = {"csrf_token": csrf_token(client, invite), "email_address": "Collega@example.gov.nl",
            "permissions": ["view_activity"]}
    sent = client.post(invite, data=form, follow_redirects=True).get_data(as_text=True)
    assert _flash(sent) == ["Uitnodiging verstuurd naar collega@example.gov.nl. Die wordt teamlid zodra de "
                            "uitnodiging is geaccepteerd."]
    page = client.get(f"/services/{service.id}/service-settings/request-to-go-live").get_data(as_text=True)
    item = re.search(r'<li data-item="team_member">(.*?)</li>', page, re.S)[1]
    words = " ".join(re.sub(r"<[^>]+>", " ", item).split())
    assert words == ("Een ander teamlid dan uzelf: wacht . Uitnodiging verstuurd naar collega@example.gov.nl, wacht "
                     "tot die wordt geaccepteerd. De uitnodiging opnieuw versturen")
    assert f'href="/services/{service.id}/users"' in item
