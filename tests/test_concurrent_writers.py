"""Writers of every kind at once on one database, as deployed: the Procfile's web, worker, scheduler and
console processes (gunicorn, `workers.supervise`), with sends through the API, their delivery receipts
posted back to the webhook by the gateway, texts to an inbound number, admin API and console writes, and
the scheduler's periodic work, all at the same time.

On the embedded default (SQLite) a transaction that read and then wrote could not wait for the writer
lock: it failed at once with "database is locked" (a 503) when another connection committed between its
read and its write, whatever the busy timeout (docs/decisions/data-and-migrations.md). Nothing may answer
5xx, no process may log a locked database, and every write that was answered as taken must be there.
"""
from __future__ import annotations

import collections
import re
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from notifications_python_client.notifications import NotificationsAPIClient

from config import get_settings
from models.db import connect_url, is_postgres
from models.held_count import HeldCount, HeldCountChange
from models.notification import Notification
from models.service import InboundNumber
from models.template import TemplateVersion
from models.user import UserSession, new_token
from tests.admin_helpers import admin_headers
from tests.conftest import _free_port, wait_for
from tests.console.users import create_console_user
from tests.factories import create_key, create_sample_template, create_service
from tests.fake_gateway import FakeGateway
from tests.faults import PHONE, assert_each_sent_once, wait_until_final
from tests.private_servers import Processes, _wait, service_env, service_processes

SENDERS, SENDS_EACH = 8, 30
TEXTERS, TEXTS_EACH = 3, 30
ADMINS, ADMIN_TEMPLATES_EACH = 2, 15  # each template is made, then changed: two writes
EDITORS, CONSOLE_TEMPLATES_EACH = 2, 10
INBOUND_NUMBER = "+3197010000001"
# gunicorn's access line (observability.gunicorn_logger, gunicorn.conf.py's access_log_format).
ACCESS_LINE = re.compile(r'\\?"(GET|POST|PUT|PATCH|DELETE) ([^"\\]+)\\?" (\d{3}) ')


def _each(count: int, write: Callable[[int], object]) -> list[object]:
    """write(i) for i in range(count), what each answered (an exception is kept, not raised)."""
    outcomes: list[object] = []
    for i in range(count):
        try:
            outcomes.append(write(i))
        except Exception as error:  # noqa: BLE001 (kept for the assertion, with its text)
            outcomes.append(error)
    return outcomes


def _sender(api: NotificationsAPIClient, template_id: str, n: int) -> list[object]:
    return _each(SENDS_EACH, lambda i: api.send_sms_notification(PHONE, template_id, reference=f"s{n}-{i}")["id"])


def _texter(web: str, gateway: FakeGateway, n: int) -> list[object]:
    def text(i: int) -> object:
        answer = gateway.send_inbound(f"{web}/providers/http-gateway/inbound-sms",
                                      get_settings().provider_webhook_token, INBOUND_NUMBER, "+31612345678",
                                      f"text {n}-{i}", f"in-{n}-{i}")
        return f"text {n}-{i}" if answer.status_code == 200 else answer

    return _each(TEXTS_EACH, text)


def _admin(web: str, service_id: str, n: int) -> list[object]:
    url = f"{web}/admin/services/{service_id}/templates"

    def make_and_change(i: int) -> object:
        made = requests.post(url, json={"name": f"admin {n}-{i}", "type": "sms", "body": "Eerst"},
                             headers=admin_headers(), timeout=60)
        if made.status_code != 201:
            return made
        changed = requests.post(f"{url}/{made.json()['id']}", json={"body": f"Daarna {n}-{i}"},
                                headers=admin_headers(), timeout=60)
        return (made.json()["id"], f"{n}-{i}") if changed.status_code == 200 else changed

    return _each(ADMIN_TEMPLATES_EACH, make_and_change)


def _editor(console: str, cookie: str, service_id: str, n: int) -> list[object]:
    session = requests.Session()  # its cookie jar keeps the session, and the CSRF token the console adds to it
    session.cookies.set("notify_console", cookie, domain="127.0.0.1", path="/")
    path = f"{console}/services/{service_id}/templates/new/sms"

    def save(i: int) -> object:
        form = session.get(path, timeout=60)
        token = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', form.text)
        if form.status_code != 200 or token is None:
            return form
        saved = session.post(path, data={"csrf_token": token.group(1), "action": "save", "name": f"console {n}-{i}",
                                         "body": "Hallo", "folder": ""}, allow_redirects=False, timeout=60)
        return f"console {n}-{i}" if saved.status_code == 302 else saved

    return _each(CONSOLE_TEMPLATES_EACH, save)


def _console_cookie(user) -> str:  # noqa: ANN001 (a models.user.User)
    """A signed-in console session of user (second factor done), as the console's cookie holds it."""
    import console

    token, hashed = new_token()
    UserSession.create(user=user, token_hash=hashed)
    return console.app.session_interface.get_signing_serializer(console.app).dumps({"sid": token})


def _start_console(processes: Processes, url: str) -> None:
    processes.start("console", sys.executable, "-m", "gunicorn", "console:app", "--bind", url.split("//", 1)[1],
                    "--no-control-socket")

    def answers() -> bool:
        try:
            return requests.get(f"{url}/sign-in", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    _wait(answers, "console process")


def _refusals(outcomes: list[object], accepted: tuple[type, ...]) -> list[str]:
    return [f"{o.status_code} {o.text[:200]}" if isinstance(o, requests.Response) else repr(o)
            for o in outcomes if not isinstance(o, accepted)]


def _server_errors(log: str) -> list[str]:
    return [" ".join(match.groups()) for match in ACCESS_LINE.finditer(log) if match.group(3).startswith("5")]


def test_writers_of_every_kind_at_once_get_no_5xx_and_lose_nothing(tmp_path: Path):
    service = create_service(permissions=["sms", "inbound_sms"])
    template = create_sample_template(service=service, body="Uw code is 1234")
    InboundNumber.create(number=INBOUND_NUMBER, service=service)
    editor = create_console_user(service=service, permissions=["view_activity", "manage_templates"])
    cookie = _console_cookie(editor.user)

    with FakeGateway(token="gateway-token") as gateway:
        gateway.report(get_settings().provider_webhook_token)  # a receipt per text, posted to the webhook
        # The console served over plain http on loopback, so its session cookie is not kept for https alone.
        console = f"http://127.0.0.1:{_free_port()}"
        env = service_env(SMS_GATEWAY_URL=gateway.url, SMS_GATEWAY_TOKEN="gateway-token", WEB_ACCESS_LOG="-",
                          ADMIN_URL=console)
        with service_processes(env, logs=tmp_path) as processes:
            _start_console(processes, console)
            api = NotificationsAPIClient(create_key(service=service), base_url=processes.url)
            with ThreadPoolExecutor(SENDERS + TEXTERS + ADMINS + EDITORS) as pool:
                sends = [pool.submit(_sender, api, str(template.id), n) for n in range(SENDERS)]
                texts = [pool.submit(_texter, processes.url, gateway, n) for n in range(TEXTERS)]
                admins = [pool.submit(_admin, processes.url, str(service.id), n) for n in range(ADMINS)]
                editors = [pool.submit(_editor, console, cookie, str(service.id), n) for n in range(EDITORS)]
                sent, texted, made, saved = ([o for each in futures for o in each.result()]
                                             for futures in (sends, texts, admins, editors))

            refused = {kind: _refusals(outcomes, (str, tuple)) for kind, outcomes in
                       (("sends", sent), ("inbound texts", texted), ("admin", made), ("console", saved))}
            assert refused == dict.fromkeys(refused, [])
            assert set(wait_until_final(sent, timeout=300).values()) == {"delivered"}  # every receipt applied
            wait_for(lambda: gateway.receipts_posted == len(gateway.messages), timeout=120)
            assert_each_sent_once(gateway, sent)
            # The scheduler's fold (every 10 s) has taken every journal row into the counts.
            wait_for(lambda: HeldCountChange.select().count() == 0, timeout=120, interval=1)
            held: collections.Counter[str] = collections.Counter()
            for row in HeldCount.select().where(HeldCount.service == service):
                held[row.status] += row.count
            assert held == {"delivered": len(sent)}

            # Every text taken reads back through the API, as the service's own client reads them.
            assert sorted(t["content"] for t in api.get_received_texts_iterator()) == sorted(texted)
            logs = {name: processes.log(name) for name in processes.running}

    versions = collections.defaultdict(list)
    for version in TemplateVersion.select().order_by(TemplateVersion.version):
        versions[version.name.split(" ")[0]].append((version.name, version.version, version.body))
    # Each admin template made, then changed (its second version); each console template saved once.
    assert sorted(versions["admin"]) == sorted([(f"admin {name}", number, body) for _, name in made
                                                for number, body in ((1, "Eerst"), (2, f"Daarna {name}"))])
    assert sorted(versions["console"]) == sorted((name, 1, "Hallo") for name in saved)
    assert Notification.select().count() == len(sent)
    for name, log in logs.items():
        assert "database is locked" not in log, f"{name}: {log[-3000:]}"
        assert _server_errors(log) == [], name
    # The web processes' access logs are on: a 5xx answered to anyone (the gateway's receipts, which
    # it posts again until taken, included) would be in them.
    assert all(ACCESS_LINE.search(logs[name]) for name in ("web", "console"))


@pytest.mark.skipif(is_postgres(), reason="SQLite's writer lock")
def test_a_transaction_that_read_first_waits_for_the_writer_lock_instead_of_failing(tmp_path: Path):
    """Two connections of the service's SQLite handle: one reads in a transaction, the other writes;
    the first then writes too. Begun DEFERRED, the first failed at once ("database is locked"), the
    other having committed since its read; begun IMMEDIATE, the other waits for it, and both land."""
    db = connect_url(f"sqlite:///{tmp_path}/locks.db")
    db.execute_sql("CREATE TABLE written (who TEXT)")
    other_done = threading.Event()

    def other() -> None:
        db.execute_sql("INSERT INTO written VALUES ('other')")  # its own thread, its own connection
        db.close()
        other_done.set()

    with db.atomic():
        assert db.execute_sql("SELECT count(*) FROM written").fetchone() == (0,)
        writer = threading.Thread(target=other)
        writer.start()
        # Long enough for the other write to commit when nothing holds it back (DEFERRED); with the
        # lock held since BEGIN it waits for this transaction instead, and this wait simply ends.
        other_done.wait(timeout=2)
        db.execute_sql("INSERT INTO written VALUES ('first')")
    writer.join(timeout=60)
    assert sorted(db.execute_sql("SELECT who FROM written").fetchall()) == [("first",), ("other",)]
    db.close()
