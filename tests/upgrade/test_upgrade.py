"""Upgrading in place from each supported older release (tests/upgrade/releases.py), on the suite's
database (SQLite, or PostgreSQL when DATABASE_URL names it): the release's own tree, venv, release
step and processes are given a world through its own doors; the current release step then upgrades
that database. Its schema must be a fresh install's, and everything the older release's API showed
must read back unchanged through the current API with the old keys, and show in the current console.
"""
from __future__ import annotations

import pytest

from pipeline.domain.recipients import written_phone_number
from tests.schema_shape import differences
from tests.upgrade.compare import changes
from tests.upgrade.releases import RELEASES
from tests.upgrade.upgrade_run import Upgrade
from tests.upgrade.world import JOB_ROWS


@pytest.fixture(params=RELEASES, ids=lambda release: release.version)
def upgraded(request: pytest.FixtureRequest, upgrades) -> Upgrade:
    return upgrades(request.param)


def test_the_older_release_holds_the_whole_world_it_was_given(upgraded):
    """What the other tests compare is all there: without it, an empty world would pass them."""
    before, world = upgraded.before, upgraded.world
    statuses = {n["id"]: n["status"] for key in ("live", "test", "other service")
                for n in before[f"notifications of the {key} key"]}
    assert {nid: statuses.get(nid) for nid in world.expected} == world.expected
    job_rows = [n for n in before["notifications of the live key"] if n["id"] not in world.expected]
    assert [n["status"] for n in job_rows] == ["delivered"] * JOB_ROWS
    assert len(before["notifications of the other service key"]) == 1
    versions = {t["name"]: t["version"] for t in before["templates of the live key"]}
    assert versions == {"Herinnering afspraak": 3, "Bevestiging": 2, "Besluit": 1}
    assert len(before["template versions of the live key"]) == 6
    assert sorted(t["content"] for t in before["received texts of the live key"]) == [
        "Graag een nieuwe brief", "Klopt mijn afspraak van dinsdag?"]
    assert [job["counts"]["delivered"] for job in before["jobs"]] == [JOB_ROWS]
    assert ("organisation" in before) == upgraded.release.organisations


def test_the_upgraded_schema_is_a_fresh_installs(upgraded, fresh_shape):
    assert {"service", "apikey", "templateversion", "notification", "receivedtext", "job"} <= set(fresh_shape)
    assert differences(fresh_shape, upgraded.shape) == []


def test_every_record_reads_back_unchanged_through_the_current_api_with_the_old_keys(upgraded):
    assert changes(upgraded.before, upgraded.after) == []


def test_the_current_console_shows_the_old_messages_the_job_and_the_received_texts(upgraded):
    before, shown = upgraded.before, upgraded.console
    for listed, report in (("live", "messages"), ("test", "test messages")):
        notifications = before[f"notifications of the {listed} key"]
        rows = {row["Bericht-ID"]: row for row in shown[report]}
        assert set(rows) == {n["id"] for n in notifications}, report
        for notification in notifications:
            # As the console shows a recipient: a phone number written one way, an email address as given (a
            # number starting with + behind the invisible mark that keeps a spreadsheet from reading a formula).
            recipient = (written_phone_number(notification["phone_number"]) if notification["phone_number"]
                         else notification["email_address"])
            if recipient:
                shown_recipient = rows[notification["id"]]["Ontvanger"].replace("\u200b", "")
                assert shown_recipient == recipient, rows[notification["id"]]
    assert "herinneringen.csv" in shown["job page"]
    for text in before["received texts of the live key"]:
        assert text["content"] in shown["conversations"]


def test_a_change_is_named_where_it_is():
    """The comparison the read-back rests on: a lost record, a changed or lost field, an order."""
    before = {"list": [{"id": "a", "status": "delivered"}, {"id": "b", "status": "sent"}], "name": "x", "n": [1]}
    assert changes(before, {**before, "added": 1}) == []
    assert changes(before, {"list": [{"id": "b", "status": "sent", "more": 1}, {"id": "a", "status": "failed"}],
                            "n": [1, 2]}) == [
        ".list[a].status: 'delivered' -> 'failed'", ".name: gone (was 'x')", ".n: [1] -> [1, 2]"]
    assert changes(before, {**before, "list": before["list"][::-1]}) == [".list: order ['a', 'b'] -> ['b', 'a']"]
    assert changes(before, {**before, "list": before["list"][:1]}) == [
        ".list: b gone (was {'id': 'b', 'status': 'sent'})"]
