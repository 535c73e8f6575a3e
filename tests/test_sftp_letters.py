"""Letters handed to a print house over SFTP by the workers, against a real OpenSSH server
(tests/sftp_server.py): sent with the official client, uploaded, answered and returned; a connection
killed mid-batch resumed with every letter handed over exactly once; an unknown host key holding the
batch with nothing sent."""
from __future__ import annotations

import dataclasses
import datetime
import json
import os

import pytest
from notifications_python_client.notifications import NotificationsAPIClient

from models.db import utcnow
from models.held_print_batch import HeldPrintBatch
from models.notification import Notification
from pipeline.infrastructure.print_provider import PrintBatch, PrintLetter, provider_for
from pipeline.infrastructure.storage import letter_pdf_key, letter_storage
from pipeline.stages.letters import held, printing
from tests.conftest import status_of, wait_for
from tests.factories import create_key, create_notification, create_sample_template, create_service
from tests.sftp_server import SftpServer, sftp_server  # noqa: F401  (sftp_server: a fixture)
from workers import letters, periodic

ADDRESS = {"address_line_1": "A. Jansen", "address_line_2": "Dorpsstraat 1", "address_line_3": "1234 AB  AMSTERDAM"}


@pytest.fixture
def print_house(sftp_server, monkeypatch):
    """The workers' print provider is the SFTP server."""
    monkeypatch.setattr(letters, "_settings", sftp_server.settings(letters._settings))
    return sftp_server


def ready_letter(service, size: int = 2000, **fields) -> Notification:
    """A letter whose PDF is stored and sheets counted: the next print run claims it."""
    notification = create_notification(service=service, notification_type="letter", billable_units=1,
                                       reply_to_text="Gemeente Ergens", **fields)
    letter_storage().put(letter_pdf_key(notification.id), b"%PDF-1.7\n" + os.urandom(size))
    return notification


def batch_folders(server: SftpServer) -> dict[str, list[str]]:
    """Each batch folder in the outbox, hidden ones too, with the letter ids in it."""
    outbox = server.drop / "outbox"
    return {folder.name: sorted(p.stem for p in folder.iterdir() if p.suffix == ".pdf")
            for folder in (outbox.iterdir() if outbox.is_dir() else [])}


def answer(server: SftpServer, name: str, body: dict, folder: str = "inbox") -> None:
    """The print house writes an answer: under a temporary name, renamed when complete."""
    target = server.drop / folder
    target.mkdir(parents=True, exist_ok=True)
    (target / f".{name}.partial").write_text(json.dumps(body))
    (target / f".{name}.partial").rename(target / name)


def test_letters_sent_with_the_client_are_printed_and_returned_over_sftp(print_house, live_server, worker):
    service = create_service(permissions=["letter"])
    template = create_sample_template(service=service, template_type="letter", body="Beste ((name))")
    api = NotificationsAPIClient(create_key(service=service), base_url=live_server)
    ids = [api.send_letter_notification(str(template.id), {**ADDRESS, "name": name}, reference=name)["id"]
           for name in ("Anna", "Bram")]
    wait_for(lambda: all(Notification.get_by_id(n).billable_units is not None for n in ids))

    letters.print_letters.send()
    wait_for(lambda: all(status_of(n) == "sending" for n in ids))
    [(batch, in_folder)] = batch_folders(print_house).items()
    assert in_folder == sorted(ids) and not batch.startswith(".")
    manifest = json.loads((print_house.drop / "outbox" / batch / "manifest.json").read_text())
    assert manifest["batch"] == batch and sorted(entry["id"] for entry in manifest["letters"]) == sorted(ids)
    for notification_id in ids:
        assert (print_house.drop / "outbox" / batch / f"{notification_id}.pdf").read_bytes() == \
            letter_storage().get(letter_pdf_key(notification_id))
    assert {Notification.get_by_id(n).sent_by for n in ids} == {"sftp"}

    answer(print_house, f"{batch}.json", {"batch": batch, "letters": [
        {"id": ids[0], "status": "dispatched"}, {"id": ids[1], "status": "refused", "reason": "no such street"}]})
    answer(print_house, "r1.json", {"batch": "r1", "returned_on": "2026-11-20", "letters": [{"reference": "Anna"}]},
           folder="inbox/returned")
    letters.read_print_answers.send()
    wait_for(lambda: [status_of(n) for n in ids] == ["returned-letter", "permanent-failure"])
    assert api.get_notification_by_id(ids[0])["status"] == "returned-letter"
    assert (print_house.drop / "inbox" / "processed" / f"{batch}.json").exists()
    assert (print_house.drop / "inbox" / "returned" / "processed" / "r1.json").exists()


def test_a_connection_killed_during_a_batch_hands_every_letter_over_once(print_house, worker):
    service = create_service(permissions=["letter"])
    sent = [ready_letter(service, size=500_000) for _ in range(30)]
    letters.print_letters.send()
    partial = wait_for(lambda: next((print_house.drop / "outbox").glob(".*.partial"), None)
                       if (print_house.drop / "outbox").is_dir() else None, interval=0.001)
    wait_for(lambda: len(list(partial.glob("*.pdf"))) >= 3, interval=0.001)
    print_house.pause_sessions()
    assert len(list(partial.glob("*.pdf"))) < len(sent)  # caught mid-batch
    assert print_house.kill_sessions()

    wait_for(lambda: all(status_of(n.id) == "sending" for n in sent), timeout=30)
    [(batch, in_folder)] = batch_folders(print_house).items()
    assert in_folder == sorted(str(n.id) for n in sent)
    assert not batch.startswith(".")
    assert not [p for p in print_house.drop.rglob("*") if ".partial" in p.name]
    assert {Notification.get_by_id(n.id).provider_reference for n in sent} == {batch}


def test_a_hand_over_made_but_not_recorded_is_recorded_once(print_house):
    """The worker died after the rename, before the letters moved to sending; the print house has
    collected the folder since. The redelivered stage records the hand-over and sends nothing again."""
    service = create_service(permissions=["letter"])
    sent = [ready_letter(service) for _ in range(2)]
    [(batch_id, _)] = printing.claim_batches()
    provider = provider_for(letters._settings)
    provider.send_batch(PrintBatch(batch_id, [
        PrintLetter(str(n.id), "second", 1, "Netherlands", letter_storage().get(letter_pdf_key(n.id)))
        for n in sent]))
    folder = print_house.drop / "outbox" / batch_id
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    assert printing.send_batch(batch_id, provider, letter_storage()) == 2
    assert [status_of(n.id) for n in sent] == ["sending", "sending"]
    assert batch_folders(print_house) == {}


def test_an_unknown_host_key_holds_the_batch_until_the_key_is_put_right(print_house, tmp_path, monkeypatch, worker):
    with SftpServer(tmp_path / "other") as other:
        wrong = other.host_key
    right = letters._settings
    monkeypatch.setattr(letters, "_settings", dataclasses.replace(right, print_sftp_host_key=wrong))
    service = create_service(permissions=["letter"])
    first = [ready_letter(service) for _ in range(2)]
    letters.print_letters.send()
    [hold] = wait_for(lambda: list(HeldPrintBatch.select()))
    assert "not the one PRINT_SFTP_HOST_KEY pins" in hold.reason
    assert [status_of(n.id) for n in first] == ["created", "created"]
    assert list(print_house.drop.iterdir()) == []  # nothing sent, not even a folder

    # While held: no new live batch is claimed (later letters stay cancellable); test-key letters print.
    later = ready_letter(service)
    test_key = ready_letter(service, key_type="test")
    letters.print_letters.send()
    wait_for(lambda: status_of(test_key.id) in ("delivered", "sending"))
    wait_for(lambda: HeldPrintBatch.get_by_id(hold.batch_id).tried_at > hold.tried_at)
    assert Notification.get_by_id(later.id).dispatch_started_at is None
    assert list(print_house.drop.iterdir()) == []

    # The claim sweep leaves held letters alone, however long they wait.
    Notification.update(dispatch_started_at=utcnow() - datetime.timedelta(days=2)).where(
        Notification.provider_reference == hold.batch_id).execute()
    periodic.sweep_stuck_notifications.fn()
    assert [status_of(n.id) for n in first] == ["created", "created"]

    monkeypatch.setattr(letters, "_settings", right)  # the operator pins the right key
    letters.print_letters.send()
    wait_for(lambda: all(status_of(n.id) == "sending" for n in first))
    assert held.held_batches() == []
    assert batch_folders(print_house) == {hold.batch_id: sorted(str(n.id) for n in first)}
    letters.print_letters.send()  # and new batches are claimed again
    wait_for(lambda: status_of(later.id) == "sending")


def test_settings_that_cannot_work_hold_the_batch(print_house, monkeypatch):
    monkeypatch.setattr(letters, "_settings", dataclasses.replace(letters._settings, print_sftp_host_key="AAAA"))
    service = create_service(permissions=["letter"])
    waiting = ready_letter(service)
    [(batch_id, _)] = printing.claim_batches()
    letters.send_print_batch.fn(batch_id, False)
    [hold] = held.held_batches()
    assert (hold.batch_id, hold.letters) == (batch_id, 1)
    assert hold.reason.startswith("PRINT_SFTP_HOST_KEY must be the server's public key")
    assert status_of(waiting.id) == "created" and list(print_house.drop.iterdir()) == []


def test_a_held_batch_is_tried_by_one_print_run_at_a_time():
    held.hold("b1", "refused")
    assert held.take_due() == ["b1"]
    assert held.take_due() == []  # the try sent by the run before has not answered yet
    assert held.take_due(utcnow() + held.TRY_LEASE + datetime.timedelta(seconds=1)) == ["b1"]  # its message lost
    held.hold("b1", "refused again")
    assert held.take_due() == ["b1"]
