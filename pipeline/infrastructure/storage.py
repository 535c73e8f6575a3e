"""A small blob store: put, get, delete, exists by key. LocalStorage keeps blobs as files.

Letters keep their PDFs here, keyed by notification id. Another backend (an S3 bucket, say) needs
only these four methods; nothing else in the code knows blobs are files.
"""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Protocol

from config import Settings, get_settings

# Keys are paths of plain segments ("quarantine/<id>.pdf"): nothing can climb out of the root.
_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*")


class BlobNotFound(KeyError):
    """No blob is stored under this key."""


class Storage(Protocol):
    def put(self, key: str, data: bytes) -> None: ...
    def get(self, key: str) -> bytes: ...
    def delete(self, key: str) -> None: ...
    def exists(self, key: str) -> bool: ...


class LocalStorage:
    """Blobs as files under `root`. Writes are atomic (temporary file, fsync, rename), so a reader
    sees either the whole blob or none, even when a worker dies mid-write."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def __repr__(self) -> str:
        return f"LocalStorage({str(self.root)!r})"

    def _path(self, key: str) -> Path:
        if not _KEY.fullmatch(key) or ".." in key.split("/"):
            raise ValueError(f"invalid storage key: {key!r}")
        return self.root / key

    def put(self, key: str, data: bytes) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".put-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get(self, key: str) -> bytes:
        try:
            return self._path(key).read_bytes()
        except FileNotFoundError:
            raise BlobNotFound(key) from None

    def delete(self, key: str) -> None:
        """Deleting a missing blob is not an error: a repeated delete finds the work done."""
        self._path(key).unlink(missing_ok=True)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()


def letter_storage(settings: Settings | None = None) -> LocalStorage:
    """Where letter PDFs live: instance/letters unless configured otherwise."""
    return LocalStorage((settings or get_settings()).instance_dir / "letters")


def report_storage(settings: Settings | None = None) -> LocalStorage:
    """Where the console's background reports (CSV) live: instance/reports unless configured otherwise."""
    return LocalStorage((settings or get_settings()).instance_dir / "reports")


def letter_pdf_key(notification_id: object) -> str:
    """The key of a letter's PDF: rendered from its template, or uploaded precompiled."""
    return f"{notification_id}.pdf"
