"""The held counts (pipeline/stages/held_counts.py; read and folded by the throughput seam): kept by the
database as notifications are written, by every kind of write, equal at every moment to a count of the
rows; folded without changing a figure; and a database that held notifications before step 180 is
counted from the next day, its older days read from their rows."""
from __future__ import annotations

import datetime

import pytest

from core.dashboard import ChannelFigures, recent_figures
from models.api_key import KEY_TYPES
from models.db import database, utcnow
from models.held_count import HeldCount, HeldCountChange, HeldCountStart
from models.migrations import migrate
from models.notification import Notification
from models.service import Service
from pipeline.domain import statuses
from pipeline.infrastructure import throughput
from pipeline.stages import held_counts, retention, status_changes
from pipeline.stages.daily_rollup import counted_from_rows, held_counts as figures_held
from tests.factories import create_notification, create_service
from tests.private_databases import private_database, using

NOW = utcnow()
TODAY = NOW.date()
TOMORROW = TODAY + datetime.timedelta(days=1)
WEEK_AGO = TODAY - datetime.timedelta(days=7)


@pytest.fixture(autouse=True)
def _today() -> None:
    """Each test's own today: a run that crosses UTC midnight must not compare the code's day with the
    day this module was imported on."""
    global NOW, TODAY, TOMORROW, WEEK_AGO
    NOW = utcnow()
    TODAY = NOW.date()
    TOMORROW = TODAY + datetime.timedelta(days=1)
    WEEK_AGO = TODAY - datetime.timedelta(days=7)


def at(days_ago: int) -> datetime.datetime:
    return datetime.datetime.combine(TODAY - datetime.timedelta(days=days_ago), datetime.time(10))


def assert_counts_are_the_rows(service: Service) -> None:
    kept = throughput.seam().held_counts(service.id, WEEK_AGO, TOMORROW, KEY_TYPES)
    assert kept == counted_from_rows(service.id, WEEK_AGO, TOMORROW, KEY_TYPES)


def test_every_kind_of_write_moves_the_counts_with_the_rows():
    service = create_service(sms_retention_days=3, email_retention_days=3, letter_retention_days=3)
    made = [create_notification(service=service, created_at=at(days_ago), notification_type=kind, key_type=key_type)
            for days_ago in (0, 1, 5) for kind in ("sms", "email") for key_type in ("live", "test")]
    letter = create_notification(service=service, notification_type="letter", status="pending-virus-check")
    assert_counts_are_the_rows(service)

    status_changes.transition(made[0].id, statuses.SENDING)
    status_changes.transition_many([n.id for n in made[1:6]], statuses.SENDING)
    status_changes.transition_each(statuses.DELIVERED, [(n.id, {"billable_units": 2, "rate_multiplier": 1})
                                                  for n in made[:4]])
    status_changes.transition_many([made[4].id], statuses.PERMANENT_FAILURE, where={Notification.sent_by: None})
    assert_counts_are_the_rows(service)
    status_changes.transition(letter.id, statuses.CREATED)
    Notification.update(billable_units=3).where(Notification.id == letter.id).execute()  # as the letter stage
    assert_counts_are_the_rows(service)

    assert throughput.seam().fold_held_counts() > 0
    assert not HeldCountChange.select().exists()
    assert_counts_are_the_rows(service)
    # Five days ago is past the 3-day retention: its rows are deleted, and so are their counts.
    assert retention.purge_notifications(now=NOW).notifications == 4
    assert_counts_are_the_rows(service)
    throughput.seam().fold_held_counts()
    assert_counts_are_the_rows(service)
    assert not HeldCount.select().where(HeldCount.count == 0).exists()  # a kind come to zero is deleted


def test_todays_figures_follow_each_status_change_without_a_rollup():
    service = create_service()
    sent = create_notification(service=service, status="sending")
    assert recent_figures(service.id, NOW)["sms"] == ChannelFigures(sending=1)
    status_changes.transition(sent.id, statuses.DELIVERED)
    assert recent_figures(service.id, NOW)["sms"] == ChannelFigures(delivered=1)
    throughput.seam().fold_held_counts()
    assert recent_figures(service.id, NOW)["sms"] == ChannelFigures(delivered=1)


def test_a_deleted_services_counts_go_with_it_and_the_fold_skips_its_journal():
    kept, deleted = create_service(name="kept"), create_service(name="deleted")
    create_notification(service=kept, status="delivered")
    create_notification(service=deleted, status="delivered")
    throughput.seam().fold_held_counts()
    with database.atomic():
        Notification.delete().where(Notification.service == deleted.id).execute()
        Service.delete().where(Service.id == deleted.id).execute()
    create_notification(service=kept, status="sending")
    throughput.seam().fold_held_counts()
    assert {row.service_id for row in HeldCount.select()} == {kept.id}
    assert_counts_are_the_rows(kept)


def test_a_database_with_notifications_before_step_180_is_counted_from_the_next_day():
    with private_database("held_counts") as db, using(db):
        migrate(until=165)
        service = create_service()
        create_notification(service=service, status="delivered", created_at=at(0))
        create_notification(service=service, status="sending", created_at=at(2))
        migrate()
        assert held_counts.counted_from() == TOMORROW
        assert HeldCountStart.select().count() == 1
        # Today is not counted (its rows came before the triggers): read from the rows, as every day before.
        assert recent_figures(service.id, NOW)["sms"] == ChannelFigures(sending=1, delivered=1)
        assert figures_held(service.id, WEEK_AGO, TOMORROW) == counted_from_rows(service.id, WEEK_AGO, TOMORROW,
                                                                                  KEY_TYPES)


def test_a_new_database_is_counted_from_the_start():
    with private_database("held_counts_new") as db, using(db):
        migrate()
        assert held_counts.counted_from() == datetime.date(2000, 1, 1)
