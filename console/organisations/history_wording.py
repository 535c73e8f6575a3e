"""An organisation's history as sentences in the page's language, as a service's history reads
(console/history/wording.py): a field's name in words, a kind, role, language or rate agreement by
its name, and who or what a change was about kept beside it when it did not change."""
from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l

from console.appearance.views import LANGUAGE_LABELS
from console.history import wording
from console.organisations.settings_views import rate_name
from console.organisations.shared import KIND_NAMES, ROLE_NAMES
from models.organisation import OrganisationEvent

LABELS = {"kind": _l("Kind"), "rate_table": _l("Rate agreement"), "domain": _l("Email domain"), "role": _l("Role"),
          "service": _l("Service"), "brand": _l("Brand")}
# Who or what the change was about: shown even when it stayed the same (a member whose role changed).
SUBJECTS = ("email_address", "service", "brand", "domain")


def _named(field: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    if field == "rate_table":
        return rate_name(value)
    names = {"kind": KIND_NAMES, "role": ROLE_NAMES, "language": LANGUAGE_LABELS}.get(field, {})
    return str(names[value]) if value in names else value


def changes(event: OrganisationEvent) -> list[str]:
    """One sentence per field the event recorded, in the order recorded."""
    before, after = event.before or {}, event.after or {}
    said = []
    for field in dict.fromkeys([*before, *after]):
        old, new = _named(field, before.get(field)), _named(field, after.get(field))
        label = str(LABELS[field]) if field in LABELS else None
        if field in before and field in after and old == new:
            if field in SUBJECTS:
                said.append(wording.sentence(field, None, new, label))
            continue
        if old is not None or new is not None:
            said.append(wording.sentence(field, old, new, label))
    return said
