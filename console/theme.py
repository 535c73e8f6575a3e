"""An organisation's own NL Design System theme: CONSOLE_THEME_CSS names a CSS file of design tokens
(custom properties such as --utrecht-button-primary-action-background-color), served at /theme.css after
the console's own tokens (static/notify-theme.css), and CONSOLE_THEME_CLASS the class its rules are
written for (a published theme's, such as voorbeeld-theme), added to every page's body."""
from __future__ import annotations

import logging
import re
from typing import Any

from flask import Flask, send_file

from config import Settings

# A class name and nothing else: it is written into every page's body tag.
_CLASS = re.compile(r"-?[A-Za-z_][A-Za-z0-9_-]*")
ENDPOINT = "theme_css"


def register(app: Flask, settings: Settings) -> dict[str, Any]:
    """Serve the configured theme file, if any; the template values that put it on every page."""
    css, name = settings.console_theme_css, settings.console_theme_class
    if name and not _CLASS.fullmatch(name):
        logging.getLogger("console").warning("CONSOLE_THEME_CLASS %r is not a class name: ignored", name)
        name = None
    if css is not None and not css.is_file():
        logging.getLogger("console").warning("CONSOLE_THEME_CSS %s is not a file: the console's own theme is used", css)
        css = None
    if css is not None:
        path = css.resolve()
        app.add_url_rule("/theme.css", ENDPOINT, lambda: send_file(path, mimetype="text/css", max_age=300))
    return {"theme_css": css is not None, "theme_class": name}
