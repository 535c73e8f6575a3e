"""A case event whose first channel the send rules refuse. A refusal about that channel alone (its daily limit
reached, an address it cannot take, a service that may not send it) passes it over: the citizen hears by the
next channel that reaches them, and the channel passed over is kept and shown in Dutch. A refusal no channel
escapes (trial mode for a stranger, the service suspended) ends the event with nothing sent, and no
klantcontact. The choice is recorded in docs/decisions/case-events.md."""
from __future__ import annotations

from models.case_event import CaseEvent
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from pipeline.domain import case_events as domain
from tests.conftest import wait_for
from tests.zgw.linked import BSN, citizen, events, link, seed_case_type

ADDRESS = {"straatnaam": "Dorpsstraat", "huisnummer": 1, "postcode": "1234 AB", "stad": "Amsterdam"}
DAILY_TEXTS = "De dienst heeft vandaag zijn daglimiet van 0 sms-berichten bereikt: probeer het morgen opnieuw"


def _status_set(zgw, service, identificatie: str, **party) -> CaseEvent:
    link(zgw, service)
    case = seed_case_type(zgw)
    citizen(zgw, **party)
    zgw.set_status(zgw.add_zaak(case.zaaktype, identificatie=identificatie, omschrijving="Vergunning", bsn=BSN),
                   case.received)
    return wait_for(lambda: next((e for e in events() if e.state not in domain.OPEN), None))


def _messages(service) -> list[Notification]:
    return list(Notification.select().where(Notification.service == service.id))


def test_a_daily_text_limit_reached_passes_the_text_over_and_the_citizen_hears_by_email(
        zgw, service, live_server, worker):
    service.sms_daily_limit = 0
    service.save()
    event = _status_set(zgw, service, "ZAAK-41", email="anna@example.nl", preferred="sms", address=ADDRESS)

    assert (event.state, event.channel) == ("sent", "email"), (event.state, event.detail)
    [passed] = event.detail[domain.PASSED_OVER]
    assert (passed["channel"], [r["code"] for r in passed["refusals"]]) == ("sms", ["daily_limit_exceeded"])
    [email] = _messages(service)
    assert (email.notification_type, email.to, email.reference) == ("email", "anna@example.nl", "ZAAK-41")
    # The email keeps the rest of the chain: a letter if it fails.
    [letter] = NotificationFallback.get_by_id(email.id).alternatives
    assert letter["type"] == "letter"
    [contact] = wait_for(lambda: zgw.klantcontacten())
    assert contact["kanaal"] == "e-mail"

    text = _events_page(service)
    assert f"Bericht verstuurd per e-mail. Niet per sms: {DAILY_TEXTS}" in text


def test_a_phone_number_the_text_rules_refuse_passes_over_to_a_letter(zgw, service, live_server, worker):
    service.permissions = ["email", "sms", "letter"]  # no texts abroad
    service.save()
    event = _status_set(zgw, service, "ZAAK-42", phone="+32470123456", address=ADDRESS)

    assert (event.state, event.channel) == ("sent", "letter"), (event.state, event.detail)
    [passed] = event.detail[domain.PASSED_OVER]
    assert (passed["channel"], [r["code"] for r in passed["refusals"]]) == ("sms", ["international_sms_not_allowed"])
    [letter] = _messages(service)
    assert letter.notification_type == "letter" and letter.to.splitlines()[0] == "Anna van Dijk"
    assert "Niet per sms: Deze dienst mag geen sms-berichten naar buitenlandse nummers versturen" in \
        _events_page(service)


def test_every_channel_refused_for_itself_ends_the_event_with_each_refusal(zgw, service, live_server, worker):
    service.sms_daily_limit = 0
    service.email_daily_limit = 0
    service.save()
    event = _status_set(zgw, service, "ZAAK-43", email="anna@example.nl", preferred="sms")

    assert (event.state, event.channel, event.contact_state) == ("send-refused", None, None)
    assert (event.detail["channel"], [r["code"] for r in event.detail["refusals"]]) == (
        "email", ["daily_limit_exceeded"])
    assert [p["channel"] for p in event.detail[domain.PASSED_OVER]] == ["sms"]
    assert _messages(service) == []
    text = _events_page(service)
    assert f"Niet verstuurd per sms: {DAILY_TEXTS}. Niet verstuurd per e-mail: De dienst heeft vandaag zijn " \
           "daglimiet van 0 e-mails bereikt" in text


def test_trial_mode_for_a_stranger_ends_the_event_though_a_later_channel_exists(zgw, service, live_server, worker):
    service.trial_mode = True
    service.save()
    event = _status_set(zgw, service, "ZAAK-44", email="anna@example.nl", preferred="sms", address=ADDRESS)

    assert (event.state, event.detail["channel"], [r["code"] for r in event.detail["refusals"]]) == (
        "send-refused", "sms", ["trial_mode_recipient"])
    assert domain.PASSED_OVER not in event.detail
    assert _messages(service) == []
    assert zgw.klantcontacten() == []


def test_a_suspended_service_sends_nothing_by_any_channel(zgw, service, live_server, worker):
    service.active = False
    service.save()
    event = _status_set(zgw, service, "ZAAK-45", email="anna@example.nl", preferred="sms", address=ADDRESS)

    assert (event.state, event.zaak_identificatie, [r["code"] for r in event.detail["refusals"]]) == (
        "send-refused", "ZAAK-45", ["case_events_service_suspended"])
    assert _messages(service) == []
    assert zgw.klantcontacten() == []
    assert "Niet verstuurd: De dienst is opgeschort (niet actief) en verstuurt niets" in _events_page(service)


def _events_page(service) -> str:
    from console import app as console_app
    from tests.console.service_pages import page_text, signed_in_client
    from tests.console.users import create_console_user

    member = signed_in_client(console_app, create_console_user(service=service, permissions=["view_activity"]).user)
    return page_text(member.get(f"/services/{service.id}/case-events"))
