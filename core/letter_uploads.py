"""A precompiled letter uploaded in the console: checked before it is shown (the sender may send
letters, the file is a readable PDF of bounded size, free of viruses, and what the print checks say of
it), its pages as images for the preview, then sent through pipeline.stages.sends.letters as the API sends one.

The virus scan runs here, before anything renders the file, and again in the letter stages once it
is sent, exactly as for a letter sent by API.
"""
from __future__ import annotations

from dataclasses import dataclass

from config import get_settings
from pipeline.domain.errors import BadRequestError, Refusal, Unavailable
from pipeline.domain.letters.page_images import page_images
from pipeline.domain.letters.pdf import MAX_SHEETS
from pipeline.domain.letters.precompiled import validate_precompiled
from pipeline.infrastructure.virus_scan import ScannerUnavailable, scanner_from_url
from pipeline.stages.sends.letters import check_may_send_letters, checked_pdf
from pipeline.stages.sends.sender import Sender

# The official Node client's limit on a precompiled letter; a letter of 10 sheets is far smaller.
MAX_PDF_BYTES = 5_000_000
TOO_BIG = Refusal("letter_too_big", "The file is larger than 5 MB")
VIRUS_FOUND = Refusal("letter_virus_found", "The file contains a virus")
SCANNER_DOWN = Refusal("virus_scanner_down",
                       "The file cannot be checked for viruses at the moment: try again in a few minutes")
PREVIEW_PAGES = MAX_SHEETS * 2  # a longer letter is refused anyway; its first pages are enough to see why


@dataclass(frozen=True)
class CheckedUpload:
    pages: int
    sheets: int
    problems: list[Refusal]  # the print checks' findings; none: it can be sent


def check_letter_upload(sender: Sender, data: bytes) -> CheckedUpload:
    """Refuse what cannot be sent at all (pipeline.domain.errors refusals); otherwise what the print checks
    find. Nothing is recorded."""
    check_may_send_letters(sender)
    if len(data) > MAX_PDF_BYTES:
        raise BadRequestError(TOO_BIG)
    checked_pdf(data)
    try:
        result = scanner_from_url(get_settings().clamd_url).scan(data)
    except ScannerUnavailable:
        raise Unavailable(SCANNER_DOWN) from None
    if not result.clean:
        raise BadRequestError(VIRUS_FOUND)
    check = validate_precompiled(data)
    return CheckedUpload(pages=check.pages, sheets=check.sheets, problems=check.problems)


def preview_pages(data: bytes) -> list[bytes]:
    """PNG images of a checked upload's first pages, as the template letter preview shows them."""
    return page_images(data, max_pages=PREVIEW_PAGES)
