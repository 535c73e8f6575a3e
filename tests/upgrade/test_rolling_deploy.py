"""Rolling deploys (CONTRIBUTING.md): the release before the current one keeps working on the schema
the current release step left, as its processes do for the minutes a rolling deploy runs them beside
the new ones. Its web and worker processes, on the database upgraded from a world they made, send a
text, an email and a letter, read them (one and the list) and what was there before, take the
simulated provider's receipts to delivered, and post the service's status callbacks; what they
wrote reads back through the current API."""
from __future__ import annotations

import time

from tests.contract.test_python_client_letters import ADDRESS
from tests.test_callbacks import Receiver
from tests.upgrade.compare import changes
from tests.upgrade.deployment import CURRENT
from tests.upgrade.releases import PREVIOUS
from tests.upgrade.world import FINAL_SECONDS, Operator, every_notification

TOKEN = "rolling-deploy-callback-token"
FINAL = {"sms": "delivered", "email": "delivered", "letter": "received"}


def _final(client, sent: dict[str, str]) -> dict[str, str]:
    deadline = time.monotonic() + FINAL_SECONDS
    while True:
        statuses = {kind: client.get_notification_by_id(nid)["status"] for kind, nid in sent.items()}
        if statuses == FINAL or time.monotonic() > deadline:
            return statuses
        time.sleep(0.5)


def _callbacks(receiver: Receiver, ids: set[str]) -> dict[str, dict]:
    deadline = time.monotonic() + FINAL_SECONDS
    while True:
        posted = {request.json["id"]: request for request in list(receiver.requests)}
        if ids <= set(posted) or time.monotonic() > deadline:
            return {nid: {"status": posted[nid].json["status"], "authorization": posted[nid].headers["Authorization"]}
                    for nid in ids if nid in posted}
        time.sleep(0.2)


def test_the_previous_releases_web_and_worker_keep_working_on_the_upgraded_schema(upgrades):
    upgrade = upgrades(PREVIOUS)
    install, world, before = upgrade.install, upgrade.world, upgrade.before
    receiver = Receiver()
    try:
        with install.running(upgrade.tree, console=False):
            old = Operator(install, upgrade.tree)
            old.admin("PUT", f"/services/{world.service_id}/callbacks/delivery-status",
                      {"url": receiver.url, "bearer_token": TOKEN})
            live = old.client(world.keys["live"])
            sent = {
                "sms": live.send_sms_notification("+31611112222", world.templates["sms"], {"name": "Rolf"}, "r-1"),
                "email": live.send_email_notification("rolf@example.nl", world.templates["email"],
                                                      {"name": "Rolf", "ref": "R-1"}, "r-2"),
                "letter": live.send_letter_notification(world.templates["letter"], {**ADDRESS, "name": "R. Rol"},
                                                        "r-3"),
            }
            ids = {kind: answer["id"] for kind, answer in sent.items()}

            assert _final(live, ids) == FINAL
            listed = {n["id"] for n in every_notification(live)}
            assert set(ids.values()) | set(before["each notification of the live key"]) == listed
            earlier = before["each notification of the live key"]
            assert changes(earlier, {nid: live.get_notification_by_id(nid) for nid in earlier}) == []
            assert changes(before["templates of the live key"], live.get_all_templates()["templates"]) == []
            assert _callbacks(receiver, {ids["sms"], ids["email"]}) == {
                ids[kind]: {"status": "delivered", "authorization": f"Bearer {TOKEN}"} for kind in ("sms", "email")}

        with install.running(CURRENT, worker=False, console=False):
            current = Operator(install, CURRENT).client(world.keys["live"])
            assert {kind: current.get_notification_by_id(nid)["status"] for kind, nid in ids.items()} == FINAL
    finally:
        receiver.close()
