"""A service with something in every area of the console, made through the rules floor as its pages and
the API make them (so its history records every kind of change), for tests that walk every page.

Its texts are Dutch, as a Dutch team writes them: a page that shows English is the console's doing.
"""
from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from pathlib import Path

from core import callbacks, go_live, keys, senders, service_users, services, team, template_folders, templates
from core.appearance import change_appearance
from core.cancel import cancel_message
from core.jobs import create_and_start_job
from core.organisations import create_organisation
from models import audit
from models.crypto import encrypt
from models.db import utcnow
from models.notification import ReceivedText
from models.organisation import OrganisationService, OrganisationUser
from models.service import InboundNumber, Service, ServiceCallback
from models.template import find_version
from models.user import SERVICE_PERMISSIONS, User
from pipeline.infrastructure.print_provider import DirectoryPrintProvider
from pipeline.infrastructure.providers.email.events import COMPLAINT, EmailEvent
from pipeline.stages.email_events import apply_email_events
from pipeline.stages.jobs.upload import check_upload
from pipeline.stages.letters import returns
from pipeline.stages.unsubscribe import record_request
from tests.console.users import ConsoleUser, create_console_user
from tests.factories import create_notification
from tests.jobs.helpers import csv_file


@dataclass
class FullService:
    service: Service
    trial: Service  # waiting to go live: approved by its organisation, the platform admin decides
    admin: ConsoleUser  # a platform admin, member of every service and admin of their organisation


def _no_email(*_args: object, **_kwargs: object) -> None:
    """The go-live emails: their wording has its own tests."""


def _templates(service_id: str) -> dict[str, object]:
    folder = template_folders.add_folder(service_id, name="Afspraken")
    sms = templates.add_template(service_id, template_type="sms", name="Herinnering afspraak",
                                 body="Beste ((naam)), uw afspraak is op ((datum)).")
    templates.change_template(service_id, str(sms.template.id), body="Beste ((naam)), uw afspraak is ((datum)).")
    template_folders.move_templates(service_id, [str(sms.template.id)], str(folder.id))
    email = templates.add_template(service_id, template_type="email", name="Bevestiging",
                                   subject="Uw aanvraag ((kenmerk))", body="Beste ((naam)),\n\nWe hebben uw aanvraag.")
    letter = templates.add_template(service_id, template_type="letter", name="Aanslag", subject="Uw aanslag",
                                    body="Beste ((naam)),\n\nHierbij uw aanslag.", postage="second")
    gone = templates.add_template(service_id, template_type="sms", name="Oud bericht", body="Weg")
    templates.archive_template(service_id, str(gone.template.id))
    return {"sms": sms.template, "email": email.template, "letter": letter.template}


def _settings(service: Service) -> None:
    service_id = str(service.id)
    services.update_service(service_id, sms_daily_limit=500, data_retention_days={"sms": 5},
                            permissions=["email", "sms", "letter", "inbound_sms"])
    senders.add_setting("reply-to-addresses", service_id, value="loket@gemeente.example.nl", is_default=True)
    senders.add_setting("sms-senders", service_id, value="Gemeente", is_default=True)
    senders.add_setting("letter-contacts", service_id, value="Gemeente Voorbeeld\nPostbus 1\n1000 AA Amsterdam",
                        is_default=True)
    InboundNumber.create(number="3197010000001", service=service)
    change_appearance(service_id, language="nl")
    # Callbacks to a public https address: the address rule resolves names, so the row is made here and
    # recorded as set_callback records it.
    for number, kind in enumerate(callbacks.CALLBACK_KINDS, start=1):
        url = f"https://terugmelding.example.nl/koppeling-{number}"
        ServiceCallback.create(service=service, kind=kind, url=url,
                               bearer_token_encrypted=encrypt("geheim-token-1234567890"))
        audit.record(service.id, f"callback.{kind}.set", after={"url": url, "bearer_token": "(changed)"})


def _team(service: Service, admin: ConsoleUser) -> None:
    service_id = str(service.id)
    colleague = create_console_user(service=service, permissions=["view_activity"], name="Karin de Boer",
                                    email_address="karin@gemeente.example.nl")
    service_users.change_permissions(service_id, colleague.id, ["view_activity", "send_messages"])
    service_users.invite_member(service_id, "nieuw@gemeente.example.nl", ["view_activity", "manage_templates"],
                                admin.user)
    member = team.add_team_member(service_id, email_address="piet@gemeente.example.nl", mobile_number="0612345678")
    team.remove_team_member(service_id, str(member.id))
    team.add_team_member(service_id, email_address="anna@gemeente.example.nl")
    team.add_guest(service_id, "0687654321")


def _keys(service_id: str) -> str:
    keys.create_key(service_id, name="Website", key_type="live")
    keys.create_key(service_id, name="Proefomgeving", key_type="team")
    key, _secret = keys.create_key(service_id, name="Oude koppeling", key_type="live")
    keys.rotate_key(service_id, str(key.id), overlap=datetime.timedelta(hours=1))
    testing, _secret = keys.create_key(service_id, name="Testomgeving", key_type="test")
    keys.revoke_key(service_id, str(testing.id))
    return str(key.id)


def _messages(service: Service, made: dict[str, object], key_id: str, tmp_path: Path) -> None:
    sms, email, letter = made["sms"], made["email"], made["letter"]
    for status in ("created", "sending", "pending", "sent", "delivered", "permanent-failure", "temporary-failure",
                   "technical-failure"):
        create_notification(service=service, template=sms, status=status, sent_by="simulated", api_key_id=key_id,
                            body="Beste Jan, uw afspraak is morgen.")
    create_notification(service=service, template=sms, key_type="team", status="delivered", sent_by="simulated",
                        body="Beste Piet, uw afspraak is morgen.")
    create_notification(service=service, template=sms, key_type="test", status="delivered", body="Proefbericht")
    mails = [create_notification(service=service, template=email, status=status, sent_by="smtp",
                                 to="jan@voorbeeld.example.nl", subject="Uw aanvraag A-12",
                                 body="Beste Jan,\n\nWe hebben uw aanvraag.")
             for status in ("delivered", "delivered", "validation-failed", "virus-scan-failed")]
    apply_email_events("smtp", [EmailEvent(type=COMPLAINT, reference=str(mails[0].id), occurred_at=utcnow())])
    record_request(mails[1])
    for status in ("created", "sending", "delivered", "cancelled", "returned-letter", "permanent-failure",
                   "pending-virus-check"):
        create_notification(service=service, template=letter, status=status, body="Beste Jan,\n\nHierbij uw aanslag.")
    waiting = create_notification(service=service, template=letter, status="created", body="Beste Jan")
    cancel_message(str(service.id), str(waiting.id))
    posted = create_notification(service=service, template=letter, status="delivered", body="Beste Jan")
    folder = tmp_path / "inbox" / "returned"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "r.json").write_text(json.dumps({"batch": "r1", "returned_on": utcnow().date().isoformat(),
                                               "letters": [{"id": str(posted.id)}]}))
    returns.apply_returns(DirectoryPrintProvider(tmp_path))
    for number, text in (("31612345678", "Ik kom morgen niet"), ("31687654321", "Klopt het adres?")):
        ReceivedText.create(service=service, notify_number="3197010000001", user_number=number, content=text)


def _job(service: Service, template: object, user: User) -> None:
    version = find_version(service, template.id)
    checked = check_upload(service, version, "afspraken.csv", csv_file(
        ["telefoonnummer", "naam", "datum"], [["0612000001", "Jan", "morgen"], ["0612000002", "Piet", "vrijdag"]]))
    assert checked.problems == []
    create_and_start_job(str(service.id), str(template.id), version.version, "afspraken.csv", checked,
                         user_id=user.id)
    later = utcnow().replace(minute=0, second=0, microsecond=0) + datetime.timedelta(days=2)
    create_and_start_job(str(service.id), str(template.id), version.version, "later.csv", checked,
                         user_id=user.id, scheduled_for=later)


def _organisation(admin: ConsoleUser, name: str, *members: Service) -> None:
    organisation = create_organisation(name, "gemeente")
    for each in members:
        OrganisationService.create(organisation=organisation, service=each)
    OrganisationUser.create(organisation=organisation, user=admin.user, role="admin")


def _asking_to_go_live(name: str, admin: ConsoleUser, *, organisation_approves: bool) -> Service:
    """A trial service with all the checklist asks that has asked to go live."""
    trial = services.create_service(name, trial_mode=True)
    service_users.add_creator(trial.id, admin.user)
    senders.add_setting("reply-to-addresses", str(trial.id), value="loket@gemeente.example.nl", is_default=True)
    templates.add_template(str(trial.id), template_type="sms", name="Vergunning", body="Uw vergunning is klaar.")
    create_console_user(service=trial, permissions=list(SERVICE_PERMISSIONS), name="Sanne Visser")
    _organisation(admin, f"Gemeente {name}", trial)
    go_live.request_go_live(str(trial.id), send_email=_no_email, expected_volumes={"sms": 1000},
                            recipients="Inwoners met een parkeervergunning")
    if organisation_approves:
        go_live.approve_for_organisation(str(trial.id), send_email=_no_email)
    return trial


def full_service(tmp_path: Path) -> FullService:
    """The service (live, after asking to go live and being approved) and a trial service that asks."""
    admin = create_console_user(platform_admin=True, name="Beheerder Platform",
                                email_address="beheer@gemeente.example.nl")
    actor = audit.Actor("user", admin.id, admin.email_address)
    with audit.acting_as(actor):
        service = services.create_service("Belastingloket", trial_mode=True)
        service_users.add_creator(service.id, admin.user)
        made = _templates(str(service.id))
        _settings(service)
        _team(service, admin)
        key_id = _keys(str(service.id))
        go_live.request_go_live(str(service.id), send_email=_no_email)
        go_live.approve_go_live(str(service.id), send_email=_no_email)
        _messages(Service.get_by_id(service.id), made, key_id, tmp_path)
        _job(Service.get_by_id(service.id), made["sms"], admin.user)
        _organisation(admin, "Gemeente Voorbeeld", service)
        trial = _asking_to_go_live("Parkeerloket", admin, organisation_approves=True)
        _asking_to_go_live("Afvalloket", admin, organisation_approves=False)
    return FullService(Service.get_by_id(service.id), Service.get_by_id(trial.id), admin)
