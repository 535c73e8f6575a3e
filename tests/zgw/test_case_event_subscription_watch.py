"""Whether each service's subscription at Open Notificaties still holds, checked every hour by the scheduler's
job (not only when a member asks): the last result and when it was seen kept, shown on the link's page in
Dutch, counted on /metrics (an alert watches it); a run bounded in time, those checked longest ago first;
a check never puts back an abonnement a re-subscription replaced meanwhile."""
from __future__ import annotations

import datetime
import itertools

import requests

from models.case_event import CaseEventLink
from models.db import utcnow
from pipeline.domain import case_events as domain
from pipeline.stages.case_events import subscription, watch
from tests.factories import create_service
from tests.zgw.fakes.common import zgw_token
from tests.zgw.linked import link
from workers.case_events import check_case_event_subscriptions

STATE = "Toestand Ontbreekt: Open Notificaties kent het niet (antwoord: HTTP 404)"
HOURLY = ("Deze dienst controleert elk uur vanzelf of het abonnement nog staat; met Abonnement controleren gebeurt "
          "dat meteen.")


def _checked_long_ago(*links: CaseEventLink, hours: float = 2) -> None:
    for linked in links:
        CaseEventLink.update(subscription_checked_at=utcnow() - datetime.timedelta(hours=hours)).where(
            CaseEventLink.id == linked.id).execute()


def _removed_at_open_notificaties(zgw, linked: CaseEventLink) -> None:
    """Someone removes the abonnement in Open Notificaties' admin."""
    answer = requests.delete(linked.subscription_url, timeout=10,
                             headers={"Authorization": zgw_token(zgw.nrc_client_id, zgw.nrc_secret)})
    assert answer.status_code == 204, answer.text


def test_the_hourly_check_keeps_whether_each_subscription_holds_and_shows_it(client, zgw, live_server):
    holding, lost = create_service(), create_service()
    kept, gone = link(zgw, holding), link(zgw, lost)
    _removed_at_open_notificaties(zgw, gone)
    _checked_long_ago(kept, gone)
    before = utcnow()

    check_case_event_subscriptions()  # as the worker runs the scheduler's message

    kept, gone = CaseEventLink.get_by_id(kept.id), CaseEventLink.get_by_id(gone.id)
    assert (kept.subscription_state, gone.subscription_state) == ("holds", "missing")
    assert gone.subscription_detail == {"status": 404, "code": "not_found"}
    assert kept.subscription_checked_at >= before - datetime.timedelta(seconds=1)
    assert gone.subscription_checked_at >= before - datetime.timedelta(seconds=1)
    assert "Toestand Staat" in _settings_page(holding)
    page = _settings_page(lost)
    assert STATE in page and HOURLY in page and "Laatst gecontroleerd" in page

    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'notify_case_event_subscriptions{state="missing"} 1.0' in metrics
    assert 'notify_case_event_subscriptions{state="holds"} 1.0' in metrics
    assert 'notify_case_event_subscriptions{state="unreachable"} 0.0' in metrics


def test_open_notificaties_down_is_kept_as_unreachable(zgw, live_server):
    service = create_service()
    linked = link(zgw, service)
    _checked_long_ago(linked)
    zgw.take_down("nrc")

    check_case_event_subscriptions()

    assert CaseEventLink.get_by_id(linked.id).subscription_state == domain.SUBSCRIPTION_UNREACHABLE
    assert "Toestand Open Notificaties was niet bereikbaar (antwoord: HTTP 503)" in _settings_page(service)


def test_a_run_is_bounded_in_time_and_the_next_begins_where_it_stopped(zgw, live_server):
    first, second, recent = (link(zgw, create_service()) for _ in range(3))
    _checked_long_ago(first, hours=3)
    _checked_long_ago(second, hours=2)
    _checked_long_ago(recent, hours=0.5)  # a member checked it half an hour ago
    now = utcnow()
    assert [found.id for found in watch.due(now)] == [first.id, second.id]

    # Its time is up after the first check: the one checked longest ago.
    assert watch.check_due(now, until=1, clock=itertools.count().__next__) == {"holds": 1}
    assert CaseEventLink.get_by_id(first.id).subscription_checked_at > now - datetime.timedelta(minutes=1)
    assert [found.id for found in watch.due(utcnow())] == [second.id]
    assert watch.check_due(utcnow(), until=float("inf")) == {"holds": 1}
    assert watch.due(utcnow()) == []


def test_a_check_never_puts_back_an_abonnement_replaced_meanwhile(zgw, live_server):
    service = create_service()
    linked = link(zgw, service)
    read_before = CaseEventLink.get_by_id(linked.id)
    replaced = CaseEventLink.get_by_id(link(zgw, service).id)  # a member subscribed again meanwhile
    assert replaced.subscription_url != read_before.subscription_url

    found = subscription.check(read_before, subscription.callback_url(read_before), service.name)
    assert found.state == domain.SUBSCRIPTION_MISSING  # the old abonnement was removed
    assert not subscription.keep(read_before, found, checked_url=read_before.subscription_url)
    now = CaseEventLink.get_by_id(linked.id)
    assert (now.subscription_url, now.subscription_state) == (replaced.subscription_url, "holds")


def test_the_check_is_scheduled_hourly():
    from workers.periodic import SCHEDULE

    assert ("check-case-event-subscriptions", 3600, check_case_event_subscriptions) in SCHEDULE


def _settings_page(service) -> str:
    from console import app as console_app
    from tests.console.service_pages import page_text, signed_in_client
    from tests.console.users import create_console_user

    member = signed_in_client(console_app, create_console_user(service=service, permissions=["manage_service"]).user)
    return page_text(member.get(f"/services/{service.id}/service-settings/case-events"))
