"""What the fault tests share: sending texts with the official client and waiting for their ends.

Every scenario asserts the same promise: each text answered 201 reaches a final status, none
reaches the gateway twice, none is lost.
"""
from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Sequence

from notifications_python_client.errors import HTTPError
from notifications_python_client.notifications import NotificationsAPIClient

from models.db import database, open_connection
from models.notification import Notification
from pipeline.domain.statuses import FINAL
from tests.conftest import wait_for
from tests.fake_gateway import FakeGateway

PHONE = "0612345678"


def send_texts(api: NotificationsAPIClient, template_id: str, count: int,
               between: Callable[[int], None] | None = None) -> tuple[list[str], list[HTTPError]]:
    """Send `count` texts one after another; (ids answered 201, errors answered instead).
    between(i) runs before the i-th send (faults are injected there)."""
    accepted, refused = [], []
    for i in range(count):
        if between is not None:
            between(i)
        try:
            accepted.append(api.send_sms_notification(PHONE, template_id, reference=f"fault-{i}")["id"])
        except HTTPError as error:
            refused.append(error)
    return accepted, refused


def statuses_of(ids: Iterable[str]) -> dict[str, str]:
    open_connection()  # a database restarted under the test drops this thread's connection too
    return {str(row.id): row.status for row in
            Notification.select(Notification.id, Notification.status).where(Notification.id.in_(list(ids)))}


def wait_until_final(ids: list[str], timeout: float) -> dict[str, str]:
    """Every id's status once all are final (fails the test on timeout, naming those that were not)."""
    def all_final() -> dict[str, str] | None:
        found = statuses_of(ids)
        return found if len(found) == len(ids) and all(s in FINAL for s in found.values()) else None

    try:
        return wait_for(all_final, timeout=timeout, interval=0.2)
    except AssertionError:
        found = statuses_of(ids)
        stuck = collections.Counter(found.get(i, "<missing>") for i in ids if found.get(i) not in FINAL)
        raise AssertionError(f"not final after {timeout}s: {dict(stuck)} of {len(ids)}") from None


def assert_each_sent_once(gateways: FakeGateway | Sequence[FakeGateway], ids: list[str]) -> None:
    """Each accepted text reached one of the gateways exactly once, and nothing else did."""
    sent: collections.Counter = collections.Counter()
    for gateway in [gateways] if isinstance(gateways, FakeGateway) else gateways:
        sent.update(gateway.references())
    assert sorted(sent) == sorted(ids), f"{len(set(ids) - set(sent))} never reached the gateway"
    assert [ref for ref, times in sent.items() if times > 1] == []


def make_unreadable(notification: Notification) -> None:
    """Give the notification a body that no longer decrypts, as after a SECRET_KEY change."""
    database.execute_sql('UPDATE "notification" SET "body" = %s WHERE "id" = %s'.replace("%s", database.obj.param),
                         ["v2:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", Notification.id.db_value(notification.id)])
