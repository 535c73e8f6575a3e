"""A case event whose fallback the send rules refuse: refused when the message is sent (a trial service sends no
letters), the alternative is left out and the message still goes by the channel that reaches the citizen;
refused when the step is taken (the day's letters used up), the chain ends at the failed message, so the
event ends too. Either way the refusal is kept and shown in Dutch (its link a link), and a klantcontact
records the message that went out, arrived or not, as Worth-NL's OMC records a failed message; a send
refused whole records none, as the OMC records nothing of a send Notify refused."""
from __future__ import annotations

from models.case_event import CaseEvent
from models.notification import Notification
from models.notification_fallback import NotificationFallback
from models.service import TeamMember
from pipeline.domain import case_events as domain
from tests.conftest import wait_for
from tests.zgw.linked import BSN, citizen, events, link, seed_case_type

ADDRESS = {"straatnaam": "Dorpsstraat", "huisnummer": 1, "postcode": "1234 AB", "stad": "Amsterdam"}
FAILS = "perm-fail@example.nl"  # the simulator fails it for good (pipeline/infrastructure/providers/simulated.py)
TRIAL_LETTERS = "In proefmodus kan deze dienst geen brieven versturen. Wat proefmodus betekent"


def _status_set(zgw, service, identificatie: str, **party) -> None:
    link(zgw, service)
    case = seed_case_type(zgw)
    citizen(zgw, **party)
    zgw.set_status(zgw.add_zaak(case.zaaktype, identificatie=identificatie, omschrijving="Vergunning", bsn=BSN),
                   case.received)


def _recorded() -> CaseEvent | None:
    return next((e for e in events() if e.contact_state == domain.CONTACT_RECORDED), None)


def test_a_fallback_step_refused_when_taken_ends_the_event_and_records_the_failed_message(
        zgw, service, live_server, worker):
    service.letter_daily_limit = 0  # the step's letter is counted against it when it is taken, not before
    service.save()
    _status_set(zgw, service, "ZAAK-21", phone=None, email=FAILS, address=ADDRESS)

    event = wait_for(_recorded)
    email = Notification.get_by_id(event.notification_id)
    assert (event.state, event.channel, email.status) == ("sent", "email", "permanent-failure")
    assert NotificationFallback.get_by_id(email.id).sent_as is None and Notification.select().count() == 1
    [refusal] = event.detail["fallback_refused"]["refusals"]
    assert (event.detail["fallback_refused"]["channel"], refusal["code"]) == ("letter", "daily_limit_exceeded")
    [contact] = zgw.klantcontacten()
    assert (contact["kanaal"], contact["indicatieContactGelukt"], contact["inhoud"]) == ("e-mail", False, email.body)
    assert CaseEvent.get_by_id(event.id).next_attempt_at is None  # nothing left for the sweep

    text, _ = _events_page(service)
    assert ("Niet afgeleverd: het bericht mislukte en het terugvallen per brief werd geweigerd: De dienst heeft "
            "vandaag zijn daglimiet van 0 brieven bereikt: probeer het morgen opnieuw") in text
    assert "Klantcontact in Open Klant: Vastgelegd in Open Klant" in text


def test_a_fallback_refused_when_sent_is_left_out_and_the_message_goes_by_the_channel_that_reaches(
        zgw, service, live_server, worker):
    service.trial_mode = True
    service.save()
    TeamMember.create(service=service, email_address="anna@example.nl")  # a trial service may email its team
    _status_set(zgw, service, "ZAAK-22", phone=None, email="anna@example.nl", address=ADDRESS)

    event = wait_for(_recorded)
    email = Notification.get_by_id(event.notification_id)
    assert (event.state, email.notification_type, email.status) == ("sent", "email", "delivered")
    assert NotificationFallback.get_or_none(NotificationFallback.notification == email.id) is None  # no chain
    [left_out] = event.detail["fallback_left_out"]
    assert (left_out["channel"], [r["code"] for r in left_out["refusals"]]) == ("letter", ["trial_mode_letters"])
    [contact] = zgw.klantcontacten()
    assert (contact["kanaal"], contact["indicatieContactGelukt"]) == ("e-mail", True)

    text, html = _events_page(service)
    assert f"Bericht verstuurd per e-mail. Geen terugval per brief: {TRIAL_LETTERS}" in text
    assert 'href="/trial-mode"' in html and "&lt;a" not in html  # the refusal's link a link, not its markup


def test_a_send_refused_whole_shows_its_link_as_a_link_and_records_no_klantcontact(
        zgw, service, live_server, worker):
    service.trial_mode = True
    service.save()
    _status_set(zgw, service, "ZAAK-23")  # a phone number on no guest list, and nothing else
    event = wait_for(lambda: next((e for e in events() if e.state not in domain.OPEN), None))
    assert (event.state, event.contact_state, event.zaak_identificatie) == ("send-refused", None, "ZAAK-23")

    text, html = _events_page(service)
    assert "Niet verstuurd: In proefmodus verstuurt deze dienst alleen naar het eigen team en de gastenlijst." in text
    assert "&lt;a" not in html
    assert zgw.klantcontacten() == []


def _events_page(service) -> tuple[str, str]:
    from console import app as console_app
    from tests.console.service_pages import page_text, signed_in_client
    from tests.console.users import create_console_user

    member = signed_in_client(console_app, create_console_user(service=service, permissions=["view_activity"]).user)
    page = member.get(f"/services/{service.id}/case-events")
    return page_text(page), page.get_data(as_text=True)
