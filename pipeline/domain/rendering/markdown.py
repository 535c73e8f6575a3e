"""The Markdown subset of email bodies, rendered to HTML with inline styles.

Supported: paragraphs (every newline is a <br>), ``#``/``##`` headings, bullet lists (``*``, ``-``,
``+``, ``•``), numbered lists, ``---`` rules, inset text (``^`` at line start), links and bare
http(s) URLs. Everything else (emphasis, code, tables, images, raw HTML, ``>`` quotes) stays as
escaped text, so neither the template nor a value can inject markup.
"""

from __future__ import annotations

import re
from typing import Any

import mistune
from mistune.plugins.url import parse_url_link

BLOCK_RULES = ("atx_heading", "thematic_break", "block_quote", "list", "blank_line")
INLINE_RULES = ("escape", "link", "link_close", "auto_link", "linebreak", "url_link")

TEXT_STYLE = "font-size: 19px; line-height: 25px; color: #0b0c0c;"
STYLES = {
    "p": "margin: 0 0 20px 0; " + TEXT_STYLE,
    "h2": "margin: 0 0 15px 0; padding: 10px 0 0 0; font-size: 27px; line-height: 35px; "
          "font-weight: bold; color: #0b0c0c;",
    "h3": "margin: 0 0 15px 0; padding: 5px 0 0 0; font-size: 22px; line-height: 30px; "
          "font-weight: bold; color: #0b0c0c;",
    "ul": "margin: 0 0 20px 0; padding: 0 0 0 20px; list-style-type: disc;",
    "ol": "margin: 0 0 20px 0; padding: 0 0 0 20px; list-style-type: decimal;",
    "li": "margin: 5px 0; padding: 0 0 0 5px; " + TEXT_STYLE,
    "blockquote": "margin: 0 0 20px 0; padding: 15px 0 0.1px 15px; border-left: 10px solid #b1b4b6; " + TEXT_STYLE,
    "hr": "border: 0; height: 1px; background: #b1b4b6; margin: 30px 0;",
    "a": "word-wrap: break-word; color: #1d70b8;",
}

# mistune's bare-URL pattern without backslashes, so an escaped "\(https://x\)" links "https://x".
URL_LINK_PATTERN = r"""https?://[^\s<\\]+[^<.,:;"')\]\s\\]"""
_SAFE_URL = re.compile(r"https?://", re.IGNORECASE)
_BULLET = re.compile(r"^([ \t]*)•[ \t]*", re.MULTILINE)
_QUOTE = re.compile(r"^([ \t]{0,3})>", re.MULTILINE)
_INSET = re.compile(r"^([ \t]{0,3})\^", re.MULTILINE)


class EmailRenderer(mistune.HTMLRenderer):
    """mistune's HTML renderer with the markup of our email layout."""

    def __init__(self) -> None:
        super().__init__(escape=True)

    def link(self, text: str, url: str, title: str | None = None) -> str:
        # Only web links become anchors; javascript:, data:, mailto:, relative... stay as their text.
        if not _SAFE_URL.match(url.strip()):
            return text
        return f'<a style="{STYLES["a"]}" href="{self.escape_attribute(url.strip())}">{text}</a>'

    def image(self, text: str, url: str, title: str | None = None) -> str:
        return self.link(text, url)

    def linebreak(self) -> str:
        return "<br>\n"

    def paragraph(self, text: str) -> str:
        return f'<p style="{STYLES["p"]}">{text}</p>\n'

    def heading(self, text: str, level: int, **attrs: Any) -> str:
        tag = "h2" if level == 1 else "h3"
        return f'<{tag} style="{STYLES[tag]}">{text}</{tag}>\n'

    def thematic_break(self) -> str:
        return f'<hr style="{STYLES["hr"]}">\n'

    def block_quote(self, text: str) -> str:
        return f'<blockquote style="{STYLES["blockquote"]}">\n{text}</blockquote>\n'

    def list(self, text: str, ordered: bool, **attrs: Any) -> str:
        if ordered:
            start = attrs.get("start")
            start_attr = f' start="{int(start)}"' if start not in (None, 1) else ""
            return f'<ol style="{STYLES["ol"]}"{start_attr}>\n{text}</ol>\n'
        return f'<ul style="{STYLES["ul"]}">\n{text}</ul>\n'

    def list_item(self, text: str) -> str:
        return f'<li style="{STYLES["li"]}">{text}</li>\n'


def _build() -> mistune.Markdown:
    md = mistune.create_markdown(escape=True, hard_wrap=True, renderer=EmailRenderer())
    md.inline.register("url_link", URL_LINK_PATTERN, parse_url_link)
    md.block.rules = [rule for rule in md.block.rules if rule in BLOCK_RULES]
    md.block.block_quote_rules = [rule for rule in md.block.block_quote_rules if rule in BLOCK_RULES]
    md.block.list_rules = [rule for rule in md.block.list_rules if rule in BLOCK_RULES]
    md.inline.rules = [rule for rule in md.inline.rules if rule in INLINE_RULES]
    return md


_MARKDOWN = _build()


def prepare(text: str) -> str:
    """Rewrite Notify's Markdown dialect into what mistune understands.

    ``•`` bullets become ``*``; ``>`` at line start is escaped (it is not a quote in this dialect),
    then ``^`` at line start becomes the ``>`` that mistune renders as a block quote.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _BULLET.sub(r"\1* ", text)
    text = _QUOTE.sub(r"\1\\>", text)
    return _INSET.sub(r"\1>", text)


def markdown_to_html(text: str) -> str:
    """HTML fragment for an email body written in the supported Markdown subset."""
    return str(_MARKDOWN(prepare(text))).strip()
