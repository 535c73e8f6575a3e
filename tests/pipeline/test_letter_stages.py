"""The letter stages run by hand: PDF rendering, virus scan and checks, print batches and answers.

Every stage is run twice where a redelivered message could run it twice, to show it finds the work done.
"""
from __future__ import annotations

import datetime
import io
import json

import pytest
from pypdf import PdfReader
from reportlab.lib.pagesizes import A4, A5
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from config import get_settings
from models.db import utcnow
from models.notification import Notification
from pipeline.domain.letters.compose import letter_date
from pipeline.infrastructure.print_provider import PrintTransferError, SimulatedPrintProvider
from pipeline.infrastructure.storage import LocalStorage, letter_pdf_key
from pipeline.infrastructure.virus_scan import EICAR, EicarScanner, ScannerUnavailable
from pipeline.stages import status_changes
from pipeline.stages.letters import printing, stages
from tests.conftest import status_of
from tests.factories import create_notification


def a_pdf(text: str = "Hello", *, pagesize=A4, pages: int = 1, comment: str | None = None) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=pagesize)
    for _ in range(pages):
        if comment is not None:
            canvas.addLiteral("% " + comment)  # lands inside the page's compressed content stream
        canvas.drawString(25 * mm, pagesize[1] - 60 * mm, text)
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


@pytest.fixture
def storage(tmp_path):
    return LocalStorage(tmp_path / "letters")


def template_letter(service, body="Beste Anna,\n\nUw **aanvraag** is binnen.", **fields):
    fields.setdefault("reply_to_text", "Gemeente Ergens\nPostbus 1")
    return create_notification(service=service, notification_type="letter", body=body, **fields)


def uploaded(service, storage, data, **fields):
    notification = create_notification(service=service, notification_type="letter", status="pending-virus-check",
                                       precompiled=True, template_id=None, template_version=None,
                                       to="Provided as PDF", address=None, **fields)
    storage.put(letter_pdf_key(notification.id), data)
    return notification


class Unavailable:
    def scan(self, data: bytes):
        raise ScannerUnavailable("clamd is down")


def test_letter_date_is_the_dutch_date():
    assert letter_date(datetime.datetime(2026, 11, 21, 23, 30)) == datetime.date(2026, 11, 22)
    assert letter_date(datetime.datetime(2026, 7, 1, 21, 59)) == datetime.date(2026, 7, 1)


def test_create_letter_pdf(service, storage):
    notification = template_letter(service, created_at=datetime.datetime(2026, 11, 22, 9, 0))
    assert stages.create_letter_pdf(notification.id, storage) == "rendered"
    data = storage.get(letter_pdf_key(notification.id))
    text = " ".join(PdfReader(io.BytesIO(data)).pages[0].extract_text().split())
    for expected in ("A. Person Dorpsstraat 1 1234 AB AMSTERDAM", "Gemeente Ergens", "22 november 2026",
                     "Letter heading", "Uw aanvraag is binnen.", "Pagina 1 van 1"):
        assert expected in text
    stored = Notification.get_by_id(notification.id)
    assert (stored.status, stored.billable_units) == ("created", 1)
    assert stages.pdf_ready(stored, storage)
    # A redelivered message finds the PDF stored and the sheets recorded.
    assert stages.create_letter_pdf(notification.id, storage) is None
    assert storage.get(letter_pdf_key(notification.id)) == data


def test_pdf_rendered_again_when_the_worker_died_before_recording(service, storage):
    notification = template_letter(service)
    storage.put(letter_pdf_key(notification.id), b"half")  # stored, sheets never recorded
    assert stages.create_letter_pdf(notification.id, storage) == "rendered"
    assert storage.get(letter_pdf_key(notification.id)).startswith(b"%PDF-")


def test_too_long_letter_fails_validation(service, storage):
    notification = template_letter(service, body="\n\n".join(f"Alinea {n} " + "tekst " * 80 for n in range(400)))
    assert stages.create_letter_pdf(notification.id, storage) == "validation-failed"
    stored = Notification.get_by_id(notification.id)
    assert (stored.status, stored.billable_units) == ("validation-failed", 0)
    assert len(PdfReader(io.BytesIO(storage.get(letter_pdf_key(notification.id)))).pages) > 20
    assert stored.validation_failure.startswith("letter is longer than 10 sheets ("), stored.validation_failure
    assert stages.create_letter_pdf(notification.id, storage) is None


def test_contact_block_that_cannot_fit_fails_validation(service, storage):
    notification = template_letter(service, reply_to_text="\n".join(f"regel {n}" for n in range(60)))
    assert stages.create_letter_pdf(notification.id, storage) == "validation-failed"
    assert not storage.exists(letter_pdf_key(notification.id))
    assert (Notification.get_by_id(notification.id).validation_failure
            == "The contact block is too long to fit on the letter")


def test_pdf_stage_skips_letters_past_it(service, storage):
    for status in ("cancelled", "sending", "technical-failure"):
        assert stages.create_letter_pdf(template_letter(service, status=status).id, storage) is None
    assert stages.create_letter_pdf("6f1ba3b0-2a8c-4a7b-9d64-7f0c3f0b8e11", storage) is None


def test_clean_precompiled_letter_is_accepted(service, storage):
    notification = uploaded(service, storage, a_pdf(pages=3))
    assert stages.scan_precompiled(notification.id, storage, EicarScanner()) == "created"
    stored = Notification.get_by_id(notification.id)
    assert (stored.status, stored.billable_units) == ("created", 2)
    assert stages.scan_precompiled(notification.id, storage, EicarScanner()) is None


def test_virus_is_quarantined(service, storage):
    data = a_pdf(comment=EICAR.decode("ascii"))
    assert EICAR not in data  # only inside a compressed stream, where the scanner looks too
    notification = uploaded(service, storage, data)
    assert stages.scan_precompiled(notification.id, storage, EicarScanner()) == "virus-scan-failed"
    assert status_of(notification.id) == "virus-scan-failed"
    assert not storage.exists(letter_pdf_key(notification.id))
    assert storage.get(f"quarantine/{letter_pdf_key(notification.id)}") == data
    assert stages.scan_precompiled(notification.id, storage, EicarScanner()) is None


@pytest.mark.parametrize("data, reason", [
    (a_pdf(pagesize=A5), "page 1 is not A4 portrait"),
    (a_pdf(pages=21), "letter is longer than 10 sheets"),
    (b"%PDF-1.4 not really", "the file is not a readable PDF ("),
])
def test_precompiled_letter_failing_the_print_checks_keeps_why(service, storage, data, reason):
    notification = uploaded(service, storage, data)
    assert stages.scan_precompiled(notification.id, storage, EicarScanner()) == "validation-failed"
    stored = Notification.get_by_id(notification.id)
    assert (stored.status, stored.billable_units) == ("validation-failed", 0)
    assert stored.validation_failure.startswith(reason), stored.validation_failure


def test_scanner_unavailable_leaves_it_pending(service, storage):
    notification = uploaded(service, storage, a_pdf())
    with pytest.raises(ScannerUnavailable):
        stages.scan_precompiled(notification.id, storage, Unavailable())
    assert status_of(notification.id) == "pending-virus-check"


def test_lost_upload_is_a_technical_failure(service, storage):
    notification = uploaded(service, storage, a_pdf())
    storage.delete(letter_pdf_key(notification.id))
    assert stages.scan_precompiled(notification.id, storage, EicarScanner()) == "technical-failure"


def ready_letter(service, storage, text="Hello", **fields):
    notification = template_letter(service, billable_units=1, **fields)
    storage.put(letter_pdf_key(notification.id), a_pdf(text))
    return notification


def test_claim_batches(service, storage):
    live = [ready_letter(service, storage) for _ in range(3)]
    test = ready_letter(service, storage, key_type="test")
    template_letter(service)  # PDF not ready
    ready_letter(service, storage, scheduled_for=utcnow() + datetime.timedelta(hours=1))
    ready_letter(service, storage, status="pending-virus-check")
    batches = printing.claim_batches()
    assert sorted(simulated for _, simulated in batches) == [False, True]
    by_batch = {batch: {str(n.id) for n in Notification.select().where(Notification.provider_reference == batch)}
                for batch, _ in batches}
    assert sorted(map(len, by_batch.values())) == [1, 3]
    assert {str(n.id) for n in live} in by_batch.values() and {str(test.id)} in by_batch.values()
    assert printing.claim_batches() == []  # claimed letters are not claimed again


def test_batch_to_sending_then_received(service, storage, tmp_path):
    letters = [ready_letter(service, storage), ready_letter(service, storage, text="perm-fail Jansen",
                                                            address={"lines": ["x"], "country": "Japan"})]
    provider = SimulatedPrintProvider(tmp_path / "print")
    [(batch_id, _)] = printing.claim_batches()
    assert printing.send_batch(batch_id, provider, storage) == 2
    stored = Notification.get_by_id(letters[0].id)
    assert (stored.status, stored.sent_by, stored.provider_reference) == ("sending", "simulated", batch_id)
    assert stored.sent_at is not None
    assert printing.send_batch(batch_id, provider, storage) == 0  # redelivered: nothing left to hand over
    assert printing.apply_answers(provider) == 2
    assert [status_of(n.id) for n in letters] == ["delivered", "permanent-failure"]
    assert printing.apply_answers(provider) == 0
    answer = json.loads((tmp_path / "print" / "inbox" / "processed" / f"{batch_id}.json").read_text())
    assert [entry["status"] for entry in answer["letters"]] == ["dispatched", "refused"]


def test_transfer_error_then_technical_failure(service, storage):
    class Unreachable:
        name = "directory"

        def send_batch(self, batch):
            raise PrintTransferError("drop unreachable")

    notification = ready_letter(service, storage)
    [(batch_id, _)] = printing.claim_batches()
    with pytest.raises(PrintTransferError):
        printing.send_batch(batch_id, Unreachable(), storage)
    assert status_of(notification.id) == "created"  # still claimed, for the retry
    assert printing.fail_batch(batch_id) == 1
    assert status_of(notification.id) == "technical-failure"


def test_answer_for_a_letter_not_yet_marked_sending_is_kept(service, storage, tmp_path):
    notification = ready_letter(service, storage)
    provider = SimulatedPrintProvider(tmp_path / "print")
    [(batch_id, _)] = printing.claim_batches()
    inbox = tmp_path / "print" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "early.json").write_text(json.dumps({"letters": [{"id": str(notification.id), "status": "dispatched"}]}))
    assert printing.apply_answers(provider) == 0
    assert (inbox / "early.json").exists()  # read again once the hand-over is recorded
    printing.send_batch(batch_id, provider, storage)
    assert printing.apply_answers(provider) == 1
    assert status_of(notification.id) == "delivered" and not (inbox / "early.json").exists()


def test_an_answer_read_while_its_hand_over_is_recorded_is_applied(service, storage, tmp_path, monkeypatch):
    """Two batches' answer reads run at once: one reads the other's answer before that batch's
    letters were moved to sending, and finds the letter `sending` only once its own move was refused."""
    notification = ready_letter(service, storage)
    provider = SimulatedPrintProvider(tmp_path / "print")
    printing.claim_batches()
    inbox = tmp_path / "print" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "b.json").write_text(json.dumps({"letters": [{"id": str(notification.id), "status": "dispatched"}]}))
    refused_once, transition = [], status_changes.transition

    def hand_over_recorded_meanwhile(notification_id, new_status, **fields):
        try:
            return transition(notification_id, new_status, **fields)
        finally:
            if not refused_once:
                refused_once.append(notification_id)
                Notification.update(status="sending").where(Notification.id == notification_id).execute()

    monkeypatch.setattr(status_changes, "transition", hand_over_recorded_meanwhile)
    assert printing.apply_answers(provider) == 1
    assert refused_once and status_of(notification.id) == "delivered"


def test_lost_stage_messages_are_sent_again(service, worker):
    """Redis restarted empty: the sweep resends each letter's stage message, and the stages run."""
    from pipeline.infrastructure.storage import letter_storage
    from tests.conftest import wait_for
    from workers.letters import sweep_stuck_letters
    from workers.periodic import SCHEDULE

    assert {"print-letters", "read-print-answers", "sweep-stuck-letters"} <= {name for name, _, _ in SCHEDULE}
    long_ago = utcnow() - datetime.timedelta(minutes=5)
    rendered_late = template_letter(service, created_at=long_ago)
    recent = template_letter(service)
    scanned_late = uploaded(service, letter_storage(), a_pdf(), created_at=long_ago)
    sweep_stuck_letters.send()
    wait_for(lambda: Notification.get_by_id(rendered_late.id).billable_units == 1)
    wait_for(lambda: status_of(scanned_late.id) == "created")
    assert Notification.get_by_id(recent.id).billable_units is None  # its own message may still come


def test_transfer_retried_then_failed_by_the_workers(service, worker, monkeypatch):
    """A drop that stays unreachable: Dramatiq retries the hand-over, then the letters end technical-failure."""
    from pipeline.infrastructure.storage import letter_storage
    from tests.conftest import wait_for
    from workers import letters

    attempts = []

    class Unreachable:
        name = "directory"

        def send_batch(self, batch):
            attempts.append(batch.id)
            raise PrintTransferError("drop unreachable")

    monkeypatch.setattr(letters, "provider_for", lambda settings, simulated=False: Unreachable())
    notification = ready_letter(service, letter_storage())
    letters.print_letters.send()
    wait_for(lambda: status_of(notification.id) == "technical-failure")
    assert len(attempts) == 1 + get_settings().provider_max_retries and len(set(attempts)) == 1
