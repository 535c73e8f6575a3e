"""What an uploaded spreadsheet may hold, checked while it is read so that nothing is expanded first.

A file claims many things it cannot be trusted on: a zip's entries, an XLSX sheet's <dimension>, an
ODS row or cell "repeated" a million times. Each reader checks the claims against these caps before it
acts on them, and `collect` keeps the rows within the caps as they stream in. The caps:

- 100,000 rows, as GOV.UK Notify.
- 1,000 columns: a Notify file needs a recipient column (eight for a letter) and one per placeholder;
  a file exported from another system with unrelated columns still fits, and a column beyond it only
  comes from a damaged or hostile file.
- 4,000,000 cells (rows times the header's columns): each kept cell costs memory even when empty
  (8 bytes: 32 MB at the cap), so a file may be long or wide, not both: 100,000 rows of 40 columns,
  4,000 rows of 1,000.
- 32,767 characters in a cell: the most a cell of Excel or LibreOffice holds.
- 1,000,000 characters in a row, and 50,000,000 in the file (100,000 rows of 500 characters): a
  shared string or repeated row used everywhere would otherwise multiply into gigabytes of messages.
- Zipped formats: at most 1,000 entries, 100 MB unpacked in all, and no entry unpacked more than 100
  times its packed size (Apache POI's ratio; spreadsheets compress 5 to 30 times).
"""
from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable

from pipeline.domain.errors import Refusal

MAX_ROWS = 100_000
MAX_COLUMNS = 1_000
MAX_CELLS = 4_000_000
MAX_CELL_CHARS = 32_767
MAX_ROW_CHARS = 1_000_000
MAX_TEXT_CHARS = 50_000_000
MAX_ZIP_ENTRIES = 1_000
MAX_UNPACKED_BYTES = 100_000_000
MAX_PACKING_RATIO = 100

# The problems as check_upload reports them, each with its cap.
TOO_MANY_ROWS = Refusal("file_too_many_rows", f"The file has more than {MAX_ROWS:,} rows", {"count": MAX_ROWS})
TOO_MANY_COLUMNS = Refusal("file_too_many_columns", f"The file has more than {MAX_COLUMNS:,} columns",
                           {"count": MAX_COLUMNS})
TOO_MANY_CELLS = Refusal("file_too_many_cells", f"The file has more than {MAX_CELLS:,} cells", {"count": MAX_CELLS})
CELL_TOO_LONG = Refusal("file_cell_too_long", f"A cell of the file has more than {MAX_CELL_CHARS:,} characters",
                        {"count": MAX_CELL_CHARS})
ROW_TOO_LONG = Refusal("file_row_too_long", f"A row of the file has more than {MAX_ROW_CHARS:,} characters",
                       {"count": MAX_ROW_CHARS})
TOO_MUCH_TEXT = Refusal("file_too_much_text", f"The file has more than {MAX_TEXT_CHARS:,} characters of text",
                        {"count": MAX_TEXT_CHARS})
TOO_BIG_UNPACKED = Refusal("file_too_big_unpacked", "The file is too big once unpacked")


class SheetTooBig(ValueError):
    """The file is over one of the caps; `refusal` is one of the problems above."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal)
        self.refusal = refusal


def open_zip(data: bytes) -> zipfile.ZipFile:
    """The archive, once its central directory shows nothing that unpacks beyond the caps. zipfile
    never returns more than an entry's declared size (and fails its CRC check when the data was
    longer), so the declared sizes are bounds, not claims."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    entries = archive.infolist()
    if len(entries) > MAX_ZIP_ENTRIES or sum(entry.file_size for entry in entries) > MAX_UNPACKED_BYTES:
        raise SheetTooBig(TOO_BIG_UNPACKED)
    for entry in entries:
        if entry.file_size > MAX_PACKING_RATIO * max(entry.compress_size, 1):
            raise SheetTooBig(TOO_BIG_UNPACKED)
    return archive


def check_cell(text: str) -> str:
    if len(text) > MAX_CELL_CHARS:
        raise SheetTooBig(CELL_TOO_LONG)
    return text


def place(cells: list[str], column: int, text: str, repeat: int = 1) -> None:
    """Puts a non-empty text in columns column .. column+repeat-1 (0-based) of a row being read,
    refusing a column beyond the cap before anything is allocated for it."""
    if column + repeat > MAX_COLUMNS:
        raise SheetTooBig(TOO_MANY_COLUMNS)
    check_cell(text)
    if len(cells) < column:
        cells.extend([""] * (column - len(cells)))
    del cells[column:column + repeat]
    cells[column:column] = [text] * repeat


def collect(rows: Iterable[tuple[list[str], int]]) -> tuple[list[str], list[list[str]]]:
    """The header (the first row with text, trailing empty cells dropped) and the data rows, each as
    wide as the header. `rows` gives (cells, times the row repeats); rows with no text are skipped."""
    header: list[str] | None = None
    kept: list[list[str]] = []
    width = 0
    text = 0
    for cells, repeat in rows:
        end = len(cells)
        while end and not cells[end - 1]:  # a row's trailing empty cells are no columns
            end -= 1
        if not end:
            continue
        if end > MAX_COLUMNS:
            raise SheetTooBig(TOO_MANY_COLUMNS)
        if header is None:
            header = cells[:end]
            width = end
            repeat -= 1
        if not repeat:
            continue
        row = cells if len(cells) == width else (cells[:end] + [""] * width)[:width]
        length = sum(map(len, row))
        if length > MAX_ROW_CHARS:
            raise SheetTooBig(ROW_TOO_LONG)
        text += length * repeat
        if text > MAX_TEXT_CHARS:
            raise SheetTooBig(TOO_MUCH_TEXT)
        if len(kept) + repeat > MAX_ROWS:
            raise SheetTooBig(TOO_MANY_ROWS)
        if (len(kept) + repeat) * width > MAX_CELLS:
            raise SheetTooBig(TOO_MANY_CELLS)
        kept.extend([row] * repeat)
    return header or [], kept
