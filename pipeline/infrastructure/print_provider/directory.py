"""The directory drop: batches written to <root>/outbox/<batch>/, answers read from <root>/inbox/*.json.

Outbox, one folder per batch, complete when it appears (written under a hidden name, then renamed):
    <letter id>.pdf ...
    manifest.json   {"batch": "<batch id>", "letters": [{"id", "postage", "sheets", "country"}, ...]}
Inbox, one file per answer, written by the provider (under a name not ending .json until complete):
    {"batch": "<batch id>", "letters": [{"id": "<letter id>", "status": "dispatched" | "refused",
                                         "reason": "<optional text>"}, ...]}
Applied answers move to inbox/processed/, unreadable ones to inbox/rejected/.
Returned letters come back in inbox/returned/ (pipeline/infrastructure/print_provider/returns.py).
"""
from __future__ import annotations

import json
import logging
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipeline.infrastructure.print_provider import returns
from pipeline.infrastructure.print_provider.base import (
    DISPATCHED,
    REFUSED,
    LetterResponse,
    PrintBatch,
    PrintTransferError,
    ResponseFile,
)
from pipeline.infrastructure.print_provider.returns import ReturnsFile

log = logging.getLogger(__name__)


def write_atomically(path: Path, data: bytes) -> None:
    """Write under a hidden temporary name, then rename: readers never see half a file."""
    tmp = path.with_name(f".{path.name}.partial")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


class DirectoryPrintProvider:
    name = "directory"

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.outbox = self.root / "outbox"
        self.inbox = self.root / "inbox"
        self.sent = self.root / "sent"  # one marker per batch handed over: a resend is a no-op
        self.returned = self.inbox / "returned"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"

    def send_batch(self, batch: PrintBatch) -> None:
        marker = self.sent / batch.id
        target = self.outbox / batch.id
        if marker.exists() or target.exists():
            return  # handed over before (the provider may already have collected the folder)
        partial = self.outbox / f".{batch.id}.partial"
        try:
            self.sent.mkdir(parents=True, exist_ok=True)
            shutil.rmtree(partial, ignore_errors=True)  # left by a worker that died mid-write
            partial.mkdir(parents=True)
            for letter in batch.letters:
                (partial / f"{letter.id}.pdf").write_bytes(letter.pdf)
            write_atomically(partial / "manifest.json", json.dumps(batch.manifest(), indent=1).encode())
            os.replace(partial, target)
            marker.touch()
        except OSError as error:
            raise PrintTransferError(f"could not write batch {batch.id} to {self.outbox}: {error}") from error

    def responses(self) -> Iterator[ResponseFile]:
        for path in sorted(self.inbox.glob("*.json")) if self.inbox.is_dir() else []:
            try:
                letters = parse_answer(json.loads(path.read_bytes()))
            except FileNotFoundError:
                continue  # taken by a concurrent reader
            except ValueError as error:
                log.error("unreadable print provider answer %s: %s", path, error)
                self._move(path.name, "rejected")
                continue
            yield ResponseFile(name=path.name, letters=letters)

    def acknowledge(self, response: ResponseFile) -> None:
        self._move(response.name, "processed")

    def returns(self) -> Iterator[ReturnsFile]:
        return returns.read_returns(self.returned)

    def acknowledge_returns(self, returned: ReturnsFile) -> None:
        returns.move(self.returned, returned.name, "processed")

    def _move(self, name: str, folder: str) -> None:
        (self.inbox / folder).mkdir(parents=True, exist_ok=True)
        try:
            os.replace(self.inbox / name, self.inbox / folder / name)
        except FileNotFoundError:
            pass  # a concurrent reader moved it first


def parse_answer(answer: Any) -> list[LetterResponse]:
    """The letters of one answer file; entries that make no sense are logged and skipped."""
    if not isinstance(answer, dict) or not isinstance(answer.get("letters"), list):
        raise ValueError("expected an object with a list of letters")
    letters = []
    for entry in answer["letters"]:
        try:
            letter_id = str(uuid.UUID(str(entry["id"])))
            status = entry["status"]
        except (TypeError, KeyError, ValueError):
            log.error("print provider answer entry without a valid id and status: %r", entry)
            continue
        if status not in (DISPATCHED, REFUSED):
            log.error("print provider answered an unknown status %r for %s", status, letter_id)
            continue
        reason = entry.get("reason")
        letters.append(LetterResponse(letter_id, status, str(reason) if reason is not None else None))
    return letters
