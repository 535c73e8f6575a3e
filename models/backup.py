"""A copy of a SQLite database taken before the release step changes it.

SQLite's online backup API (Python's sqlite3.Connection.backup) copies a consistent snapshot even
while other processes write to it in WAL mode, where copying the file could miss the WAL's pages.
"""
from __future__ import annotations

import datetime
import sqlite3
from pathlib import Path

SQLITE_PREFIX = "sqlite:///"


def backup_sqlite(url: str, *, before_step: int) -> Path | None:
    """Copies the database at url into backups/ beside it and returns the copy's path; None when there
    is nothing to keep (no file yet, or an empty one: a fresh install)."""
    if not url.startswith(SQLITE_PREFIX):
        return None
    path = Path(url[len(SQLITE_PREFIX):])
    if not path.exists() or path.stat().st_size == 0:
        return None
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    target = path.parent / "backups" / f"{path.stem}-{stamp}-before-step-{before_step}{path.suffix or '.db'}"
    target.parent.mkdir(parents=True, exist_ok=True)
    source = sqlite3.connect(path)
    try:
        copy = sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            copy.close()
    finally:
        source.close()
    return target
