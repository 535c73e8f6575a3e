"""The console's gettext catalogues: `python -m console.translations` brings them up to date.

Source strings are English; the Dutch catalogues translate them (Dutch is the default language).
An area with its own `console/<area>/translations/` owns the strings of `console/<area>/**.py` and
`console/templates/<area>/**.html`, so areas never edit one shared file; everything else belongs
to `console/translations/`. The command extracts every string, keeps the translations made before,
adds the new strings untranslated, drops the ones no longer used, and compiles each `.po` to `.mo`.
`check()` lists what is untranslated or not compiled (the test suite calls it).
"""
from __future__ import annotations

import datetime
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent
LOCALE = "nl"
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "lazy_gettext": None, "_l": None}
JINJA_OPTIONS: dict[str, str] = {}


def _areas() -> list[str]:
    return sorted(p.parent.name for p in ROOT.glob("*/translations") if p.is_dir())


def _owner(path: Path, areas: list[str]) -> str | None:
    """The area whose catalogue holds this file's strings; None for the shared one."""
    parts = path.relative_to(ROOT).parts
    if parts[0] == "templates" and len(parts) > 2 and parts[1] in areas:
        return parts[1]
    if parts[0] in areas:
        return parts[0]
    return None


STABLE_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def extract() -> dict[str | None, Catalog]:
    areas = _areas()
    # A fixed creation date: compiling the same strings gives the same bytes, so a rebuild leaves
    # untouched areas' .mo files alone (and parallel branches do not conflict on them).
    catalogues: dict[str | None, Catalog] = {area: Catalog(locale=LOCALE, creation_date=STABLE_DATE)
                                             for area in [None, *areas]}
    files = sorted([*ROOT.rglob("*.py"), *ROOT.glob("templates/**/*.html")])
    for path in files:
        method = "jinja2" if path.suffix == ".html" else "python"
        options = JINJA_OPTIONS if method == "jinja2" else {}
        for lineno, message, comments, context in extract_from_file(method, str(path), keywords=KEYWORDS,
                                                                    options=options):
            catalogues[_owner(path, areas)].add(message, locations=[(str(path.relative_to(ROOT)), lineno)],
                                                auto_comments=comments, context=context)
    return catalogues


def _po_path(area: str | None) -> Path:
    base = ROOT / "translations" if area is None else ROOT / area / "translations"
    return base / LOCALE / "LC_MESSAGES" / "messages.po"


def _read(path: Path) -> Catalog:
    if not path.exists():
        return Catalog(locale=LOCALE)
    with path.open("rb") as handle:
        return read_po(handle, locale=LOCALE)


def update() -> list[str]:
    """Bring every catalogue up to date and compile it; returns the strings still untranslated."""
    untranslated: list[str] = []
    for area, fresh in extract().items():
        path = _po_path(area)
        old = _read(path)
        for message in fresh:
            if message.id and (before := old.get(message.id)) is not None and _translated(before):
                message.string = before.string
            elif message.id:
                untranslated.append(f"{path.relative_to(ROOT)}: {message.id!r}")
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            write_po(handle, fresh, width=100, omit_header=True, sort_output=True, include_lineno=False)
        with path.with_suffix(".mo").open("wb") as handle:
            write_mo(handle, fresh)
    return untranslated


def _compiled(mo: Path) -> dict[object, str]:
    with mo.open("rb") as handle:
        return _translations(read_mo(handle))


def _translations(catalogue: Catalog) -> dict[object, str]:
    """msgid -> text as gettext keys them: a plural's forms under (singular, index)."""
    found: dict[object, str] = {}
    for message in catalogue:
        if not message.id or not message.string:
            continue
        if isinstance(message.id, (list, tuple)):
            found.update({(message.id[0], i): text for i, text in enumerate(message.string)})
        else:
            found[message.id] = message.string
    return found


def _translated(message: object) -> bool:
    strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
    return all(strings)


def check() -> list[str]:
    """What is wrong with the catalogues as committed: strings in the code with no Dutch
    translation, and `.mo` files that do not match their `.po`."""
    problems = []
    for area, fresh in extract().items():
        path = _po_path(area)
        known = _read(path)
        for message in fresh:
            if message.id and not ((found := known.get(message.id)) is not None and _translated(found)):
                problems.append(f"{path.relative_to(ROOT)}: no translation of {message.id!r}")
        mo = path.with_suffix(".mo")
        if not mo.exists() or _compiled(mo) != _translations(known):
            problems.append(f"{mo.relative_to(ROOT)} is not compiled from its .po: run python -m console.translations")
    return problems


if __name__ == "__main__":
    missing = update()
    print("\n".join(missing) or "every string is translated")
    sys.exit(1 if missing else 0)
