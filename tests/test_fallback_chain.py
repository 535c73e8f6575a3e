"""A fallback chain (issue 44) carried by the real pipeline: a text the gateway fails permanently goes by
email over SMTP, a bounce of that sends the letter to the print house; a delivered message ends the chain;
a test key never falls back; a live key on the simulator does; trial mode and today's limits refuse a step
at chain time, recorded on the failed message; every message of the chain has its status callback."""
from __future__ import annotations

import dataclasses
import datetime
import time

from notifications_python_client.notifications import NotificationsAPIClient

import config
from config import get_settings
from models.db import utcnow
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from models.service import Service
from pipeline.domain.errors import kept
from pipeline.stages.send_checks import trial_mode_message
from tests.conftest import status_of, wait_for
from tests.factories import chain_of, create_key, create_notification, create_sample_template, create_service
from tests.test_callbacks import receiver, register  # noqa: F401  (receiver: a fixture)
from tests.test_email_events import dsn
from tests.test_sftp_letters import ADDRESS, batch_folders, print_house, sftp_server  # noqa: F401  (fixtures)
from workers import letters
from workers.periodic import sweep_stuck_notifications

SIMULATED_PERMANENT_FAILURE = "+4917700900002"  # ends 7700900002: the simulator fails it for good


def templates(service: Service) -> dict[str, str]:
    return {kind: str(create_sample_template(service=service, template_type=kind, body=f"{kind}: hello ((name))").id)
            for kind in ("sms", "email", "letter")}


def send_sms(api: NotificationsAPIClient, template_ids: dict[str, str], to: str, fallback: list[dict]) -> str:
    return api.post("/v2/notifications/sms", {
        "phone_number": to, "template_id": template_ids["sms"], "personalisation": {"name": "Anna"},
        "reference": "case-7", "fallback": fallback})["id"]


def email_to(template_ids: dict[str, str], address: str = "anna@example.nl") -> dict:
    return {"type": "email", "template_id": template_ids["email"], "email_address": address}


def by_letter(template_ids: dict[str, str]) -> dict:
    return {"type": "letter", "template_id": template_ids["letter"], "personalisation": dict(ADDRESS)}


def sent_as(notification_id: str) -> str:
    """The id of the message sent instead of this one, once there is one."""
    return str(wait_for(lambda: chain_of(notification_id).fallback_sent_as))


def test_a_failed_text_goes_by_email_and_a_bounced_email_by_letter_to_the_print_house(
        app, live_server, worker, real_providers, print_house):
    smtp, gateway = real_providers
    config._settings = dataclasses.replace(config._settings, smtp_delivered_on_accept=False)  # bounces decide
    service = create_service()
    ids = templates(service)
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    text = send_sms(api, ids, "0612345678", [email_to(ids), by_letter(ids)])

    fail_text(gateway)
    wait_for(lambda: status_of(text) == "permanent-failure")
    email = sent_as(text)
    [received] = smtp.wait_for_messages(1)
    assert received.message["To"] == "anna@example.nl" and "email: hello Anna" in str(received.message)
    wait_for(lambda: status_of(email) == "sending")

    result = app.test_cli_runner().invoke(args=["read-email-report"],
                                          input=dsn(str(received.message["Message-ID"]), to="anna@example.nl"))
    assert result.exit_code == 0, result.output
    wait_for(lambda: status_of(email) == "permanent-failure")
    letter = sent_as(email)
    wait_for(lambda: Notification.get_by_id(letter).billable_units is not None)
    letters.print_letters.send()
    wait_for(lambda: status_of(letter) == "sending")
    assert [ids for ids in batch_folders(print_house).values()] == [[letter]]

    reads = {n: api.get_notification_by_id(n) for n in (text, email, letter)}
    assert [(r["type"], r["reference"], r["fallback_for"], r["fallback_sent_as"]) for r in reads.values()] == [
        ("sms", "case-7", None, email), ("email", "case-7", text, letter), ("letter", "case-7", email, None)]
    assert reads[letter]["line_1"] == "A. Jansen" and "letter: hello Anna" in reads[letter]["body"]
    assert Notification.select().count() == 3


def test_a_live_key_on_the_simulator_falls_back_and_each_message_has_its_callback(live_server, worker, receiver):
    service = create_service()
    register(service, receiver)
    ids = templates(service)
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    text = send_sms(api, ids, SIMULATED_PERMANENT_FAILURE, [email_to(ids)])

    email = sent_as(text)
    wait_for(lambda: status_of(email) == "delivered")
    # An international text may report `sent` first, then the failure; each message's final status arrives.
    wanted = {(text, "permanent-failure"), (email, "delivered")}
    wait_for(lambda: wanted <= {(r.json["id"], r.json["status"]) for r in receiver.requests})
    assert api.get_notification_by_id(email)["fallback_for"] == text
    assert chain_of(email).fallback is None


def test_a_delivered_text_sends_nothing_more_and_a_test_key_never_falls_back(live_server, worker):
    service = create_service()
    ids = templates(service)
    live = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    delivered = send_sms(live, ids, "0612345678", [email_to(ids)])
    test = NotificationsAPIClient(create_key(service=service, key_type="test", name="test"), base_url=live_server)
    failed = send_sms(test, ids, SIMULATED_PERMANENT_FAILURE, [email_to(ids)])
    wait_for(lambda: (status_of(delivered), status_of(failed)) == ("delivered", "permanent-failure"))
    time.sleep(1)
    assert Notification.select().count() == 2
    assert [chain_of(n).fallback_sent_as for n in (delivered, failed)] == [None, None]


def fail_text(gateway) -> None:
    """The gateway reports the one text it was given undeliverable."""
    [message] = gateway.wait_for_messages(1)
    gateway.send_receipt(message.payload["callback_url"], config.get_settings().provider_webhook_token,
                         message.id, "undeliverable")


def test_trial_mode_at_chain_time_refuses_the_step_and_ends_the_chain(live_server, worker, real_providers):
    service = create_service()
    ids = templates(service)
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    text = send_sms(api, ids, "0612345678", [email_to(ids), by_letter(ids)])
    Service.update(trial_mode=True).where(Service.id == service.id).execute()  # between accept and failure
    fail_text(real_providers[1])

    wait_for(lambda: chain_of(text).fallback_refused)
    assert (status_of(text), chain_of(text).fallback_refused, chain_of(text).fallback_sent_as) == (
        "permanent-failure", [kept(trial_mode_message())], None)
    assert Notification.select().count() == 1


def test_todays_limit_reached_at_chain_time_refuses_the_step(live_server, worker, real_providers):
    service = create_service(email_daily_limit=1)
    ids = templates(service)
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    text = send_sms(api, ids, "0612345678", [email_to(ids)])
    api.send_email_notification("someone@example.nl", ids["email"], {"name": "x"})  # today's one email
    fail_text(real_providers[1])

    wait_for(lambda: chain_of(text).fallback_refused)
    assert chain_of(text).fallback_refused == [{
        "code": "daily_limit_exceeded", "text": "Exceeded send limits (email: 1) for today",
        "values": {"kind": "email", "limit": 1}}]
    assert Notification.select().count() == 2


def test_a_step_whose_message_was_lost_is_sent_by_the_sweep_once_it_is_overdue(live_server, worker):
    """The message that starts a step goes out after the failure's commit: lost there (Redis away, the
    process killed), the sweep finds the failed message along its index and starts the step."""
    service = create_service()
    ids = templates(service)
    alternatives = [{**email_to(ids), "personalisation": {"name": "Anna"}}]
    long_ago = utcnow() - datetime.timedelta(seconds=get_settings().stuck_after_seconds + 60)
    # Failed and marked so by its listener, but the step's message never reached Redis.
    lost = create_notification(service=service, status="permanent-failure", completed_at=long_ago,
                               fallback=alternatives, fallback_failed_at=long_ago, reference="case-9")
    just_now = create_notification(service=service, status="permanent-failure", completed_at=utcnow(),
                                   fallback=alternatives, fallback_failed_at=utcnow())

    sweep_stuck_notifications.fn()
    email = sent_as(str(lost.id))
    wait_for(lambda: status_of(email) == "delivered")
    stored = Notification.get_by_id(email)
    assert (stored.notification_type, stored.to, str(chain_of(email).fallback_for), stored.reference) == (
        "email", "anna@example.nl", str(lost.id), "case-9")

    sweep_stuck_notifications.fn()  # the step taken: nothing more; the recent failure is not overdue yet
    time.sleep(1)
    assert NotificationFallback.select().where(NotificationFallback.fallback_for == lost.id).count() == 1
    assert chain_of(just_now.id).fallback_sent_as is None
