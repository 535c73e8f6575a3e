"""The worker dashboard as a platform admin sees it: a queue growing with no live worker, then the
worker and its work; dead-lettered messages re-queued from the page."""
from __future__ import annotations

import dramatiq
import pytest

from tests.conftest import running_worker, wait_for
from tests.console.browser import assert_accessible
from tests.console.service_pages import signed_in_client
from tests.factories import auth_headers, create_key, create_sample_template
from workers import dead_letters, queue_stats


@dramatiq.actor(queue_name="ops-test-console-dead", max_retries=0)
def fails_once(job_id: str) -> None:
    if job_id not in recovered:
        raise RuntimeError(f"job {job_id} went wrong")


recovered: set[str] = set()


def _queue_row(page, queue: str):
    return page.locator(f"#queues tr[data-queue='{queue}']")


def test_dashboard_shows_a_backlog_without_workers_then_the_worker(signed_in_admin, client, service, live_server):
    page = signed_in_admin
    template = create_sample_template(service=service, body="Hi")
    headers = auth_headers(create_key(service=service))
    for _ in range(3):
        assert client.post("/v2/notifications/sms", headers=headers,
                           json={"phone_number": "0612345678", "template_id": str(template.id)}).status_code == 201
    page.goto("/platform-admin/workers")
    row = _queue_row(page, "send-sms")
    assert row.locator("[data-field=ready]").inner_text() == "3"
    assert row.locator("[data-field=live-workers]").inner_text() == "geen"  # Dutch by default
    assert "Er draait geen werkproces." in page.inner_text("main")
    assert_accessible(page)

    with running_worker():
        wait_for(lambda: _queue_row_ready() == 0, timeout=30)
        # The page refreshes itself: no reload by the test.
        page.wait_for_selector("#workers tr[data-alive=yes]", timeout=20000)
        assert _queue_row(page, "send-sms").locator("[data-field=live-workers]").inner_text() == "1"
        assert page.locator("#stages").inner_text().count("deliver_sms") == 1
        # Each task in words, its actor's name (as the logs write it) beside it.
        stage = page.locator("#stages tbody th", has_text="Verstuurt een sms")
        assert stage.locator("code").all_inner_texts() in (["deliver_sms"], ["deliver_sms_group"])
        # Several tables, each scrolling region named apart.
        assert_accessible(page, rules=("landmark-unique",))


def test_every_actor_is_described_in_words():
    from console.ops.actor_names import DESCRIPTIONS
    from workers import ACTOR_MODULES
    from workers.actors import Actor

    names = {value.actor_name for module in ACTOR_MODULES for value in vars(module).values()
             if isinstance(value, Actor)}
    assert sorted(names - set(DESCRIPTIONS)) == [] and sorted(set(DESCRIPTIONS) - names) == []


def _queue_row_ready() -> int:
    return next(q.ready for q in queue_stats.queue_stats() if q.name == "send-sms")


@pytest.mark.skipif(not dead_letters.supported(), reason="dead-letter inspection reads Redis")
def test_dead_letters_are_requeued_from_the_page(signed_in_admin):
    page = signed_in_admin
    with running_worker():
        fails_once.send("j1")
        wait_for(lambda: dead_letters.list_dead("ops-test-console-dead"))
    page.goto("/platform-admin/workers")
    # The failure rate in Dutch notation: a decimal comma.
    assert "(100,0%)" in _queue_row(page, "ops-test-console-dead").inner_text()
    page.click("#queues tr[data-queue='ops-test-console-dead'] a")
    assert "RuntimeError: job j1 went wrong" in page.inner_text("main")
    assert_accessible(page)
    recovered.add("j1")
    with page.expect_navigation():
        page.click("main section button:has-text('Opnieuw in de wachtrij')")
    assert "Bericht opnieuw in zijn wachtrij gezet." in page.inner_text("main")
    assert dead_letters.list_dead("ops-test-console-dead") == []
    with running_worker():
        wait_for(lambda: next(q for q in queue_stats.queue_stats() if q.name == "ops-test-console-dead").done >= 1)


def test_only_platform_admins_reach_the_dashboard(signed_in_member):
    response = signed_in_member.goto("/platform-admin/workers")
    assert response.status == 403


@dramatiq.actor(queue_name="ops-test-dead-group", max_retries=0)
def group_that_fails(notification_ids: list[str]) -> None:
    raise RuntimeError("hand-over failed")


@pytest.mark.skipif(not dead_letters.supported(), reason="dead-letter inspection reads Redis")
def test_a_dead_group_message_shows_its_ids_plainly_on_the_page(console_app, platform_admin):
    ids = ["6f1d5a3e-0000-4000-8000-000000000001", "6f1d5a3e-0000-4000-8000-000000000002"]
    with running_worker():
        group_that_fails.send(ids)
        wait_for(lambda: dead_letters.list_dead("ops-test-dead-group"))
    page = signed_in_client(console_app, platform_admin.user).get(
        "/platform-admin/workers/queues/ops-test-dead-group/dead").get_data(as_text=True)
    assert f"group_that_fails([{ids[0]}, {ids[1]}])</h2>" in page
    assert "&#39;" not in page.split("<main", 1)[1]  # no Python quotes around the ids
    dead_letters.drop_all("ops-test-dead-group")
