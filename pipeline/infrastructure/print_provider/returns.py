"""Returned letters: what the print provider's post room sends back, one file per return batch.

The provider writes them to <root>/inbox/returned/*.json (under a name not ending .json until
complete), each one:
    {"batch": "<the provider's id of this return batch>", "returned_on": "2026-11-23",
     "letters": [{"id": "<our letter id>"} or {"reference": "<the letter's reference>"}, ...]}
Applied files move to inbox/returned/processed/, unreadable ones to inbox/returned/rejected/.
"""
from __future__ import annotations

import datetime
import json
import logging
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReturnedLetter:
    id: str | None  # our notification id
    reference: str | None  # or the reference the letter was sent with


@dataclass(frozen=True)
class ReturnsFile:
    name: str
    returned_on: datetime.date
    letters: list[ReturnedLetter]


def read_returns(folder: Path) -> Iterator[ReturnsFile]:
    """The return files in `folder` not yet acknowledged, oldest name first."""
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            returned_on, letters = parse_returns(json.loads(path.read_bytes()))
        except FileNotFoundError:
            continue  # taken by a concurrent reader
        except ValueError as error:
            log.error("unreadable returned-letters file %s: %s", path, error)
            move(folder, path.name, "rejected")
            continue
        yield ReturnsFile(path.name, returned_on, letters)


def move(folder: Path, name: str, to: str) -> None:
    (folder / to).mkdir(parents=True, exist_ok=True)
    try:
        os.replace(folder / name, folder / to / name)
    except FileNotFoundError:
        pass  # a concurrent reader moved it first


def parse_returns(body: Any) -> tuple[datetime.date, list[ReturnedLetter]]:
    if not isinstance(body, dict) or not isinstance(body.get("letters"), list):
        raise ValueError("expected an object with a list of letters")
    returned_on = datetime.date.fromisoformat(str(body.get("returned_on")))  # ValueError when missing or bad
    letters = []
    for entry in body["letters"]:
        letter = _entry(entry)
        if letter is None:
            log.error("returned-letters entry without a valid id or reference: %r", entry)
        else:
            letters.append(letter)
    return returned_on, letters


def _entry(entry: Any) -> ReturnedLetter | None:
    if not isinstance(entry, dict):
        return None
    if entry.get("id"):
        try:
            return ReturnedLetter(str(uuid.UUID(str(entry["id"]))), None)
        except ValueError:
            return None
    reference = entry.get("reference")
    return ReturnedLetter(None, str(reference)) if isinstance(reference, str) and reference.strip() else None
