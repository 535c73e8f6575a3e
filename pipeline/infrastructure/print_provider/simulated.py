"""The simulated print provider: the directory drop, answered at once by the simulator itself.

It drops each batch like the real exchange, then plays the print company: it reads every letter's
first page, answers into the inbox, and collects the batch folder. The answer is "refused" when
the first page carries the text "perm-fail" (in the address, say), like the simulated sms and
email providers' perm-fail recipients; "dispatched" otherwise. A dispatched letter whose first page
carries "return-to-sender" comes back at once: the simulator writes a returned-letters file for it.
"""
from __future__ import annotations

import datetime
import io
import json
import shutil

from pypdf import PdfReader
from pypdf.errors import PyPdfError

from pipeline.infrastructure.print_provider.base import DISPATCHED, REFUSED, PrintBatch, PrintLetter, PrintTransferError
from pipeline.infrastructure.print_provider.directory import DirectoryPrintProvider, write_atomically

REFUSE_MARKER = "perm-fail"
RETURN_MARKER = "return-to-sender"


def _first_page_text(letter: PrintLetter) -> str:
    try:
        return (PdfReader(io.BytesIO(letter.pdf)).pages[0].extract_text() or "").lower()
    except (PyPdfError, ValueError, KeyError, IndexError, TypeError):
        return ""  # a PDF the simulator cannot read still "prints": only the markers refuse or return


def simulated_answer(letter: PrintLetter, first_page: str) -> dict[str, str | None]:
    if REFUSE_MARKER in first_page:
        return {"id": letter.id, "status": REFUSED, "reason": "simulated refusal (perm-fail on the first page)"}
    return {"id": letter.id, "status": DISPATCHED, "reason": None}


class SimulatedPrintProvider(DirectoryPrintProvider):
    name = "simulated"

    def send_batch(self, batch: PrintBatch) -> None:
        super().send_batch(batch)
        answer = self.inbox / f"{batch.id}.json"
        if answer.exists() or (self.inbox / "processed" / answer.name).exists():
            return  # answered before this redelivery
        pages = {letter.id: _first_page_text(letter) for letter in batch.letters}
        body = {"batch": batch.id, "letters": [simulated_answer(letter, pages[letter.id]) for letter in batch.letters]}
        returned = [{"id": letter.id} for letter in batch.letters
                    if RETURN_MARKER in pages[letter.id] and REFUSE_MARKER not in pages[letter.id]]
        try:
            self.inbox.mkdir(parents=True, exist_ok=True)
            write_atomically(answer, json.dumps(body, indent=1).encode())
            if returned:
                self.returned.mkdir(parents=True, exist_ok=True)
                returns = {"batch": batch.id, "returned_on": datetime.date.today().isoformat(), "letters": returned}
                write_atomically(self.returned / f"{batch.id}.json", json.dumps(returns).encode())
        except OSError as error:
            raise PrintTransferError(f"simulator could not answer batch {batch.id}: {error}") from error
        # A print company takes the folder away; so does the simulator, or the drop grows forever.
        shutil.rmtree(self.outbox / batch.id, ignore_errors=True)
