"""Walking the console's pages as a reader does, and what a Dutch reader of them must not meet: a string
of the English catalogue that has no Dutch of its own, a raw value (a status code, a permission's name,
a provider's), or an English sentence the catalogues never saw.

Visible text is the page's text and the attributes a person reads or hears (alt, title, aria-label,
placeholder, a button's value); code and examples (<code>, <pre>, <kbd>, <samp>), what a person typed
into a text box, and any part marked as another language (lang="en") are not the page's own words.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = [*sorted((ROOT / "console").glob("**/translations/nl/LC_MESSAGES/messages.po")),
              ROOT / "pipeline" / "domain" / "translations" / "nl" / "LC_MESSAGES" / "messages.po"]
# Words Dutch writes as English does (each is in Van Dale): their catalogue entries rightly say the same.
SAME_IN_DUTCH = frozenset({"Status", "Test", "Live", "Dashboard", "Code", "Browser", "Spreadsheet", "Threads",
                           "Links", "console", "Callbacks", "Parameter", "Schema", "Menu", "API", "Postcode",
                           "%(count)s bytes", "%(field)s was %(old)s"})
NOT_THE_PAGES_WORDS = frozenset({"code", "pre", "kbd", "samp", "script", "style", "textarea", "template"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
                  "wbr"})
READ_ATTRIBUTES = ("alt", "title", "aria-label", "placeholder")
# Raw values: a status, permission, key type, channel or provider as stored. Those that are no Dutch word
# fail anywhere; those that are (sms, team, test, live, letter) fail as a value on their own ("Soort: letter").
RAW_ANYWHERE = frozenset({
    "created", "sending", "pending", "sent", "delivered", "permanent-failure", "temporary-failure",
    "technical-failure", "pending-virus-check", "virus-scan-failed", "validation-failed", "cancelled",
    "returned-letter", "accepted", "received", "failed", "in progress", "finished", "scheduled",
    "sending limits exceeded", "view_activity", "send_messages", "manage_templates", "manage_service",
    "manage_api_keys", "international_sms", "inbound_sms", "email", "normal", "simulated", "smtp", "ses",
    "spryng", "twilio", "cm"})
RAW_ALONE = frozenset({"sms", "team", "test", "live", "letter"})
# English words that are no Dutch words: one in a page's own text is a sentence the catalogue missed.
ENGLISH = frozenset("""the and your you with this that these those has been will would from for to not are which
when where there their they can cannot must should could yet only after before about into than then them what
who why how its it by on at or if all any every each no yes more less some our us my his her she new old sent send
message messages template templates delivered pending failed created sending cancelled simulated settings sign
change add remove delete save back next previous page none never today yesterday tomorrow day days hour hours
minute minutes please""".split())


@dataclass
class Page:
    url: str
    texts: list[str] = field(default_factory=list)  # each text node and read attribute, stripped
    links: list[str] = field(default_factory=list)


class _Reader(HTMLParser):
    def __init__(self, page: Page) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self.stack: list[tuple[str, bool]] = []  # (tag, the page's own words inside?)

    def _own(self) -> bool:
        return not self.stack or self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        own = self._own() and tag not in NOT_THE_PAGES_WORDS and values.get("lang", "nl") == "nl"
        if tag == "a" and values.get("href"):
            self.page.links.append(values["href"] or "")
        if own:
            self.page.texts.extend(text.strip() for name in READ_ATTRIBUTES if (text := values.get(name)))
            if tag == "input" and values.get("type") in ("submit", "button") and values.get("value"):
                self.page.texts.append((values["value"] or "").strip())
        if tag not in VOID:
            self.stack.append((tag, own))

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                return

    def handle_data(self, data: str) -> None:
        if self._own() and data.strip():
            self.page.texts.append(" ".join(data.split()))


def read_page(url: str, html: str) -> Page:
    page = Page(url)
    reader = _Reader(page)
    reader.feed(html)
    reader.close()
    return page


def untranslated() -> dict[str, re.Pattern[str]]:
    """Each msgid whose Dutch is empty or the English itself, as a pattern over a page's text."""
    found: dict[str, re.Pattern[str]] = {}
    for path in CATALOGUES:
        with path.open("rb") as handle:
            catalogue = read_po(handle, locale="nl")
        for message in catalogue:
            ids = list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]
            strings = list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]
            if not ids[0] or ids[0] in SAME_IN_DUTCH:
                continue
            for msgid, string in zip(ids, strings + [""] * (len(ids) - len(strings)), strict=False):
                if (not string or string == msgid) and re.search(r"[A-Za-z]", _without_values(msgid)):
                    found[msgid] = _pattern(msgid)
    return found


def _without_values(msgid: str) -> str:
    return re.sub(r"%\(\w+\)[sd]|%[sd]", "", msgid)


def _pattern(msgid: str) -> re.Pattern[str]:
    parts = re.split(r"%\(\w+\)[sd]|%[sd]", " ".join(msgid.split()))
    return re.compile(r"(?<![\w-])" + ".+?".join(re.escape(part) for part in parts) + r"(?![\w-])")


def problems(page: Page, catalogue: dict[str, re.Pattern[str]]) -> list[str]:
    """What a Dutch reader of the page should not meet, each with the text it was found in."""
    found = []
    for text in page.texts:
        found += [f"untranslated {msgid!r} in {text!r}" for msgid, pattern in catalogue.items()
                  if pattern.search(text)]
        found += [f"raw value {word!r} in {text!r}" for word in _raw_values(text)]
        english = sorted({word for word in re.findall(r"[A-Za-z]+(?:'[a-z]+)?", text) if word.lower() in ENGLISH
                          and not re.search(rf"[\w.-]@|@[\w.-]*{word}|\w[-_]{word}|{word}[-_]\w", text)})
        found += [f"English {english} in {text!r}"] if english else []
    return [f"{page.url}: {problem}" for problem in found]


def _raw_values(text: str) -> list[str]:
    words = [word for word in RAW_ANYWHERE if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text)]
    # On its own, after a colon ("Soort: letter") or in brackets ("Website (live)").
    words += [word for word in re.findall(r"(?:^|:\s*|\()([a-z]+)(?=\)|\.?$)", text) if word in RAW_ALONE]
    return words


def followed(page: Page, seen: set[str], skip: Iterable[str]) -> list[str]:
    """The page's links to further console pages, each shape of address once (a path and the names of its
    query's fields: the second page of a list is the first's kind of page)."""
    new = []
    for href in page.links:
        url = urldefrag(href)[0]
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not url.startswith("/") or any(mark in url for mark in skip):
            continue
        shape = parts.path + "?" + ",".join(sorted(name.split("=")[0] for name in parts.query.split("&") if name))
        if shape not in seen:
            seen.add(shape)
            new.append(url)
    return new
