"""The print providers on a real directory: the drop's files, the answers read back, the simulator."""
from __future__ import annotations

import dataclasses
import io
import json
import uuid

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen.canvas import Canvas

from config import get_settings
from pipeline.infrastructure.print_provider import (
    DirectoryPrintProvider,
    LetterResponse,
    PrintBatch,
    PrintLetter,
    PrintTransferError,
    SimulatedPrintProvider,
    answering_providers,
    provider_for,
)


def a_pdf(text: str) -> bytes:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=A4)
    canvas.drawString(80, 700, text)
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def a_letter(text: str = "A. Jansen", **fields) -> PrintLetter:
    values = {"id": str(uuid.uuid4()), "postage": "second", "sheets": 1, "country": "Netherlands", "pdf": a_pdf(text)}
    return PrintLetter(**{**values, **fields})


def test_directory_drop_writes_pdfs_and_manifest(tmp_path):
    provider = DirectoryPrintProvider(tmp_path)
    letters = [a_letter(), a_letter(postage="europe", sheets=3, country="Germany")]
    provider.send_batch(PrintBatch("b1", letters))
    folder = tmp_path / "outbox" / "b1"
    assert sorted(p.name for p in folder.iterdir()) == sorted([f"{letters[0].id}.pdf", f"{letters[1].id}.pdf",
                                                               "manifest.json"])
    assert (folder / f"{letters[1].id}.pdf").read_bytes() == letters[1].pdf
    assert json.loads((folder / "manifest.json").read_text()) == {"batch": "b1", "letters": [
        {"id": letters[0].id, "postage": "second", "sheets": 1, "country": "Netherlands"},
        {"id": letters[1].id, "postage": "europe", "sheets": 3, "country": "Germany"},
    ]}
    assert [p.name for p in (tmp_path / "outbox").iterdir()] == ["b1"]  # no partial folder left behind


def test_sending_a_batch_again_is_a_no_op_even_after_collection(tmp_path):
    provider = DirectoryPrintProvider(tmp_path)
    provider.send_batch(PrintBatch("b1", [a_letter()]))
    for path in (tmp_path / "outbox" / "b1").iterdir():  # the printer collects the folder
        path.unlink()
    (tmp_path / "outbox" / "b1").rmdir()
    provider.send_batch(PrintBatch("b1", [a_letter()]))
    assert not (tmp_path / "outbox" / "b1").exists()


def test_unwritable_drop_is_a_transfer_error(tmp_path):
    (tmp_path / "drop").write_text("a file where the folder should be")
    with pytest.raises(PrintTransferError):
        DirectoryPrintProvider(tmp_path / "drop").send_batch(PrintBatch("b1", [a_letter()]))


def test_answers_are_read_and_acknowledged(tmp_path):
    provider = DirectoryPrintProvider(tmp_path)
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    ok, refused = str(uuid.uuid4()), str(uuid.uuid4())
    (inbox / "2.json").write_text(json.dumps({"batch": "b1", "letters": [
        {"id": ok, "status": "dispatched"},
        {"id": refused, "status": "refused", "reason": "unreadable barcode"},
        {"id": "not-an-id", "status": "dispatched"},
        {"id": str(uuid.uuid4()), "status": "lost in the post"},
    ]}))
    (inbox / "1.json").write_text("{not json")
    (inbox / ".3.json.partial").write_text("{}")  # still being written by the printer
    [answer] = list(provider.responses())
    assert answer.letters == [LetterResponse(ok, "dispatched"),
                              LetterResponse(refused, "refused", "unreadable barcode")]
    assert (inbox / "rejected" / "1.json").exists()
    provider.acknowledge(answer)
    provider.acknowledge(answer)  # twice: nothing to move the second time
    assert (inbox / "processed" / "2.json").exists()
    assert list(provider.responses()) == []


def test_simulator_answers_and_collects(tmp_path):
    provider = SimulatedPrintProvider(tmp_path)
    letters = [a_letter("A. Jansen"), a_letter("PERM-FAIL Jansen")]
    provider.send_batch(PrintBatch("b1", letters))
    assert not (tmp_path / "outbox" / "b1").exists()
    [answer] = list(provider.responses())
    assert [(a.id, a.status) for a in answer.letters] == [(letters[0].id, "dispatched"), (letters[1].id, "refused")]
    provider.acknowledge(answer)
    provider.send_batch(PrintBatch("b1", letters))  # redelivered: answered once only
    assert list(provider.responses()) == []


def test_provider_choice(tmp_path):
    settings = dataclasses.replace(get_settings(), print_drop_dir=tmp_path)
    assert isinstance(provider_for(settings), SimulatedPrintProvider)
    assert provider_for(settings).root == tmp_path
    directory = dataclasses.replace(settings, print_provider="directory")
    assert type(provider_for(directory)) is DirectoryPrintProvider
    # Test-key letters never reach the real printer's drop.
    assert provider_for(directory, simulated=True).root == tmp_path / "simulated"
    assert [p.root for p in answering_providers(directory)] == [tmp_path, tmp_path / "simulated"]
    assert [p.root for p in answering_providers(settings)] == [tmp_path]
    with pytest.raises(ValueError):
        provider_for(dataclasses.replace(settings, print_provider="sftp"))
