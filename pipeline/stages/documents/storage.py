"""Where encrypted files are kept: the shared blob store (pipeline.infrastructure.storage) rooted at FILE_STORAGE_DIR.

Keys are "<service id>/<file id>". Only storage() chooses the backend, so an object store that
implements pipeline.infrastructure.storage.Storage can replace local disk without touching the rest.
"""
from __future__ import annotations

import datetime
import re
import time
from collections.abc import Iterator

from config import get_settings
from pipeline.infrastructure.storage import LocalStorage, Storage

_KEY = re.compile(r"[0-9a-f-]{36}/[0-9a-f-]{36}")


def storage() -> Storage:
    return LocalStorage(get_settings().file_storage_dir)


def keys_older_than(store: Storage, age: datetime.timedelta) -> Iterator[str]:
    """File keys written at least `age` ago, for removing bytes whose send never committed.

    Only local disk can be listed here; an object store would expire such objects with its own
    lifecycle rules instead, so for it this yields nothing.
    """
    if not isinstance(store, LocalStorage) or not store.root.is_dir():
        return
    cutoff = time.time() - age.total_seconds()
    for service_dir in store.root.iterdir():
        if not service_dir.is_dir():
            continue
        for entry in service_dir.iterdir():
            key = f"{service_dir.name}/{entry.name}"
            if _KEY.fullmatch(key) and entry.stat().st_mtime < cutoff:
                yield key
