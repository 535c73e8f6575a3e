"""The catalogues and Babel formats recipients read."""
from __future__ import annotations

import datetime
from pathlib import Path

from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

from pipeline.domain.i18n import TRANSLATIONS_DIR, translator

ROOT = Path(__file__).resolve().parents[2]


def _extracted() -> set[str]:
    """Every message marked in the code and templates, as `pybabel extract -F babel.cfg -k markup -k documented`
    finds them."""
    from babel.messages.frontend import parse_mapping_cfg

    with open(ROOT / "babel.cfg") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found = set()
    for directory in ("api", "core", "pipeline"):
        extracted = extract_from_dir(ROOT / directory, method_map, options_map,
                                     keywords={**DEFAULT_KEYWORDS, "markup": None, "documented": None})
        for _file, _line, message, _comments, _context in extracted:
            found.add(message if isinstance(message, str) else message[0])
    return found


def test_every_message_shown_to_recipients_has_a_dutch_translation():
    with open(TRANSLATIONS_DIR / "nl" / "LC_MESSAGES" / "messages.po", "rb") as po:
        dutch = {message.id: message.string for message in read_po(po) if message.id}
    extracted = _extracted()
    assert "You have a file to download" in extracted and "Page %(page)s of %(pages)s" in extracted
    assert "Stop receiving these emails from %(service)s?" in extracted  # Translator.markup in Python
    untranslated = sorted(m for m in extracted if not dutch.get(m))
    assert untranslated == [], "run pybabel extract/update and translate these"


def test_dates_and_sizes_follow_the_language():
    dutch, english = translator("nl"), translator("en")
    assert dutch.date(datetime.date(2026, 11, 23)) == "23 november 2026"
    assert english.date(datetime.date(2026, 11, 23)) == "23 November 2026"
    assert dutch.file_size(1_500_000) == "1,4 MB" and english.file_size(1_500_000) == "1.4 MB"
    assert dutch.gettext("Page %(page)s of %(pages)s", page=2, pages=3) == "Pagina 2 van 3"


def test_unknown_or_missing_language_is_dutch():
    assert translator(None).language == "nl" and translator("fy").language == "nl"


def test_values_in_html_messages_are_escaped_but_the_catalogue_is_not():
    text = translator("nl").markup("%(service)s sent you a file.", service="<b>Gemeente</b>")
    assert str(text) == "&lt;b&gt;Gemeente&lt;/b&gt; heeft u een bestand gestuurd."
