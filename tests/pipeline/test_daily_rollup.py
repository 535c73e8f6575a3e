"""The daily rollup: closed days summed once they can no longer change, and the dashboard's and the usage
page's figures the same whether a day is read from its notifications, its rollup or the purge's counts."""
from __future__ import annotations

import datetime

import pytest

from core.dashboard import ChannelFigures, recent_figures
from core.usage import LetterUsage, SmsUsage, monthly_usage
from models.daily_rollup import DailyStatusCount, RolledUpDay
from models.db import utcnow
from models.notification import Notification
from pipeline.stages import daily_rollup, retention
from tests.factories import create_notification, create_service

NOW = utcnow()


@pytest.fixture(autouse=True)
def _now() -> None:
    """Each test's own moment: a run that crosses UTC midnight must not compare the code's day with the
    day this module was imported on."""
    global NOW
    NOW = utcnow()


def at(days_ago: int, hour: int = 12) -> datetime.datetime:
    return datetime.datetime.combine(NOW.date() - datetime.timedelta(days=days_ago), datetime.time(hour))


def _sent_week(service):
    """A week of sends: today, yesterday and five days ago, in every status group, and a test key's."""
    made = []
    for days_ago in (0, 1, 5):
        made += [create_notification(service=service, status="delivered", billable_units=2, rate_multiplier=1,
                                     created_at=at(days_ago)),
                 create_notification(service=service, status="permanent-failure", billable_units=1,
                                     rate_multiplier=1, created_at=at(days_ago, 23)),
                 create_notification(service=service, notification_type="email", status="sending",
                                     billable_units=0, created_at=at(days_ago, 0)),
                 create_notification(service=service, notification_type="letter", status="delivered",
                                     billable_units=3, created_at=at(days_ago)),
                 create_notification(service=service, notification_type="letter", status="cancelled",
                                     billable_units=1, created_at=at(days_ago)),
                 create_notification(service=service, key_type="test", status="delivered", billable_units=1,
                                     created_at=at(days_ago))]
    return made


WEEK = {"sms": ChannelFigures(delivered=3, failed=3), "email": ChannelFigures(sending=3),
        "letter": ChannelFigures(delivered=3)}


def test_figures_are_the_same_from_the_rows_the_rollup_and_the_purge():
    service = create_service(sms_retention_days=3, letter_retention_days=3, email_retention_days=3)
    _sent_week(service)
    usage_before = monthly_usage(service.id, NOW.year, NOW.month) if at(5).month == NOW.month else None
    assert recent_figures(service.id, NOW) == WEEK

    assert daily_rollup.roll_up(now=NOW) == 5  # five days ago up to yesterday; today is not closed
    assert {r.day for r in RolledUpDay.select()} == {NOW.date() - datetime.timedelta(days=d) for d in range(1, 6)}
    assert recent_figures(service.id, NOW) == WEEK

    # Five days ago is past the 3-day retention: purged, its counts kept; the figures stay.
    assert retention.purge_notifications(now=NOW).notifications == 6
    assert recent_figures(service.id, NOW) == WEEK
    # The days not settled are summed again, but none of their figures changed: none is written.
    assert daily_rollup.roll_up(now=NOW) == 0
    assert recent_figures(service.id, NOW) == WEEK
    if usage_before is not None:
        assert monthly_usage(service.id, NOW.year, NOW.month) == usage_before


def test_a_day_purged_before_any_rollup_is_read_from_the_purges_counts():
    service = create_service(sms_retention_days=3, letter_retention_days=3, email_retention_days=3)
    _sent_week(service)
    retention.purge_notifications(now=NOW)
    assert recent_figures(service.id, NOW) == WEEK
    daily_rollup.roll_up(now=NOW)
    assert recent_figures(service.id, NOW) == WEEK


def test_usage_is_priced_the_same_from_rows_and_rollup():
    service = create_service()
    day = NOW.date().replace(day=1)
    if day == NOW.date():  # the first of the month: only today, which is never rolled up
        day = day - datetime.timedelta(days=1)
    start = datetime.datetime.combine(day, datetime.time(9))
    create_notification(service=service, status="delivered", billable_units=2, rate_multiplier=3, created_at=start)
    create_notification(service=service, notification_type="letter", status="delivered", billable_units=3,
                        postage="first", created_at=start)
    create_notification(service=service, notification_type="letter", status="validation-failed", billable_units=3,
                        created_at=start)
    create_notification(service=service, key_type="test", status="delivered", billable_units=1, created_at=start)
    before = monthly_usage(service.id, day.year, day.month)
    assert before.sms == SmsUsage(notifications=1, billable_units=6, cost_in_pounds=0.1362)
    assert before.letter == LetterUsage(notifications=1, billable_sheets=3, cost_in_pounds=1.32)
    daily_rollup.roll_up(now=NOW)
    assert RolledUpDay.get(RolledUpDay.day == day)
    Notification.delete().execute()  # what is shown now comes from the rollup alone
    assert monthly_usage(service.id, day.year, day.month) == before


def test_an_unsettled_day_follows_late_receipts_a_settled_one_is_never_read_again():
    service = create_service()
    late = create_notification(service=service, status="sending", created_at=at(1))
    old = create_notification(service=service, status="delivered", created_at=at(daily_rollup.SETTLE_AFTER_DAYS + 1))
    daily_rollup.roll_up(now=NOW)
    assert recent_figures(service.id, NOW)["sms"] == ChannelFigures(sending=1, delivered=1)
    settled = {r.day: r.settled for r in RolledUpDay.select()}
    assert settled[late.created_at.date()] is False and settled[old.created_at.date()] is True

    assert daily_rollup.roll_up(now=NOW) == 0  # nothing changed: no day written
    Notification.update(status="delivered").where(Notification.id == late.id).execute()
    assert recent_figures(service.id, NOW)["sms"] == ChannelFigures(sending=1, delivered=1)  # until the next run
    assert daily_rollup.roll_up(now=NOW) == 1  # the day that changed, alone
    assert recent_figures(service.id, NOW)["sms"] == ChannelFigures(delivered=2)

    # A settled day is not summed again: a change to its rows (none is possible through the transition
    # table once settled, but here made by hand) shows that the run did not read them.
    Notification.update(status="permanent-failure").where(Notification.id == old.id).execute()
    daily_rollup.roll_up(now=NOW)
    assert DailyStatusCount.get(DailyStatusCount.day == old.created_at.date()).status == "delivered"


def test_days_without_notifications_are_rolled_up_empty_and_services_without_any_are_skipped():
    quiet, busy = create_service(name="quiet"), create_service(name="busy")
    create_notification(service=busy, status="delivered", created_at=at(3))
    assert daily_rollup.roll_up(now=NOW) == 3
    assert not RolledUpDay.select().where(RolledUpDay.service == quiet.id).exists()
    assert recent_figures(busy.id, NOW)["sms"] == ChannelFigures(delivered=1)
    assert recent_figures(quiet.id, NOW)["sms"] == ChannelFigures()


def test_the_periodic_job_rolls_up_every_hour():
    from workers.periodic import SCHEDULE, roll_up_days

    assert ("roll-up-days", 3600, roll_up_days) in SCHEDULE
    service = create_service()
    create_notification(service=service, status="delivered", created_at=at(1))
    roll_up_days.fn()
    assert [(r.day, r.settled) for r in RolledUpDay.select()] == [(at(1).date(), False)]


def test_the_dashboards_week_starts_at_midnight_on_the_services_clock():
    now = datetime.datetime(2026, 1, 15, 12, 0)  # 13:00 in Amsterdam (CET), 07:00 in New York (EST)
    amsterdam, new_york = create_service(time_zone="Europe/Amsterdam"), create_service(time_zone="America/New_York")
    for service in (amsterdam, new_york):
        for created_at in (datetime.datetime(2026, 1, 8, 22, 30),  # 8 Jan 23:30 CET: before Amsterdam's week
                           datetime.datetime(2026, 1, 8, 23, 30),  # 9 Jan 00:30 CET: Amsterdam's first day
                           datetime.datetime(2026, 1, 9, 4, 0),  # 8 Jan 23:00 EST: before New York's week
                           datetime.datetime(2026, 1, 9, 6, 0),  # 9 Jan 01:00 EST: New York's first day
                           datetime.datetime(2026, 1, 15, 11, 0)):  # today everywhere
            create_notification(service=service, status="delivered", created_at=created_at)
    for rolled_up in (False, True):
        # Per UTC day (9 to 15 January) the week would hold 3 of them: each zone's own midnight decides.
        assert recent_figures(amsterdam.id, now, "Europe/Amsterdam")["sms"] == ChannelFigures(delivered=4), rolled_up
        assert recent_figures(new_york.id, now, "America/New_York")["sms"] == ChannelFigures(delivered=2), rolled_up
        daily_rollup.roll_up(now=now)
