"""What goes to a print provider and what comes back, independent of the transport."""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pipeline.infrastructure.print_provider.returns import ReturnsFile

DISPATCHED = "dispatched"  # printed and posted: the letter's public status becomes "received"
REFUSED = "refused"  # the provider cannot print it: permanent-failure


class PrintTransferError(Exception):
    """The batch could not be handed over (drop unreachable, disk full...): worth retrying."""


class PrintHeld(Exception):
    """Nothing may be handed to the provider until an operator acts (its SFTP server offers a host
    key other than the one pinned, or refuses our key): the batch waits, it is not failed."""


@dataclass(frozen=True)
class PrintLetter:
    id: str
    postage: str
    sheets: int
    country: str  # English name of the destination country ("Netherlands" for domestic mail)
    pdf: bytes = field(repr=False)

    def manifest_entry(self) -> dict[str, Any]:
        return {"id": self.id, "postage": self.postage, "sheets": self.sheets, "country": self.country}


@dataclass(frozen=True)
class PrintBatch:
    id: str
    letters: list[PrintLetter]

    def manifest(self) -> dict[str, Any]:
        return {"batch": self.id, "letters": [letter.manifest_entry() for letter in self.letters]}


@dataclass(frozen=True)
class LetterResponse:
    id: str
    status: str  # DISPATCHED or REFUSED
    reason: str | None = None


@dataclass(frozen=True)
class ResponseFile:
    """One answer file from the provider; acknowledged once every letter in it is applied."""
    name: str
    letters: list[LetterResponse]


class PrintProvider(Protocol):
    name: str

    def send_batch(self, batch: PrintBatch) -> None:
        """Hand the batch over; raises PrintTransferError or PrintHeld. Sending the same batch id twice is a
        no-op."""

    def responses(self) -> Iterator[ResponseFile]:
        """Answers not yet acknowledged, oldest first."""

    def acknowledge(self, response: ResponseFile) -> None:
        """Mark an answer as applied, so it is not read again."""

    def returns(self) -> Iterator[ReturnsFile]:
        """Files of returned letters not yet acknowledged, oldest first."""

    def acknowledge_returns(self, returned: ReturnsFile) -> None:
        """Mark a returns file as applied."""
