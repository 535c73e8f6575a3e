"""A world made on a running release through its own doors (its CLI, admin API, v2 API with the
official client, provider webhook and console), and read back through the API of whichever release
runs later: what an upgrade must keep."""
from __future__ import annotations

import io
import time
from dataclasses import dataclass, field
from typing import Any

import requests
from notifications_python_client.authentication import create_jwt_token
from notifications_python_client.notifications import NotificationsAPIClient

from tests.contract.test_python_client_letters import ADDRESS, a_pdf
from tests.upgrade.console_session import Account, ConsoleSession
from tests.upgrade.deployment import Install, Tree
from tests.upgrade.patience import PatientClient, patiently

PERMISSIONS = "email,sms,letter,international_sms,inbound_sms"
INBOUND_NUMBER = "+3197010000123"
FAILS_FOR_GOOD = "+4917700900002"  # ends 7700900002: the simulated provider fails it for good (its docstring)
JOB_ROWS = 5
FINAL_SECONDS = 120


@dataclass
class World:
    service_id: str = ""
    keys: dict[str, str] = field(default_factory=dict)  # name -> the whole key string a client takes
    templates: dict[str, str] = field(default_factory=dict)  # channel -> id
    expected: dict[str, str] = field(default_factory=dict)  # notification id -> its final status on the wire
    job_id: str = ""
    organisation_id: str | None = None
    account: Account | None = None  # the console's platform admin who sent the job


class Operator:
    """Someone running `tree` on `install`, through its doors."""

    def __init__(self, install: Install, tree: Tree) -> None:
        self.install, self.tree = install, tree

    def cli(self, *args: str) -> Any:
        return self.install.cli(self.tree, *args)

    def admin(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = patiently(lambda: requests.request(
            method, f"{self.install.base_url}/admin{path}", json=body, timeout=60,
            headers={"Authorization": f"Bearer {create_jwt_token(self.install.admin_client_secret, 'notify-admin')}"}))
        assert response.status_code in (200, 201), \
            f"{self.tree.name}: {method} /admin{path}: {response.status_code} {response.text[:2000]}"
        return response.json()

    def client(self, key: str) -> NotificationsAPIClient:
        return PatientClient(key, base_url=self.install.base_url)

    def text_received(self, sender: str, message: str, provider_id: str) -> None:
        """A text to the service's inbound number, as the simulated gateway posts it."""
        response = patiently(lambda: requests.post(
            f"{self.install.base_url}/providers/simulated/inbound-sms", timeout=30,
            json={"to": INBOUND_NUMBER, "from": sender, "message": message, "id": provider_id},
            headers={"Authorization": f"Bearer {self.install.provider_webhook_token}"}))
        assert response.status_code == 200, f"{self.tree.name}: inbound text: {response.status_code} {response.text}"


def build_world(operator: Operator, *, organisations: bool) -> World:
    world = World()
    _services_and_keys(operator, world)
    _templates(operator, world)
    _sends(operator, world)
    operator.text_received("+31612345678", "Klopt mijn afspraak van dinsdag?", "sim-in-1")
    operator.text_received("+31687654321", "Graag een nieuwe brief", "sim-in-2")
    _bulk_job(operator, world)
    if organisations:
        organisation = operator.cli("create-organisation", "--name", "Gemeente Oudebrug", "--kind", "gemeente")
        world.organisation_id = organisation["id"]
        operator.admin("POST", f"/organisations/{world.organisation_id}/services", {"service_id": world.service_id})
    wait_until_final(operator, world)
    return world


def _services_and_keys(operator: Operator, world: World) -> None:
    service = operator.cli("create-service", "--name", "Gemeente Oudebrug", "--live", "--permissions", PERMISSIONS)
    world.service_id = service["id"]
    world.keys["live"] = operator.cli("create-api-key", "--service-id", world.service_id, "--name", "live",
                                      "--key-type", "live")["key"]
    for kind in ("team", "test"):
        world.keys[kind] = operator.admin("POST", f"/services/{world.service_id}/api-keys",
                                          {"name": kind, "key_type": kind})["key"]
    other = operator.admin("POST", "/services", {"name": "Waterschap Proef"})  # in trial mode
    world.keys["other service"] = operator.admin("POST", f"/services/{other['id']}/api-keys",
                                                 {"name": "proef", "key_type": "test"})["key"]
    operator.admin("POST", f"/services/{world.service_id}/inbound-number", {"number": INBOUND_NUMBER})
    world.templates["other service"] = operator.admin("POST", f"/services/{other['id']}/templates", {
        "type": "sms", "name": "Peilstand", "body": "De waterstand is ((stand))."})["id"]


def _templates(operator: Operator, world: World) -> None:
    sid = world.service_id
    world.templates["sms"] = operator.cli("create-template", "--service-id", sid, "--type", "sms", "--name",
                                          "Herinnering", "--body", "Beste ((name)), uw afspraak is morgen.")["id"]
    world.templates["email"] = operator.admin("POST", f"/services/{sid}/templates", {
        "type": "email", "name": "Bevestiging", "subject": "Uw aanvraag ((ref))",
        "body": "Beste ((name)),\n\nWe hebben uw aanvraag ontvangen."})["id"]
    world.templates["letter"] = operator.admin("POST", f"/services/{sid}/templates", {
        "type": "letter", "name": "Besluit", "subject": "Besluit op uw aanvraag",
        "body": "Beste ((name)),\n\nUw aanvraag is **toegekend**."})["id"]


def _sends(operator: Operator, world: World) -> None:
    live, sid = operator.client(world.keys["live"]), world.service_id

    def sent(expected: str, notification: dict[str, Any]) -> None:
        world.expected[notification["id"]] = expected

    sent("delivered", live.send_sms_notification("+31612345678", world.templates["sms"], {"name": "Jan"}, "sms-v1"))
    # The templates change after the first sends: later sends name later versions.
    operator.admin("POST", f"/services/{sid}/templates/{world.templates['sms']}",
                   {"body": "Beste ((name)), uw afspraak is morgen om 10:00."})
    operator.admin("POST", f"/services/{sid}/templates/{world.templates['sms']}", {"name": "Herinnering afspraak"})
    operator.admin("POST", f"/services/{sid}/templates/{world.templates['email']}",
                   {"subject": "Ontvangen: uw aanvraag ((ref))"})
    sent("delivered", live.send_sms_notification("+31687654321", world.templates["sms"], {"name": "Els"}, "sms-v3"))
    sent("permanent-failure", live.send_sms_notification(FAILS_FOR_GOOD, world.templates["sms"], {"name": "Kim"}))
    sent("delivered", live.send_email_notification("jan@example.nl", world.templates["email"],
                                                   {"name": "Jan", "ref": "A-1"}, "email-1"))
    sent("permanent-failure", live.send_email_notification("perm-fail@example.nl", world.templates["email"],
                                                           {"name": "Piet", "ref": "A-2"}))
    sent("received", live.send_letter_notification(world.templates["letter"], {**ADDRESS, "name": "A. Jansen"},
                                                   "letter-1"))
    sent("received", live.send_precompiled_letter_notification("precompiled-1", io.BytesIO(a_pdf("A. Jansen"))))
    test = operator.client(world.keys["test"])
    sent("delivered", test.send_email_notification("test@example.nl", world.templates["email"],
                                                   {"name": "Test", "ref": "T-1"}))
    other = operator.client(world.keys["other service"])
    sent("delivered", other.send_sms_notification("+31612345678", world.templates["other service"], {"stand": "12"}))


def _bulk_job(operator: Operator, world: World) -> None:
    """A spreadsheet sent from the console by a platform admin made with the release's CLI."""
    console = ConsoleSession(operator.install.console_url)
    link = operator.install.run(operator.tree, "-m", "flask", "--app", "console", "create-platform-admin-link")
    world.account = console.become_platform_admin(link.strip())
    rows = "".join(f"+316{20000000 + row},Rij {row}\n" for row in range(JOB_ROWS))
    upload = f"/services/{world.service_id}/send/{world.templates['sms']}/upload"
    checked = console.submit(upload, {}, field="file",
                             files={"file": ("herinneringen.csv", f"phone number,name\n{rows}".encode(), "text/csv")})
    sent = console.submit(checked.url, {"when": "now"}, field="when")
    world.job_id = sent.url.rstrip("/").rsplit("/", 1)[1]


def wait_until_final(operator: Operator, world: World) -> None:
    """Every send at the status its recipient leads to, and every row of the job delivered."""
    deadline = time.monotonic() + FINAL_SECONDS
    while True:
        statuses = {name: {n["id"]: n["status"] for n in every_notification(operator.client(key))}
                    for name, key in world.keys.items()}
        seen = {nid: status for by_key in statuses.values() for nid, status in by_key.items()}
        job = operator.admin("GET", f"/services/{world.service_id}/jobs/{world.job_id}")
        if all(seen.get(nid) == status for nid, status in world.expected.items()) \
                and job["counts"]["delivered"] == JOB_ROWS:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{operator.tree.name}: not every send reached its final status within "
                                 f"{FINAL_SECONDS} s: expected {world.expected}, found {seen}; job {job}")
        time.sleep(0.5)


def every_notification(client: NotificationsAPIClient) -> list[dict[str, Any]]:
    """The key's whole list, jobs' rows included, page after page (newest first)."""
    found: list[dict[str, Any]] = []
    while True:
        page = client.get_all_notifications(include_jobs=True, older_than=found[-1]["id"] if found else None)
        found += page["notifications"]
        if not page["notifications"] or "next" not in page["links"]:
            return found


def read_world(operator: Operator, world: World) -> dict[str, Any]:
    """Everything the world holds as the running release's API shows it, by what it is."""
    seen: dict[str, Any] = {}
    for name, key in world.keys.items():
        client = operator.client(key)
        listed = every_notification(client)
        seen[f"notifications of the {name} key"] = listed
        seen[f"each notification of the {name} key"] = {n["id"]: client.get_notification_by_id(n["id"])
                                                         for n in listed}
        templates = client.get_all_templates()["templates"]
        seen[f"templates of the {name} key"] = templates
        seen[f"template versions of the {name} key"] = {
            f"{t['id']} version {n}": client.get_template_version(t["id"], n)
            for t in templates for n in range(1, t["version"] + 1)}
        seen[f"received texts of the {name} key"] = client.get_received_texts()["received_text_messages"]
    seen["jobs"] = operator.admin("GET", f"/services/{world.service_id}/jobs")["jobs"]
    if world.organisation_id:
        seen["organisation"] = operator.admin("GET", f"/organisations/{world.organisation_id}")
        seen["organisation's services"] = operator.admin("GET", f"/organisations/{world.organisation_id}/services")
    return seen
