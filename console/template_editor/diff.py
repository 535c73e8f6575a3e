"""Two versions of a template side by side as a readable line diff (difflib), field by field."""
from __future__ import annotations

import difflib
from dataclasses import dataclass

from flask_babel import lazy_gettext as _l

from models.template import TemplateVersion

FIELDS = {"name": _l("Template name"), "subject": _l("Subject or heading"), "body": _l("Message"),
          "postage": _l("Postage"), "letter_contact_block": _l("Contact block")}


@dataclass(frozen=True)
class Line:
    kind: str  # "added", "removed" or "same"
    text: str


@dataclass(frozen=True)
class FieldDiff:
    label: str
    lines: list[Line]


def _lines(old: str, new: str) -> list[Line]:
    kinds = {"+ ": "added", "- ": "removed", "  ": "same"}
    return [Line(kinds[row[:2]], row[2:]) for row in difflib.ndiff(old.splitlines(), new.splitlines())
            if row[:2] in kinds]


def compare(old: TemplateVersion, new: TemplateVersion) -> list[FieldDiff]:
    """The fields that differ between two versions, each as its lines added, removed and kept."""
    changed = []
    for name, label in FIELDS.items():
        before, after = getattr(old, name) or "", getattr(new, name) or ""
        if before != after:
            changed.append(FieldDiff(str(label), _lines(before, after)))
    return changed
