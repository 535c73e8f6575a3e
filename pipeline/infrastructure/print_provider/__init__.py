"""Print providers: where accepted letters go to be printed and posted, and how their answers come back.

A provider takes a batch of letters (each PDF plus a manifest entry: id, postage, sheets, country)
and later answers, per letter, "dispatched" or "refused". The directory provider is a drop: batches
are written to PRINT_DROP_DIR/outbox/<batch>/ and answers are read from PRINT_DROP_DIR/inbox/*.json.
The SFTP provider is the same layout on the print house's SFTP server. The simulated provider, the
default and always the one for test keys, is the directory provider answering its own batches at once.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.infrastructure.print_provider.base import (
    DISPATCHED,
    REFUSED,
    LetterResponse,
    PrintBatch,
    PrintHeld,
    PrintLetter,
    PrintProvider,
    PrintTransferError,
    ResponseFile,
)
from pipeline.infrastructure.print_provider.directory import DirectoryPrintProvider
from pipeline.infrastructure.print_provider.sftp import SftpPrintProvider
from pipeline.infrastructure.print_provider.simulated import SimulatedPrintProvider
from pipeline.infrastructure.print_provider.ssh import HostKeyPin, SftpAccess, SftpTarget

if TYPE_CHECKING:
    from config import Settings

PROVIDERS = ("simulated", "directory", "sftp")


def _sftp_access(settings: Settings) -> SftpAccess:
    if not (settings.print_sftp_url and settings.print_sftp_key_file and settings.print_sftp_host_key):
        raise ValueError("PRINT_PROVIDER=sftp needs PRINT_SFTP_URL, PRINT_SFTP_KEY_FILE and PRINT_SFTP_HOST_KEY")
    return SftpAccess(SftpTarget.parse(settings.print_sftp_url), settings.print_sftp_key_file,
                      HostKeyPin.parse(settings.print_sftp_host_key), settings.print_sftp_timeout_seconds)


def provider_for(settings: Settings, *, simulated: bool = False) -> PrintProvider:
    """The configured provider; the simulator for test keys. A test-key letter never reaches the
    real provider's outbox: the simulator then works in a subfolder of PRINT_DROP_DIR. Raises
    ValueError when the settings name no provider or an SFTP drop incompletely."""
    if settings.print_provider not in PROVIDERS:
        raise ValueError(f"PRINT_PROVIDER must be one of {', '.join(PROVIDERS)}, not {settings.print_provider!r}")
    if settings.print_provider == "simulated":
        return SimulatedPrintProvider(settings.print_drop_dir)
    if simulated:
        return SimulatedPrintProvider(settings.print_drop_dir / "simulated")
    if settings.print_provider == "sftp":
        return SftpPrintProvider(_sftp_access(settings))
    return DirectoryPrintProvider(settings.print_drop_dir)


def answering_providers(settings: Settings) -> list[PrintProvider]:
    """Every provider whose answers are to be read: the configured one, plus the test-key simulator."""
    configured = provider_for(settings)
    if isinstance(configured, SimulatedPrintProvider):
        return [configured]
    return [configured, provider_for(settings, simulated=True)]


__all__ = [
    "DISPATCHED", "REFUSED", "DirectoryPrintProvider", "LetterResponse", "PrintBatch", "PrintHeld", "PrintLetter",
    "PrintProvider", "PrintTransferError", "ResponseFile", "SftpPrintProvider", "SimulatedPrintProvider",
    "answering_providers", "provider_for",
]
