"""What a service's dashboard shows: the last days' messages per channel and status group, jobs under
way, sends still to come and the latest received texts. Every read is bounded by an index range (the
daily figures of core/daily_figures.py, the job table's (service, created_at), the notifications'
(status, created_at) and the received texts' (service, created_at, id)), however many rows there are.
"""
from __future__ import annotations

import datetime
import zoneinfo
from dataclasses import dataclass, field

from core.daily_figures import counts_since
from models.job import IN_PROGRESS, PENDING, SCHEDULED, Job
from models.notification import Notification, ReceivedText
from models.service import CHANNELS, DEFAULT_TIME_ZONE
from pipeline.domain import statuses

DAYS = 7  # today and the six days before it, on the service's clock
SHOWN_KEY_TYPES = ("live", "team")  # what was really sent: test keys' messages never leave
LISTED = 5  # scheduled sends and received texts listed
# A status group per status; cancelled messages were never sent and are in none.
GROUPS: dict[str, tuple[str, ...]] = {
    "sending": (statuses.CREATED, statuses.SENDING, statuses.PENDING, statuses.PENDING_VIRUS_CHECK),
    "delivered": (statuses.DELIVERED, statuses.SENT, statuses.RETURNED_LETTER),
    "failed": statuses.FAILURES,
}
GROUP_OF = {status: group for group, members in GROUPS.items() for status in members}


@dataclass
class ChannelFigures:
    sending: int = 0
    delivered: int = 0
    failed: int = 0

    @property
    def total(self) -> int:
        return self.sending + self.delivered + self.failed

    @property
    def failure_rate(self) -> float:
        """Failed over all sent (0 when nothing was sent), a fraction."""
        return self.failed / self.total if self.total else 0.0


@dataclass
class Upcoming:
    notifications: list[Notification] = field(default_factory=list)  # the first few, soonest first
    notification_count: int = 0
    jobs: list[Job] = field(default_factory=list)


def first_day(now: datetime.datetime, time_zone: str = DEFAULT_TIME_ZONE) -> datetime.date:
    """The first of the DAYS days the dashboard counts: today on the service's clock, and the days before."""
    today = now.replace(tzinfo=datetime.UTC).astimezone(zoneinfo.ZoneInfo(time_zone)).date()
    return today - datetime.timedelta(days=DAYS - 1)


def recent_figures(service_id: object, now: datetime.datetime,
                   time_zone: str = DEFAULT_TIME_ZONE) -> dict[str, ChannelFigures]:
    """Messages created in the last DAYS days of the service's time zone (today included, from its
    midnight), per channel and status group."""
    midnight = datetime.datetime.combine(first_day(now, time_zone), datetime.time(), zoneinfo.ZoneInfo(time_zone))
    start = midnight.astimezone(datetime.UTC).replace(tzinfo=None)
    counts = counts_since(service_id, start, now, SHOWN_KEY_TYPES)
    figures = {channel: ChannelFigures() for channel in CHANNELS}
    for (channel, status), n in counts.items():
        group = GROUP_OF.get(status)
        if group and channel in figures:
            setattr(figures[channel], group, getattr(figures[channel], group) + n)
    return figures


def jobs_in_progress(service_id: object) -> list[Job]:
    """Jobs being turned into notifications or about to be, oldest first."""
    return list(Job.select(Job.id, Job.original_file_name, Job.notification_count, Job.rows_processed, Job.status,
                           Job.created_at)
                .where((Job.service == service_id) & Job.status.in_((PENDING, IN_PROGRESS)))
                .order_by(Job.created_at))


def upcoming(service_id: object, now: datetime.datetime) -> Upcoming:
    """Messages and jobs scheduled for later. A scheduled message waits in `created`: read off the
    (status, created_at) index, whose `created` range holds only messages not yet handed on."""
    waiting = ((Notification.status == statuses.CREATED) & (Notification.service == service_id)
               & Notification.key_type.in_(SHOWN_KEY_TYPES) & (Notification.scheduled_for > now))
    first = list(Notification.select(Notification.id, Notification.notification_type, Notification.to,
                                     Notification.scheduled_for)
                 .where(waiting).order_by(Notification.scheduled_for).limit(LISTED))
    count = len(first) if len(first) < LISTED else Notification.select().where(waiting).count()
    jobs = list(Job.select(Job.id, Job.original_file_name, Job.notification_count, Job.scheduled_for)
                .where((Job.service == service_id) & (Job.status == SCHEDULED)).order_by(Job.scheduled_for))
    return Upcoming(notifications=first, notification_count=count, jobs=jobs)


def latest_received_texts(service_id: object) -> list[ReceivedText]:
    return list(ReceivedText.select().where(ReceivedText.service == service_id)
                .order_by(ReceivedText.created_at.desc(), ReceivedText.id.desc()).limit(LISTED))
